//! Which archive a command uses, and as which machine: `--archive`, else
//! `$TRAJHOST_ARCHIVE`, else `archive` in `DATA_DIR/config.toml`, else the
//! embedded file `DATA_DIR/archive.db`. An archive is a SQLite file's path
//! or a `postgres://` (`postgresql://`) URL of a database several machines
//! share; there, each home is known by this machine's id:
//! `$TRAJHOST_MACHINE`, else `machine` in the config file, else the host
//! name.
//!
//! ```toml
//! # DATA_DIR/config.toml
//! archive = "postgres://trajhost@db.internal/trajhost"
//! machine = "build-07"   # optional; default: the host name
//!
//! [redact]                 # docs/redaction.md
//! redact_evidence = true   # also mask the embedded archive's raw evidence
//! allow = ["EXAMPLE-[0-9]+"]
//! rules = [{ id = "internal-token", regex = "itk_[0-9a-f]{32}", keywords = ["itk_"] }]
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ArchiveError;

/// The config file of a data directory.
pub fn config_path(data_dir: &Path) -> PathBuf {
    data_dir.join("config.toml")
}

/// What `DATA_DIR/config.toml` says (every key optional; a missing file is
/// an empty one).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A SQLite file or a `postgres://` URL.
    pub archive: Option<String>,
    /// The machine id homes are keyed by in a shared archive.
    pub machine: Option<String>,
    /// `[plugins]`: the registries codecs come from
    /// (`trajhost_registry::remote`).
    #[serde(default)]
    pub plugins: trajhost_registry::remote::PluginsConfig,
    /// `[redact]`: the user's rules, allowlist and `redact_evidence`
    /// (`trajhost_inventory::redaction`, docs/redaction.md).
    #[serde(default)]
    pub redact: trajhost_inventory::redaction::RedactConfig,
}

impl Config {
    pub fn load(data_dir: &Path) -> Result<Config, ArchiveError> {
        let path = config_path(data_dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(ArchiveError::Io { path, message: e.to_string() }),
        };
        toml::from_str(&text)
            .map_err(|e| ArchiveError::Config { path, message: super::postgres::redact(e.message()).into_owned() })
    }
}

/// Where an archive lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The embedded archive: one SQLite file.
    Sqlite(PathBuf),
    /// A shared PostgreSQL database (the URL may hold a password: print
    /// [`Location::display`], never the URL).
    Postgres(String),
}

impl Location {
    /// `postgres://…` and `postgresql://…` are a database, anything else a file.
    pub fn parse(text: &str) -> Location {
        if is_postgres_url(text) { Location::Postgres(text.to_string()) } else { Location::Sqlite(PathBuf::from(text)) }
    }

    /// For messages: the file, or the URL with its password redacted.
    pub fn display(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => super::postgres::redact(url).into_owned(),
        }
    }
}

pub fn is_postgres_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

/// The archive a command uses: `explicit` (`--archive`), else
/// `$TRAJHOST_ARCHIVE`, else the config file's `archive`, else
/// `DATA_DIR/archive.db`.
pub fn location(data_dir: &Path, explicit: Option<&str>, config: &Config) -> Location {
    let env = std::env::var("TRAJHOST_ARCHIVE").ok().filter(|v| !v.is_empty());
    match explicit.map(str::to_string).or(env).or_else(|| config.archive.clone()) {
        Some(text) => Location::parse(&text),
        None => Location::Sqlite(super::default_path(data_dir)),
    }
}

/// This machine's id in a shared archive: `$TRAJHOST_MACHINE`, else the
/// config file's `machine`, else the host name.
pub fn machine(config: &Config) -> String {
    std::env::var("TRAJHOST_MACHINE")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| config.machine.clone().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(hostname)
}

/// The host name (`gethostname`), or `localhost` if it has none.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..len]).trim().to_string();
    if rc != 0 || name.is_empty() { "localhost".to_string() } else { name }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_databases_and_the_rest_files() {
        assert_eq!(Location::parse("postgres://u@h/db"), Location::Postgres("postgres://u@h/db".into()));
        assert_eq!(Location::parse("postgresql://h/db"), Location::Postgres("postgresql://h/db".into()));
        assert_eq!(Location::parse("/tmp/a.db"), Location::Sqlite("/tmp/a.db".into()));
        assert_eq!(Location::parse("postgres://u:secret@h/db").display(), "postgres://u:***@h/db");
    }

    #[test]
    fn the_config_file_names_the_archive_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Config::load(dir.path()).unwrap().archive.is_none());
        std::fs::write(config_path(dir.path()), "archive = \"postgres://h/db\"\nmachine = \"m1\"\n").unwrap();
        let config = Config::load(dir.path()).unwrap();
        assert_eq!(config.archive.as_deref(), Some("postgres://h/db"));
        assert_eq!(config.machine.as_deref(), Some("m1"));
        std::fs::write(config_path(dir.path()), "archiv = \"x\"\n").unwrap();
        assert!(matches!(Config::load(dir.path()), Err(ArchiveError::Config { .. })));
    }
}
