//! Incremental sync of homes into an archive.
//!
//! One pass over a home:
//! 1. **Stat** every file the codecs' `session-globs` match (one stat each,
//!    and one for a database's `-wal`) and every file a kept session was
//!    read from. A harness none of whose files changed is done: no codec
//!    runs, no byte is parsed.
//! 2. **Discover** the harnesses with a changed file, and read, newest
//!    first, each session that is new or whose files changed, recording what
//!    the codec opened. A session that failed is retried only once its main
//!    file changes, so that a bad file never starves the good ones.
//! 3. **Keep** each session: records (an unchanged record is not written
//!    again), and the evidence: a file's new byte range only, when the bytes
//!    at the kept cursor are unchanged (an append), else the whole file as a
//!    new generation (a rewrite or a truncation); a database's recorded rows.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::CURSOR_BYTES;
use super::search::record_text;
use super::store::*;
use crate::{ArchiveError, Result};
use trajhost_capabilities::wit::latest::codec::ResumePoint;
use trajhost_inventory::digest::SessionDigest;
use trajhost_inventory::{self as inventory, FoundSession, SessionQuery};
use trajhost_registry::catalog::Catalog;
use trajhost_runtime::SessionStream;
use trajhost_runtime::error::HostError;

/// What to sync.
#[derive(Debug, Clone, Default)]
pub struct SyncOptions {
    pub homes: Vec<PathBuf>,
    /// The name the archive knows a home by, where that is not its path:
    /// an archive opened into a private dir, whose name changes on every
    /// open, is known by the archive's own path (`x.tgz#inner`).
    pub keys: HashMap<PathBuf, PathBuf>,
    /// Only this harness.
    pub harness: Option<String>,
    /// Masks secrets in the records and full-text index kept (`None`: kept
    /// as read).
    pub redaction: Option<trajhost_inventory::redaction::Redactor>,
    /// With `redaction`, also mask the raw evidence (same-length masks, so
    /// offsets stay true): always for a shared archive, by config for the
    /// embedded one.
    pub redact_evidence: bool,
}

/// The work one sync did (`sync --json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    pub homes: usize,
    /// Files stat'ed to find what changed.
    pub files_stated: u64,
    /// Files the codecs opened.
    pub files_read: u64,
    /// Bytes the codecs read (file bytes and database rows).
    pub bytes_parsed: u64,
    /// New evidence bytes kept (appended ranges, rewritten files, tapes).
    pub evidence_bytes: u64,
    pub harnesses_changed: Vec<String>,
    pub sessions_added: u64,
    pub sessions_updated: u64,
    pub sessions_unchanged: u64,
    pub sessions_failed: u64,
    /// Secrets masked, by rule.
    pub redactions: trajhost_inventory::redaction::Counts,
    /// Store files discovery could not place as a session (newly, or changed since).
    pub files_failed: u64,
    /// Sessions and files that failed before and did not change since: not retried.
    pub failures_skipped: u64,
    pub records_added: u64,
    pub records_changed: u64,
    pub records_removed: u64,
    pub failures: Vec<SyncFailure>,
    pub seconds: f64,
}

/// A session or file that could not be archived in this pass.
#[derive(Debug, Clone, Serialize)]
pub struct SyncFailure {
    pub home: PathBuf,
    pub harness: String,
    /// The native id, or the file discovery could not place.
    pub session: String,
    pub error: String,
}

/// Progress, for a progress bar.
#[derive(Debug)]
pub enum SyncEvent<'a> {
    /// A home's changed sessions are known: `sessions` will be read.
    Planned { home: &'a Path, sessions: usize },
    /// One session was read (or failed).
    Read { harness: &'a str, native_id: &'a str, ok: bool },
}

/// Syncs every home into `store`.
pub fn sync(
    catalog: &Catalog<'_>,
    store: &mut dyn ArchiveStore,
    options: &SyncOptions,
    on_event: &mut dyn FnMut(SyncEvent<'_>),
) -> Result<SyncReport> {
    let started = Instant::now();
    let mut report = SyncReport::default();
    for given in &options.homes {
        let home = std::fs::canonicalize(given).map_err(|e| HostError::io(given, e))?;
        let key = options.keys.get(given).or_else(|| options.keys.get(&home)).unwrap_or(&home);
        let known = store.known_home(key)?;
        let home_id = known.id;
        let synced = sync_home(catalog, store, known, &home, key, options, &mut report, on_event);
        // Released also when the sync of this home failed.
        let done = store.home_done(home_id);
        synced?;
        done?;
        report.homes += 1;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Files whose change (size, mtime or inode) a harness's sessions depend on.
fn is_database(path: &str) -> bool {
    [".db", ".sqlite", ".sqlite3", ".vscdb"].iter().any(|ext| path.ends_with(ext))
}

fn stat(home: &Path, rel: &str, report: &mut SyncReport) -> Option<FileState> {
    report.files_stated += 1;
    std::fs::metadata(home.join(rel)).ok().filter(|m| m.is_file()).map(|m| FileState::of(&m))
}

#[allow(clippy::too_many_arguments)]
fn sync_home(
    catalog: &Catalog<'_>,
    store: &mut dyn ArchiveStore,
    known: KnownHome,
    home: &Path,
    home_key: &Path,
    options: &SyncOptions,
    report: &mut SyncReport,
    on_event: &mut dyn FnMut(SyncEvent<'_>),
) -> Result<()> {
    let only = options.harness.as_deref();
    let harnesses: Vec<String> = catalog.harnesses().into_iter().filter(|h| only.is_none_or(|o| o == h)).collect();
    // 1. One stat per file.
    let mut current: HashMap<String, Option<FileState>> = HashMap::new();
    let mut changed: HashMap<String, Vec<(String, FileState)>> = HashMap::new();
    for harness in &harnesses {
        let mut files: BTreeSet<String> = BTreeSet::new();
        for codec in catalog.for_harness(harness) {
            for glob in &codec.session_globs {
                for rel in expand_glob(home, glob) {
                    if is_database(&rel) {
                        files.insert(format!("{rel}-wal"));
                    }
                    files.insert(rel);
                }
            }
        }
        for ((h, _), session) in &known.sessions {
            if h == harness {
                files.extend(session.files.iter().cloned());
            }
        }
        for rel in files {
            let state = match current.get(&rel) {
                Some(state) => *state,
                None => {
                    let state = stat(home, &rel, report);
                    current.insert(rel.clone(), state);
                    state
                }
            };
            let seen = known.files.get(&rel).and_then(|f| f.seen);
            if let Some(state) = state
                && seen != Some(state)
            {
                changed.entry(harness.clone()).or_default().push((rel, state));
            } else if state.is_none() && seen.is_some() && rel.ends_with("-wal") {
                // A WAL checkpointed away changes what the database holds.
                changed.entry(harness.clone()).or_default();
            }
        }
    }
    // 2. Discover the harnesses that changed; read what is new or changed, newest first.
    let mut candidates: Vec<FoundSession> = Vec::new();
    for harness in harnesses.iter().filter(|h| changed.contains_key(*h)) {
        report.harnesses_changed.push(harness.clone());
        let inventory = inventory::discover(
            catalog,
            &SessionQuery { home: home.to_path_buf(), harness: Some(harness.clone()), cwd: None },
        )?;
        for (failed, error) in &inventory.failures {
            report.failures.push(SyncFailure {
                home: home_key.to_path_buf(),
                harness: failed.clone(),
                session: String::new(),
                error: error.to_string(),
            });
        }
        // A store file discovery could not place as a session failed; it is
        // looked at again only once it changes.
        let placed: BTreeSet<&str> = inventory.sessions.iter().map(|s| main_file(&s.session.locator)).collect();
        let mut unplaced: BTreeSet<&str> = BTreeSet::new();
        for d in &inventory.diagnostics {
            let Some(file) = d.diagnostic.file.as_deref() else { continue };
            if placed.contains(file) || !unplaced.insert(file) {
                continue;
            }
            let Some(state) = current.get(file).copied().flatten() else { continue };
            let key = (d.harness.clone(), file.to_string());
            if known.failures.get(&key).is_some_and(|f| f.state == state) {
                report.failures_skipped += 1;
                continue;
            }
            let error = format!("{}: {}", d.diagnostic.code, d.diagnostic.detail);
            store.put_failure(known.id, &d.harness, file, &Failure { state, error: error.clone() })?;
            report.files_failed += 1;
            report.failures.push(SyncFailure {
                home: home_key.to_path_buf(),
                harness: d.harness.clone(),
                session: file.to_string(),
                error,
            });
        }
        candidates.extend(inventory.sessions);
    }
    candidates.sort_by(|a, b| b.session.updated_at.cmp(&a.session.updated_at));
    let mut to_read = Vec::new();
    for found in candidates {
        let key = (found.harness.clone(), found.session.native_id.clone());
        let main = main_file(&found.session.locator).to_string();
        let main_state = match current.get(&main) {
            Some(state) => *state,
            None => stat(home, &main, report),
        };
        if let Some(session) = known.sessions.get(&key)
            && !session.files.is_empty()
            && session.files.iter().all(|f| {
                let now = current.get(f).copied().flatten().or_else(|| stat(home, f, report));
                now.is_some() && now == known.files.get(f).and_then(|k| k.seen)
            })
        {
            report.sessions_unchanged += 1;
            continue;
        }
        if let (Some(failure), Some(state)) = (known.failures.get(&key), main_state)
            && failure.state == state
        {
            report.failures_skipped += 1;
            continue;
        }
        let cursor = usable_cursor(&*store, &known, home, &found, &current, report)?;
        to_read.push(ToRead { found, main_state, cursor });
    }
    on_event(SyncEvent::Planned { home, sessions: to_read.len() });
    // A session that conflicted with another machine's transaction (a
    // shared archive) is read again, a few times.
    let mut pending: Vec<usize> = (0..to_read.len()).collect();
    for attempt in 1..=PUT_ATTEMPTS {
        let kept = keep_sessions(catalog, &mut *store, &known, home, &to_read, &pending, options, report, on_event)?;
        pending.clear();
        for kept in kept {
            match kept {
                Kept::Session(outcome) => {
                    if outcome.new_session {
                        report.sessions_added += 1;
                    } else {
                        report.sessions_updated += 1;
                    }
                    report.records_added += outcome.records_added;
                    report.records_changed += outcome.records_changed;
                    report.records_removed += outcome.records_removed;
                    report.evidence_bytes += outcome.evidence_bytes;
                }
                Kept::Conflict { index, error } if attempt < PUT_ATTEMPTS => {
                    tracing::debug!(session = %to_read[index].found.session.native_id, attempt, "retrying: {error}");
                    pending.push(index);
                }
                Kept::Conflict { index, error } => {
                    let found = &to_read[index].found;
                    failed(report, home_key, found.harness.clone(), found.session.native_id.clone(), error);
                }
                Kept::Failed { harness, native_id, error } => failed(report, home_key, harness, native_id, error),
            }
        }
        if pending.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10 << attempt));
    }
    // 3. Remember what was seen, so that an unchanged file is one stat next time.
    let seen: Vec<(String, FileState)> = changed.into_values().flatten().collect();
    store.put_seen(known.id, &seen)?;
    Ok(())
}

/// A session not archived in this pass: counted, logged and reported.
fn failed(report: &mut SyncReport, home_key: &Path, harness: String, native_id: String, error: String) {
    report.sessions_failed += 1;
    tracing::warn!(harness = %harness, session = %native_id, "not archived: {error}");
    report.failures.push(SyncFailure { home: home_key.to_path_buf(), harness, session: native_id, error });
}

fn main_file(locator: &str) -> &str {
    locator.split_once('#').map_or(locator, |(file, _)| file)
}

/// Parts read and waiting for the writer: enough to keep both threads
/// busy; each part is bounded (a codec's batch of records, at most
/// [`EVIDENCE_CHUNK`] evidence bytes), so memory does not grow with a
/// session or with the home.
const PIPELINE_DEPTH: usize = 4;

/// Attempts of a session whose put conflicts with another machine's.
const PUT_ATTEMPTS: u32 = 5;

/// What the reader hands the writer.
enum Keep {
    /// A session begins; its parts follow, up to its `End` or an `Abort`.
    Begin {
        head: Box<SessionHead>,
        main_state: Option<FileState>,
        index: usize,
    },
    Part(SessionPart),
    /// Reading failed after `Begin`: the session is rolled back.
    Abort(ArchiveError),
    /// Reading failed before `Begin`.
    Failed {
        harness: String,
        native_id: String,
        main_state: Option<FileState>,
        error: String,
    },
}

/// What the writer did with one session.
enum Kept {
    Session(PutOutcome),
    Failed {
        harness: String,
        native_id: String,
        error: String,
    },
    /// Its put conflicted with another machine's: read it again.
    Conflict {
        index: usize,
        error: String,
    },
}

/// Reads the sessions `indices` of `to_read` and keeps them. Reading (the
/// codecs) and keeping (the store and its index) overlap: the reader hands
/// each session's parts to a writer thread, which puts them in one
/// transaction per session.
#[allow(clippy::too_many_arguments)]
fn keep_sessions(
    catalog: &Catalog<'_>,
    store: &mut dyn ArchiveStore,
    known: &KnownHome,
    home: &Path,
    to_read: &[ToRead],
    indices: &[usize],
    options: &SyncOptions,
    report: &mut SyncReport,
    on_event: &mut dyn FnMut(SyncEvent<'_>),
) -> Result<Vec<Kept>> {
    std::thread::scope(|scope| {
        let (hand_over, receive) = std::sync::mpsc::sync_channel::<Keep>(PIPELINE_DEPTH);
        let writer = scope.spawn(|| keep_all(&mut *store, known.id, home, receive));
        for &index in indices {
            let ToRead { found, main_state, cursor } = &to_read[index];
            let native_id = &found.session.native_id;
            let mut begun = false;
            let mut send = |keep: Keep| {
                begun |= matches!(keep, Keep::Begin { .. });
                hand_over.send(keep).map_err(|_| ReadStop::WriterGone)
            };
            let read = read_session(
                catalog,
                known,
                home,
                found,
                *main_state,
                cursor.as_ref(),
                index,
                options,
                report,
                &mut send,
            );
            let stop = match read {
                Ok(()) => None,
                Err(ReadStop::WriterGone) => break, // The writer stopped on an error, which join returns.
                Err(ReadStop::Failed(error)) => Some(error),
            };
            on_event(SyncEvent::Read { harness: &found.harness, native_id, ok: stop.is_none() });
            let handed = match stop {
                None => Ok(()),
                Some(error) if begun => hand_over.send(Keep::Abort(error)),
                Some(error) => hand_over.send(Keep::Failed {
                    harness: found.harness.clone(),
                    native_id: native_id.clone(),
                    main_state: *main_state,
                    error: error.to_string(),
                }),
            };
            if handed.is_err() {
                break;
            }
        }
        drop(hand_over);
        writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The parts of the session the writer is putting, as the reader hands
/// them over.
struct Received<'a> {
    receive: &'a std::sync::mpsc::Receiver<Keep>,
    home: &'a Path,
    /// Its `End` or `Abort` came.
    ended: bool,
}

impl SessionParts for Received<'_> {
    fn next_part(&mut self) -> Result<SessionPart, crate::ArchiveError> {
        match self.receive.recv() {
            Ok(Keep::Part(part)) => {
                self.ended = matches!(part, SessionPart::End(_));
                Ok(part)
            }
            Ok(Keep::Abort(error)) => {
                self.ended = true;
                Err(error)
            }
            Ok(Keep::Begin { .. } | Keep::Failed { .. }) | Err(_) => {
                self.ended = true;
                Err(ArchiveError::Io { path: self.home.to_path_buf(), message: "a session's parts ended early".into() })
            }
        }
    }
}

/// The writer: keeps each session it is handed, and remembers each failure
/// (a session whose put fails is a failure too), so that it is retried
/// only once its main file changes.
fn keep_all(
    store: &mut dyn ArchiveStore,
    home_id: i64,
    home: &Path,
    receive: std::sync::mpsc::Receiver<Keep>,
) -> std::result::Result<Vec<Kept>, crate::ArchiveError> {
    let mut kept = Vec::new();
    while let Ok(keep) = receive.recv() {
        let (harness, native_id, main_state, error) = match keep {
            Keep::Begin { head, main_state, index } => {
                let mut parts = Received { receive: &receive, home, ended: false };
                let put = store.put_session(&head, &mut parts);
                // A put that failed midway leaves the session's other parts queued.
                while !parts.ended && parts.next_part().is_ok() {}
                match put {
                    Ok(outcome) => {
                        kept.push(Kept::Session(outcome));
                        continue;
                    }
                    Err(ArchiveError::Conflict { message, .. }) => {
                        kept.push(Kept::Conflict { index, error: message });
                        continue;
                    }
                    Err(error) => (head.harness, head.native_id, main_state, error.to_string()),
                }
            }
            Keep::Failed { harness, native_id, main_state, error } => (harness, native_id, main_state, error),
            Keep::Part(_) | Keep::Abort(_) => continue, // Of a session whose put already ended.
        };
        if let Some(state) = main_state {
            store.put_failure(home_id, &harness, &native_id, &Failure { state, error: error.clone() })?;
        }
        kept.push(Kept::Failed { harness, native_id, error });
    }
    Ok(kept)
}

/// Why the reader stopped handing over a session.
enum ReadStop {
    /// The writer stopped (on an error its join returns).
    WriterGone,
    Failed(ArchiveError),
}

impl From<ArchiveError> for ReadStop {
    fn from(error: ArchiveError) -> ReadStop {
        ReadStop::Failed(error)
    }
}

impl From<HostError> for ReadStop {
    fn from(error: HostError) -> ReadStop {
        ReadStop::Failed(error.into())
    }
}

/// Reads one session with recording on and hands it to the writer part by
/// part: its head, its records a codec batch at a time, its evidence a
/// chunk at a time, its tail.
#[allow(clippy::too_many_arguments)]
fn read_session(
    catalog: &Catalog<'_>,
    known: &KnownHome,
    home: &Path,
    found: &FoundSession,
    main_state: Option<FileState>,
    cursor: Option<&SessionCursor>,
    index: usize,
    options: &SyncOptions,
    report: &mut SyncReport,
    send: &mut dyn FnMut(Keep) -> std::result::Result<(), ReadStop>,
) -> std::result::Result<(), ReadStop> {
    let (codec, note) = catalog.select_for_reading(
        &found.harness,
        found.session.native_version.as_deref(),
        found.codec.as_deref(),
        &[found.discovered_by.as_str()],
    )?;
    if let Some(note) = note {
        tracing::warn!("{}: {note}", found.session.path.display());
    }
    let codec = codec.clone();
    let (mut stream, mut digest, resumed_after) = match cursor.filter(|c| c.codec == codec.id()) {
        Some(cursor) => match continue_reading(catalog, &codec, home, &found.session.locator, cursor) {
            Ok((stream, digest)) => (stream, digest, Some(cursor.records)),
            Err(error) => {
                // The whole file, as if there were no cursor.
                tracing::debug!(session = %found.session.native_id, "read whole: the cursor did not serve: {error}");
                (whole_read(catalog, &codec, home, &found.session.locator)?, SessionDigest::new(), None)
            }
        },
        None => (whole_read(catalog, &codec, home, &found.session.locator)?, SessionDigest::new(), None),
    };
    let head = SessionHead {
        home: known.id,
        harness: found.harness.clone(),
        native_id: found.session.native_id.clone(),
        locator: found.session.locator.clone(),
        codec: codec.id(),
        native_version: found.session.native_version.clone(),
        started_at: found.session.started_at.clone(),
        updated_at: found.session.updated_at.clone(),
        resumed_after,
    };
    send(Keep::Begin { head: Box::new(head), main_state, index })?;
    let mut count = 0u64;
    let (mut cwd, mut title) = (None, None);
    // The digest's state where each batch began: a resume point ends a batch.
    let mut at_batch_starts: std::collections::VecDeque<(u64, Vec<u8>)> = std::collections::VecDeque::new();
    loop {
        if at_batch_starts.len() == DIGEST_STATES_KEPT {
            at_batch_starts.pop_front();
        }
        at_batch_starts.push_back((digest.records(), digest.save()));
        let Some(batch) = stream.next_batch()? else { break };
        let mut records = Vec::new();
        for line in batch.records.lines() {
            let record = digest.push_line(line).map_err(|e| HostError::Codec {
                plugin: codec.id(),
                op: trajhost_runtime::error::Operation::Read,
                message: format!("returned a record that is {e}"),
            })?;
            if count == 0
                && let trajhost_canonical::Body::Meta(meta) = &record.body
            {
                (cwd, title) = (meta.cwd.clone(), meta.title.clone());
            }
            count += 1;
            // The snapshot digest is of what the codec read; what is kept is masked.
            let masked = options.redaction.as_ref().map(|r| r.redact_line(line, &mut report.redactions));
            let (text, json) = match masked {
                Some(std::borrow::Cow::Owned(masked)) => {
                    let redacted: trajhost_canonical::Record =
                        serde_json::from_str(&masked).map_err(|e| HostError::Codec {
                            plugin: codec.id(),
                            op: trajhost_runtime::error::Operation::Read,
                            message: format!("a record is not canonical JSON once redacted: {e}"),
                        })?;
                    (record_text(&redacted), masked)
                }
                _ => (record_text(&record), line.to_string()),
            };
            records.push(PutRecord {
                record_id: record.id.clone(),
                kind: record.body.kind().to_string(),
                ts_ms: record.ts.as_deref().and_then(trajhost_canonical::time::unix_ms_from_rfc3339),
                text,
                json,
            });
        }
        if !records.is_empty() {
            send(Keep::Part(SessionPart::Records(records)))?;
        }
    }
    let usage = stream.usage();
    let recorded = stream.take_evidence().unwrap_or_default();
    report.files_read += recorded.files.len() as u64;
    report.bytes_parsed += usage.capabilities.bytes_read + recorded.row_bytes;
    let main = main_file(&found.session.locator);
    let main_size = recorded.files.iter().find(|(path, _)| relative(home, path).as_deref() == Some(main)).map(|f| f.1);
    let next_cursor = match (stream.resume_point(), main_size) {
        (Some(point), Some(size)) if point.offset <= size => {
            let state = kept_state(point.state.clone(), options.redaction.as_ref());
            at_batch_starts.iter().find(|(records, _)| *records == point.records).zip(state).map(
                |((_, digest), state)| SessionCursor {
                    codec: codec.id(),
                    file: main.to_string(),
                    file_size: size,
                    offset: point.offset,
                    records: point.records,
                    state,
                    digest: digest.clone(),
                },
            )
        }
        _ => None,
    };
    for (host_path, size) in &recorded.files {
        let Some(rel) = relative(home, host_path) else {
            tracing::warn!(file = %host_path.display(), "outside the home: not kept as evidence");
            continue;
        };
        let kept = known.files.get(&rel).and_then(|f| f.kept.as_ref());
        let evidence_redactor = options.redaction.as_ref().filter(|_| options.redact_evidence);
        let file = file_evidence(host_path, &rel, *size, kept, &mut |mut generation| {
            if let Some(redactor) = evidence_redactor {
                trajhost_inventory::redaction::redact_evidence(redactor, &mut generation.bytes, &mut report.redactions);
            }
            send(Keep::Part(SessionPart::Evidence { path: rel.clone(), generation }))
        })?;
        send(Keep::Part(SessionPart::File(file)))?;
    }
    for (host_path, queries) in &recorded.databases {
        let Some(rel) = relative(home, host_path) else { continue };
        let meta = std::fs::metadata(host_path).map_err(|e| HostError::io(host_path, e))?;
        let mut tape = serde_json::to_value(queries).map_err(|e| HostError::io(host_path, e))?;
        if let (Some(redactor), true) = (&options.redaction, options.redact_evidence) {
            redactor.redact_value(&mut tape, &mut report.redactions);
        }
        let tape = serde_json::to_vec(&tape).map_err(|e| HostError::io(host_path, e))?;
        send(Keep::Part(SessionPart::Tape(PutTape { path: rel, seen: FileState::of(&meta), tape })))?;
    }
    let tail = SessionTail {
        records: digest.records(),
        snapshot_id: digest.snapshot_id(),
        cursor: next_cursor,
        cwd: found.session.cwd.clone().or(cwd),
        title: found.session.title.clone().or(title).map(|t| match &options.redaction {
            Some(redactor) => redactor.redact_text(&t, &mut report.redactions).into_owned(),
            None => t,
        }),
    };
    send(Keep::Part(SessionPart::End(tail)))
}

/// A codec's state at its resume point as the archive keeps it. The state
/// holds what the codec held back (records not yet released, with their
/// text), so with redaction on it is masked like the records (it is JSON by
/// the SDK's convention); a state that is not UTF-8 cannot be masked and is
/// not kept (the next sync reads the file whole). The masks are not counted:
/// the records they stand for are counted when they are archived. A
/// continued read then releases masked text, which the archive masks again
/// to the same records; only the snapshot id of such a session differs
/// from a whole read's.
fn kept_state(state: Vec<u8>, redaction: Option<&trajhost_inventory::redaction::Redactor>) -> Option<Vec<u8>> {
    let Some(redactor) = redaction else { return Some(state) };
    let text = String::from_utf8(state).ok()?;
    let mut uncounted = trajhost_inventory::redaction::Counts::default();
    Some(redactor.redact_line(&text, &mut uncounted).into_owned().into_bytes())
}

/// The digest states kept while reading: a point ends one of the last batches.
const DIGEST_STATES_KEPT: usize = 3;

/// A read of the whole session, recording what the codec opens.
fn whole_read(
    catalog: &Catalog<'_>,
    codec: &trajhost_registry::CodecRecord,
    home: &Path,
    locator: &str,
) -> std::result::Result<SessionStream, ReadStop> {
    let mut instance = catalog.instantiate(codec)?;
    instance.record_evidence();
    Ok(instance.read(home, locator, inventory::default_read_options())?)
}

/// A read continued from `cursor`, and the snapshot digest there.
fn continue_reading(
    catalog: &Catalog<'_>,
    codec: &trajhost_registry::CodecRecord,
    home: &Path,
    locator: &str,
    cursor: &SessionCursor,
) -> Result<(SessionStream, SessionDigest)> {
    let digest = SessionDigest::resume(&cursor.digest)
        .map_err(|e| ArchiveError::Io { path: home.join(&cursor.file), message: e.to_string() })?;
    let mut instance = catalog.instantiate(codec)?;
    instance.record_evidence();
    let start = ResumePoint { offset: cursor.offset, records: cursor.records, state: cursor.state.clone() };
    let stream = instance.read_from(home, locator, &start, inventory::default_read_options())?;
    Ok((stream, digest))
}

/// A session to read, and the cursor it may continue from.
struct ToRead {
    found: FoundSession,
    main_state: Option<FileState>,
    cursor: Option<SessionCursor>,
}

/// The cursor kept for a session, when its main file only grew since (the
/// same inode, the kept bytes' tail unchanged) and no other file of it
/// changed.
fn usable_cursor(
    store: &dyn ArchiveStore,
    known: &KnownHome,
    home: &Path,
    found: &FoundSession,
    current: &HashMap<String, Option<FileState>>,
    report: &mut SyncReport,
) -> Result<Option<SessionCursor>> {
    let key = (found.harness.clone(), found.session.native_id.clone());
    let Some(session) = known.sessions.get(&key) else { return Ok(None) };
    let main = main_file(&found.session.locator);
    let mut now = |rel: &str| current.get(rel).copied().flatten().or_else(|| stat(home, rel, report));
    let others_unchanged = session
        .files
        .iter()
        .filter(|f| f.as_str() != main)
        .all(|f| now(f).is_some() && now(f) == known.files.get(f).and_then(|k| k.seen));
    let (Some(kept_file), Some(state)) = (known.files.get(main), now(main)) else { return Ok(None) };
    let (Some(seen), Some(kept)) = (kept_file.seen, kept_file.kept.as_ref()) else { return Ok(None) };
    if !others_unchanged || state.inode != seen.inode || state.size < kept.size {
        return Ok(None);
    }
    let Some(cursor) = store.cursor(known.id, &found.harness, &found.session.native_id)? else { return Ok(None) };
    if cursor.file != main || cursor.file_size != kept.size {
        return Ok(None);
    }
    // The bytes before the kept end are those the cursor was taken on.
    let path = home.join(main);
    let file = std::fs::File::open(&path).map_err(|e| HostError::io(&path, e))?;
    let unchanged = tail_sha256(&file, kept.size).is_ok_and(|tail| tail == kept.tail_sha256);
    Ok(unchanged.then_some(cursor))
}

fn relative(home: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(home).ok()?;
    let text = rel.to_str()?;
    (!text.is_empty()).then(|| text.to_string())
}

/// The digest of the [`CURSOR_BYTES`] before `upto`.
fn tail_sha256(file: &std::fs::File, upto: u64) -> std::io::Result<String> {
    use std::os::unix::fs::FileExt;
    let start = upto.saturating_sub(CURSOR_BYTES);
    let mut buf = vec![0u8; (upto - start) as usize];
    file.read_exact_at(&mut buf, start)?;
    Ok(hex::encode(Sha256::digest(&buf)))
}

/// Hands over the new evidence of one file the codec read `size` bytes of,
/// a chunk at a time: its bytes past the kept cursor when they only were
/// appended, else all of them. Returns what the archive then keeps of it.
fn file_evidence(
    host_path: &Path,
    rel: &str,
    size: u64,
    kept: Option<&KeptFile>,
    hand_over: &mut dyn FnMut(Generation) -> std::result::Result<(), ReadStop>,
) -> std::result::Result<PutFile, ReadStop> {
    use std::os::unix::fs::FileExt;
    let io = |e: std::io::Error| HostError::io(host_path, e);
    let file = std::fs::File::open(host_path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    // What the codec saw: a file that grew since keeps the size it had.
    let size = size.min(meta.len());
    let mut seen = FileState::of(&meta);
    seen.size = size;
    let appended_from = match kept {
        Some(k) if k.size <= size && tail_sha256(&file, k.size).map_err(io)? == k.tail_sha256 => Some(k.size),
        _ => None,
    };
    let mut at = appended_from.unwrap_or(0);
    let mut base = appended_from.is_none();
    while at < size || (base && size == 0) {
        let mut bytes = vec![0u8; (size - at).min(EVIDENCE_CHUNK as u64) as usize];
        file.read_exact_at(&mut bytes, at).map_err(io)?;
        // Chunks end at a line's end where one is in reach, so that no line
        // (nor a secret in it, for redaction) is split between two.
        if at + (bytes.len() as u64) < size
            && let Some(newline) = bytes.iter().rposition(|b| *b == b'\n')
        {
            bytes.truncate(newline + 1);
        }
        let length = bytes.len() as u64;
        hand_over(Generation { offset: at, bytes, base })?;
        at += length;
        base = false;
    }
    let kept = KeptFile { size, tail_sha256: tail_sha256(&file, size).map_err(io)? };
    Ok(PutFile { path: rel.to_string(), seen, kept })
}

/// Files under `home` that a `session-glob` matches (`*` within one path
/// segment). Lists only the directories the glob leads through.
pub fn expand_glob(home: &Path, glob: &str) -> Vec<String> {
    let segments: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let mut found = Vec::new();
    walk(home, "", &segments, &mut found);
    found.sort();
    found
}

fn walk(dir: &Path, prefix: &str, segments: &[&str], found: &mut Vec<String>) {
    let Some((first, rest)) = segments.split_first() else { return };
    let join = |name: &str| if prefix.is_empty() { name.to_string() } else { format!("{prefix}/{name}") };
    let is_last = rest.is_empty();
    if !first.contains('*') {
        let path = dir.join(first);
        if is_last {
            if path.is_file() {
                found.push(join(first));
            }
        } else if path.is_dir() {
            walk(&path, &join(first), rest, found);
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(String::from) else { continue };
        if !inventory::segment_matches(first, &name) {
            continue;
        }
        let Ok(kind) = entry.file_type() else { continue };
        if is_last {
            if kind.is_file() {
                found.push(join(&name));
            }
        } else if kind.is_dir() {
            walk(&entry.path(), &join(&name), rest, found);
        }
    }
}

/// The fixed leading directories of a glob (`.claude/projects` of
/// `.claude/projects/*/*.jsonl`): what the watcher watches.
pub fn glob_root(glob: &str) -> PathBuf {
    let segments: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let fixed = segments.iter().take_while(|s| !s.contains('*')).count().min(segments.len().saturating_sub(1));
    segments[..fixed].iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_roots_stop_at_the_first_wildcard_or_the_file() {
        assert_eq!(glob_root(".claude/projects/*/*.jsonl"), PathBuf::from(".claude/projects"));
        assert_eq!(glob_root(".hermes/state.db"), PathBuf::from(".hermes"));
        assert_eq!(glob_root(".claude-*/projects/*/*.jsonl"), PathBuf::from(""));
    }
}
