//! The archive: every session trajhost has synced, searchable, kept with the
//! native bytes it was read from, so that it can be read and continued after
//! the harness has deleted it.
//!
//! - [`store`]: the storage interface sync, search and read use;
//! - [`sqlite`]: the embedded store (one SQLite file, FTS5), its schema and
//!   migrations;
//! - [`postgres`]: the shared store of a fleet (one PostgreSQL database
//!   several machines sync into at once; docs/fleet.md);
//! - [`config`]: which store a command uses (`--archive`, `$TRAJHOST_ARCHIVE`,
//!   `DATA_DIR/config.toml`), and this machine's id;
//! - [`sync`]: incremental sync of homes into a store;
//! - [`search`]: what is indexed, and query syntax;
//! - [`watch`]: file-system notifications over the stores codecs declare;
//! - this module: resolving an archived session for `read` and `convert`,
//!   restoring its evidence when its source is gone.

pub mod config;
pub mod fuzzing;
pub mod postgres;
pub mod search;
pub mod sqlite;
pub mod store;
pub mod sync;
pub mod watch;

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub use config::Location;
pub use postgres::PostgresArchive;
pub use sqlite::SqliteArchive;
pub use store::{ArchiveStore, ArchivedSession};
use trajhost_capabilities::evidence::Replay;
use trajhost_inventory::{FoundSession, SessionSummary};
use trajhost_registry::catalog::Catalog;

/// Bytes before a file's kept size whose digest tells an append from a
/// rewrite.
pub const CURSOR_BYTES: u64 = 4096;

/// The archive's file in a data directory.
pub fn default_path(data_dir: &Path) -> PathBuf {
    data_dir.join("archive.db")
}

/// Errors of the archive; each names the archive file.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("archive {path}: {message}")]
    Sqlite { path: PathBuf, message: String },
    #[error("archive {path}: {message}")]
    Schema { path: PathBuf, message: String },
    #[error("archive {path} is damaged: {message}")]
    Corrupt { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("search {0}")]
    Query(String),
    /// `database` is the URL with its password redacted, as every message.
    #[error("cannot connect to archive {database}: {message}")]
    PostgresConnect { database: String, message: String },
    #[error("archive {database}: {message}")]
    Postgres { database: String, message: String },
    /// Another machine's transaction conflicted with this one (a
    /// serialization failure or a deadlock): worth another attempt.
    #[error("archive {database}: {message}")]
    Conflict { database: String, message: String },
    #[error("archive {database}: schema: {message}")]
    PostgresSchema { database: String, message: String },
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    /// A codec or the sandbox failed while a session was read for the archive.
    #[error(transparent)]
    Host(#[from] trajhost_runtime::HostError),
}

pub type Result<T, E = ArchiveError> = std::result::Result<T, E>;

/// Opens (or creates) the archive at `location`; a shared database knows
/// this machine's homes by `machine`.
pub fn open(location: &Location, machine: &str) -> Result<Box<dyn ArchiveStore>, ArchiveError> {
    Ok(match location {
        Location::Sqlite(path) => Box::new(SqliteArchive::open(path)?),
        Location::Postgres(url) => Box::new(PostgresArchive::open(url, machine)?),
    })
}

/// Whether a session was synced from this machine (always, in an archive
/// only this machine writes): only then can its home hold its source.
pub fn is_local(store: &dyn ArchiveStore, session: &ArchivedSession) -> bool {
    match (&session.machine, store.machine()) {
        (Some(theirs), Some(ours)) => theirs == ours,
        _ => true,
    }
}

/// An archived session ready for `read` or `convert`: live where its source
/// still is, else restored from the kept evidence into a private temporary
/// home (removed when this is dropped).
pub struct Resolved {
    pub found: FoundSession,
    pub archived: ArchivedSession,
    /// The private home the evidence was restored into, if the source is gone.
    pub restored: Option<tempfile::TempDir>,
}

/// Resolves `id` (a native id or a unique prefix) from the archive, without
/// a discovery pass. `Ok(None)` when the archive does not hold it (the
/// caller discovers instead). `home`, when given, keeps only sessions synced
/// from that home.
pub fn resolve(
    catalog: &Catalog<'_>,
    store: &dyn ArchiveStore,
    id: &str,
    harness: Option<&str>,
    home: Option<&Path>,
) -> Result<Option<Resolved>> {
    let mut found = store.find(id, harness)?;
    if let Some(home) = home {
        let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        found.retain(|s| s.home == home && is_local(store, s));
    }
    let archived = match found.len() {
        0 => return Ok(None),
        1 => found.remove(0),
        _ => {
            return Err(ArchiveError::Host(trajhost_runtime::HostError::SessionNotFound(format!(
                "{id:?} matches {} archived sessions ({}); give more of the id, --harness or --home",
                found.len(),
                found
                    .iter()
                    .map(|s| match &s.machine {
                        Some(machine) => format!("{}:{} in {machine}:{}", s.harness, s.native_id, s.home.display()),
                        None => format!("{}:{} in {}", s.harness, s.native_id, s.home.display()),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ))));
        }
    };
    let codec =
        catalog.for_harness(&archived.harness).iter().any(|c| c.id() == archived.codec).then(|| archived.codec.clone());
    let main_file = archived.locator.split_once('#').map_or(archived.locator.as_str(), |(file, _)| file);
    // Another machine's session is read from its evidence, even where this
    // machine has a file at the same path.
    if is_local(store, &archived) && archived.home.join(main_file).is_file() {
        let found = found_session(catalog, &archived, &archived.home, codec, None);
        return Ok(Some(Resolved { found, archived, restored: None }));
    }
    let (dir, replay) = restore(store, &archived)?;
    tracing::info!(session = %archived.native_id, home = %dir.path().display(), "source is gone: read from the archive's evidence");
    let home = std::fs::canonicalize(dir.path()).map_err(|e| trajhost_runtime::HostError::io(dir.path(), e))?;
    let found = found_session(catalog, &archived, &home, codec, Some(Arc::new(replay)));
    Ok(Some(Resolved { found, archived, restored: Some(dir) }))
}

fn found_session(
    catalog: &Catalog<'_>,
    archived: &ArchivedSession,
    home: &Path,
    codec: Option<String>,
    replay: Option<Arc<Replay>>,
) -> FoundSession {
    let _ = catalog;
    let main_file = archived.locator.split_once('#').map_or(archived.locator.as_str(), |(file, _)| file);
    FoundSession {
        harness: archived.harness.clone(),
        discovered_by: archived.codec.clone(),
        codec,
        home: home.to_path_buf(),
        session: SessionSummary {
            native_id: archived.native_id.clone(),
            locator: archived.locator.clone(),
            path: home.join(main_file),
            cwd: archived.cwd.clone(),
            started_at: archived.started_at.clone(),
            updated_at: archived.updated_at.clone(),
            size: 0,
            native_version: archived.native_version.clone(),
            title: archived.title.clone(),
        },
        copies: Vec::new(),
        not_portable: Vec::new(),
        continues: None,
        replay,
    }
}

/// A relative path from the archive, refused if it could leave the
/// restore directory.
fn safe_relative(path: &str) -> Option<&Path> {
    let p = Path::new(path);
    (!path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))).then_some(p)
}

/// Writes a session's evidence into a new private directory laid out as its
/// home: the files' kept bytes, and an empty placeholder at each database
/// whose recorded answers the returned [`Replay`] serves.
pub fn restore(store: &dyn ArchiveStore, session: &ArchivedSession) -> Result<(tempfile::TempDir, Replay)> {
    let evidence = store.evidence(session)?;
    let dir = tempfile::Builder::new()
        .prefix("trajhost-archived-")
        .tempdir()
        .map_err(|e| trajhost_runtime::HostError::io(std::env::temp_dir(), e))?;
    let io = |p: &Path, e: std::io::Error| trajhost_runtime::HostError::io(p, e);
    let place = |rel: &str| -> Result<PathBuf> {
        let rel_path = safe_relative(rel).ok_or_else(|| ArchiveError::Corrupt {
            path: PathBuf::from(store.location()),
            message: format!("evidence path {rel:?} is not a relative path"),
        })?;
        let path = dir.path().join(rel_path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        Ok(path)
    };
    for (rel, bytes) in &evidence.files {
        let path = place(rel)?;
        std::fs::write(&path, bytes).map_err(|e| io(&path, e))?;
    }
    let mut replay = Replay::default();
    for (rel, queries) in evidence.tapes {
        let path = place(&rel)?;
        std::fs::write(&path, b"").map_err(|e| io(&path, e))?;
        let path = std::fs::canonicalize(&path).map_err(|e| io(&path, e))?;
        replay.databases.insert(path, Arc::new(queries));
    }
    Ok((dir, replay))
}
