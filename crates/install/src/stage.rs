//! Executing a validated plan: journal, staging, the committing marker,
//! then the commit steps (shared with recovery's roll-forward).

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::error::{InstallError, Result};
use super::journal::{
    self, AppendStep, DatabaseStep, FileStep, InsertStep, Journal, JournalFile, JsonStep, State, StoredValue,
};
use super::validate::{self, Checked, Content};
use super::{Applied, InstallPlan, append, files, json, pause_point, sqlite};
use crate::sha256_hex;

/// Validates `plan`, then applies it to `home` all or nothing, journaled
/// in `journal_dir` so that a kill at any point is undone or completed by
/// [`recover`](super::recover).
pub fn execute(plan: &InstallPlan, home: &Path, journal_dir: &Path) -> Result<Applied> {
    let checked = validate::check(plan, home)?;
    if checked.files.is_empty() && checked.databases.is_empty() && checked.json.is_empty() && checked.appends.is_empty()
    {
        return Ok(checked.applied);
    }
    let journal_file = JournalFile::create(journal_dir)?;
    let id = journal_file.id().to_string();
    let mut journal = Journal {
        format: journal::FORMAT,
        id: id.clone(),
        home: checked.home.clone(),
        native_id: plan.native_id.clone(),
        state: State::Staging,
        created_dirs: checked.dirs.clone(),
        files: checked
            .files
            .iter()
            .map(|f| FileStep { temp: files::temp_path(&f.target, &id), target: f.target.clone() })
            .collect(),
        databases: checked
            .databases
            .iter()
            .map(|d| DatabaseStep { path: d.path.clone(), inserts: Vec::new(), probe: None })
            .collect(),
        json: checked
            .json
            .iter()
            .map(|j| JsonStep {
                temp: files::temp_path(&j.target, &id),
                target: j.target.clone(),
                base_sha256: j.base.as_deref().map(sha256_hex),
                initial: None,
                entries: Vec::new(),
                mode: j.mode,
            })
            .collect(),
        appends: checked
            .appends
            .iter()
            .map(|a| AppendStep {
                temp: files::temp_path(&a.target, &id),
                target: a.target.clone(),
                original_length: a.original_length,
                original_sha256: a.original_sha256.clone(),
                length: a.bytes.len() as u64,
                sha256: sha256_hex(a.bytes),
            })
            .collect(),
    };
    if let Err(error) = journal_file.write(&journal) {
        let _ = journal_file.remove();
        return Err(error);
    }
    pause_point("journal-written");

    let mut connections = Vec::new();
    let staged = match stage(&checked, &mut journal, &journal_file, &mut connections) {
        Ok(staged) => staged,
        Err(error) => {
            roll_back_open(connections);
            for problem in roll_back(&journal) {
                tracing::warn!("undoing install {id}: {problem}");
            }
            journal_file.remove()?;
            return Err(error);
        }
    };
    pause_point("committing");

    // Past the point of no return, except that new files are only ours
    // until a database commits: a target that appeared meanwhile undoes
    // the install instead.
    let mut placed: Vec<(PathBuf, std::fs::Metadata)> = Vec::new();
    for (step, meta) in journal.files.iter().zip(&staged) {
        let result = files::place_noreplace(&step.temp, &step.target);
        let error = match result {
            Ok(()) => {
                placed.push((step.target.clone(), meta.clone()));
                continue;
            }
            Err(files::PlaceError::Exists) => InstallError::Raced { path: step.target.clone() },
            Err(files::PlaceError::Io(e)) => InstallError::io(&step.target, e),
        };
        undo_placed(&placed);
        roll_back_open(connections);
        for problem in roll_back(&journal) {
            tracing::warn!("undoing install {id}: {problem}");
        }
        journal_file.remove()?;
        return Err(error);
    }
    pause_point("placed");

    // Appends, each checked once more through the descriptor it writes
    // with: a file changed since staging undoes the install (an append
    // already written is truncated back by `roll_back`).
    for (step, to) in journal.appends.iter().zip(&checked.appends) {
        if let Err(error) = append::commit(step, to.bytes) {
            undo_placed(&placed);
            roll_back_open(connections);
            for problem in roll_back(&journal) {
                tracing::warn!("undoing install {id}: {problem}");
            }
            journal_file.remove()?;
            return Err(error);
        }
    }
    pause_point("appended");

    for (index, (step, conn)) in journal.databases.iter().zip(&connections).enumerate() {
        if let Err(error) = sqlite::commit(conn, &step.path) {
            if index == 0 {
                undo_placed(&placed);
                roll_back_open(connections);
                for problem in roll_back(&journal) {
                    tracing::warn!("undoing install {id}: {problem}");
                }
                journal_file.remove()?;
                return Err(error);
            }
            // Another database committed already: the next trajhost command
            // completes the install from the journal.
            return Err(incomplete(&journal_file, error));
        }
    }
    drop(connections);
    pause_point("db-committed");

    for step in &journal.json {
        commit_json(step).map_err(|e| incomplete(&journal_file, e))?;
    }
    pause_point("json-replaced");
    for step in &journal.appends {
        files::remove_if_exists(&step.temp).map_err(|e| incomplete(&journal_file, InstallError::io(&step.temp, e)))?;
    }
    sync_parents(
        journal
            .files
            .iter()
            .map(|f| &f.target)
            .chain(journal.json.iter().map(|j| &j.target))
            .chain(journal.appends.iter().map(|a| &a.temp)),
    );
    pause_point("complete");
    journal_file.remove()?;
    Ok(checked.applied)
}

fn incomplete(journal_file: &JournalFile, error: InstallError) -> InstallError {
    InstallError::Journal {
        path: journal_file.path(),
        message: format!("the install stopped half way ({error}); the next trajhost command completes it"),
    }
}

/// Steps 1–4: transactions, directories, temporary files, the committing
/// journal. Returns the metadata of each staged new file.
fn stage(
    checked: &Checked<'_>,
    journal: &mut Journal,
    journal_file: &JournalFile,
    connections: &mut Vec<Connection>,
) -> Result<Vec<std::fs::Metadata>> {
    for (db, step) in checked.databases.iter().zip(journal.databases.iter_mut()) {
        let conn = sqlite::open(&db.path)?;
        let probe = sqlite::begin_inserts(&conn, &db.path, &db.inserts);
        connections.push(conn);
        step.probe = Some(probe?);
        step.inserts = db
            .inserts
            .iter()
            .map(|i| InsertStep {
                table: i.table.to_string(),
                columns: i.columns.to_vec(),
                rows: i.rows.iter().map(|row| row.iter().map(StoredValue::from).collect()).collect(),
            })
            .collect();
    }
    pause_point("transactions-open");

    for dir in &checked.dirs {
        match std::fs::create_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(InstallError::io(dir, e)),
        }
        if let Some(parent) = dir.parent() {
            files::sync_dir(parent).map_err(|e| InstallError::io(parent, e))?;
        }
    }

    let mut staged = Vec::new();
    for (file, step) in checked.files.iter().zip(&journal.files) {
        let meta = match &file.content {
            Content::Bytes(bytes) => {
                files::write_new(&step.temp, bytes, None).map_err(|e| InstallError::io(&step.temp, e))?
            }
            Content::Copy(source) => {
                files::copy_new(&step.temp, source).map_err(|e| InstallError::io(&step.temp, e))?
            }
            Content::Database { schema, user_version, tables } => {
                files::write_new(&step.temp, &[], None).map_err(|e| InstallError::io(&step.temp, e))?;
                sqlite::build_file(&step.temp, &step.target, schema, *user_version, tables)?;
                files::sync_file(&step.temp).map_err(|e| InstallError::io(&step.temp, e))?
            }
        };
        staged.push(meta);
    }
    for (file, step) in checked.json.iter().zip(journal.json.iter_mut()) {
        files::write_new(&step.temp, file.new_text.as_bytes(), file.mode)
            .map_err(|e| InstallError::io(&step.temp, e))?;
        step.initial = file.initial.clone();
        step.entries = file.entries.clone();
    }
    for (to, step) in checked.appends.iter().zip(&journal.appends) {
        files::write_new(&step.temp, to.bytes, Some(0o600)).map_err(|e| InstallError::io(&step.temp, e))?;
    }
    sync_parents(
        journal
            .files
            .iter()
            .map(|f| &f.temp)
            .chain(journal.json.iter().map(|j| &j.temp))
            .chain(journal.appends.iter().map(|a| &a.temp)),
    );
    pause_point("staged");

    // Last look before the point of no return.
    for step in &journal.files {
        if files::stat(&step.target).map_err(|e| InstallError::io(&step.target, e))?.is_some() {
            return Err(InstallError::Raced { path: step.target.clone() });
        }
    }
    for step in &journal.appends {
        append::check_expected(&step.target, step.original_length, &step.original_sha256)?;
    }
    journal.state = State::Committing;
    journal_file.write(journal)?;
    Ok(staged)
}

fn roll_back_open(connections: Vec<Connection>) {
    for conn in connections {
        let _ = conn.execute_batch("ROLLBACK");
    }
}

/// Removes new files this install placed (still the staged inode).
fn undo_placed(placed: &[(PathBuf, std::fs::Metadata)]) {
    for (target, staged) in placed.iter().rev() {
        match files::stat(target) {
            Ok(Some(current)) if files::same_file(&current, staged) => {
                if let Err(e) = std::fs::remove_file(target) {
                    tracing::warn!("undoing install: cannot remove {}: {e}", target.display());
                }
            }
            _ => tracing::warn!(
                "undoing install: {} is no longer the file this install placed; left alone",
                target.display()
            ),
        }
    }
}

/// Undoes a journal in `staging`: temporary files, open transactions (by
/// opening each database once), created directories that are empty.
/// Returns what could not be undone.
pub(crate) fn roll_back(journal: &Journal) -> Vec<String> {
    let mut problems = Vec::new();
    // Before the staged bytes go: they tell this install's bytes apart.
    for step in journal.appends.iter().rev() {
        if !files::is_temp_name(&step.temp.file_name().unwrap_or_default().to_string_lossy()) {
            problems.push(format!("{}: not a trajhost temporary name; left alone", step.temp.display()));
            continue;
        }
        problems.extend(append::roll_back(step));
    }
    let temps = journal.files.iter().map(|f| &f.temp).chain(journal.json.iter().map(|j| &j.temp));
    for temp in temps {
        if !files::is_temp_name(&temp.file_name().unwrap_or_default().to_string_lossy()) {
            problems.push(format!("{}: not a trajhost temporary name; left alone", temp.display()));
            continue;
        }
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let path = PathBuf::from(format!("{}{suffix}", temp.display()));
            if let Err(e) = files::remove_if_exists(&path) {
                problems.push(format!("cannot remove {}: {e}", path.display()));
            }
        }
    }
    for db in &journal.databases {
        if let Err(e) = sqlite::settle(&db.path) {
            problems.push(e.to_string());
        }
    }
    for dir in journal.created_dirs.iter().rev() {
        match std::fs::remove_dir(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                tracing::debug!("{} is not empty; kept", dir.display());
            }
            Err(e) => problems.push(format!("cannot remove {}: {e}", dir.display())),
        }
    }
    sync_parents(journal.files.iter().map(|f| &f.temp).chain(journal.created_dirs.iter()));
    problems
}

/// How a new file's roll-forward went.
pub(crate) enum Placement {
    Placed,
    /// The target exists and is not this install's file.
    Conflict(String),
}

/// Moves a staged new file into place, idempotently.
pub(crate) fn place_file(step: &FileStep) -> Result<Placement> {
    let io = |path: &Path, e: std::io::Error| InstallError::io(path, e);
    let temp = files::stat(&step.temp).map_err(|e| io(&step.temp, e))?;
    let target = files::stat(&step.target).map_err(|e| io(&step.target, e))?;
    match (temp, target) {
        (Some(_), None) => match files::place_noreplace(&step.temp, &step.target) {
            Ok(()) => Ok(Placement::Placed),
            Err(files::PlaceError::Exists) => place_file(step),
            Err(files::PlaceError::Io(e)) => Err(io(&step.target, e)),
        },
        // `link` happened, `unlink` did not.
        (Some(temp), Some(target)) if files::same_file(&temp, &target) => {
            std::fs::remove_file(&step.temp).map_err(|e| io(&step.temp, e))?;
            Ok(Placement::Placed)
        }
        (Some(_), Some(_)) => {
            files::remove_if_exists(&step.temp).map_err(|e| io(&step.temp, e))?;
            Ok(Placement::Conflict(format!(
                "{} was created by something else before the install completed; the installed copy was discarded",
                step.target.display()
            )))
        }
        (None, Some(_)) => Ok(Placement::Placed),
        (None, None) => Ok(Placement::Conflict(format!(
            "{}: its staged file {} disappeared; it was not installed",
            step.target.display(),
            step.temp.display()
        ))),
    }
}

/// Commits a database's rows unless the probe shows they are there.
pub(crate) fn finish_database(step: &DatabaseStep) -> Result<()> {
    let conn = sqlite::open(&step.path)?;
    let probe = step.probe.as_ref().ok_or_else(|| InstallError::Journal {
        path: step.path.clone(),
        message: "a committing journal without a probe".into(),
    })?;
    if sqlite::committed(&conn, &step.path, probe)? {
        return Ok(());
    }
    let rows: Vec<Vec<Vec<super::SqlValue>>> = step
        .inserts
        .iter()
        .map(|i| {
            i.rows.iter().map(|r| r.iter().map(StoredValue::to_value).collect::<Result<Vec<_>, String>>()).collect()
        })
        .collect::<Result<_, String>>()
        .map_err(|e| InstallError::Journal { path: step.path.clone(), message: format!("a stored value: {e}") })?;
    let inserts: Vec<sqlite::Insert<'_>> = step
        .inserts
        .iter()
        .zip(&rows)
        .map(|(i, rows)| sqlite::Insert { table: &i.table, columns: &i.columns, rows })
        .collect();
    if inserts.is_empty() {
        return Ok(());
    }
    if let Err(error) = sqlite::begin_inserts(&conn, &step.path, &inserts) {
        let _ = conn.execute_batch("ROLLBACK");
        return Err(error);
    }
    sqlite::commit(&conn, &step.path)
}

/// Puts a JSON file's staged content in place, idempotently: when the file
/// changed since staging, the entries are added again to what it holds now.
pub(crate) fn commit_json(step: &JsonStep) -> Result<()> {
    let io = |path: &Path, e: std::io::Error| InstallError::io(path, e);
    if files::stat(&step.temp).map_err(|e| io(&step.temp, e))?.is_none() {
        // The rename consumed it: done.
        return Ok(());
    }
    let current = match std::fs::read(&step.target) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(&step.target, e)),
    };
    let unchanged = current.as_deref().map(sha256_hex) == step.base_sha256;
    if unchanged {
        if current.is_some() {
            return std::fs::rename(&step.temp, &step.target).map_err(|e| io(&step.target, e));
        }
        return match files::place_noreplace(&step.temp, &step.target) {
            Ok(()) => Ok(()),
            // Created by someone else meanwhile: add to what they wrote.
            Err(files::PlaceError::Exists) => commit_json(step),
            Err(files::PlaceError::Io(e)) => Err(io(&step.target, e)),
        };
    }
    let text = match &current {
        Some(bytes) => String::from_utf8(bytes.clone()).map_err(|_| InstallError::JsonInvalid {
            path: step.target.clone(),
            what: "the file",
            message: "not UTF-8".into(),
        })?,
        None => step.initial.clone().ok_or_else(|| InstallError::JsonMissing(step.target.clone()))?,
    };
    let mut new_text = text;
    let mut changed = current.is_none();
    for entry in &step.entries {
        if let Some(text) = json::add_entry(&step.target, &new_text, entry)? {
            new_text = text;
            changed = true;
        }
    }
    std::fs::remove_file(&step.temp).map_err(|e| io(&step.temp, e))?;
    if !changed {
        return Ok(());
    }
    tracing::info!(
        "{} changed since it was staged; the entries were added to its current content",
        step.target.display()
    );
    files::write_new(&step.temp, new_text.as_bytes(), step.mode).map_err(|e| io(&step.temp, e))?;
    match current {
        Some(_) => std::fs::rename(&step.temp, &step.target).map_err(|e| io(&step.target, e)),
        None => match files::place_noreplace(&step.temp, &step.target) {
            Ok(()) => Ok(()),
            Err(files::PlaceError::Exists) => commit_json(step),
            Err(files::PlaceError::Io(e)) => Err(io(&step.target, e)),
        },
    }
}

/// fsyncs the directories holding `paths` (each once).
pub(crate) fn sync_parents<'a>(paths: impl Iterator<Item = &'a PathBuf>) {
    let mut done = std::collections::BTreeSet::new();
    for path in paths {
        if let Some(parent) = path.parent()
            && done.insert(parent.to_path_buf())
            && parent.exists()
            && let Err(e) = files::sync_dir(parent)
        {
            tracing::warn!("cannot fsync {}: {e}", parent.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, value: &str) -> json::Entry {
        json::Entry { pointer: String::new(), key: Some(key.into()), match_member: None, value: value.into() }
    }

    fn step(dir: &Path, base: &[u8], staged: &str) -> JsonStep {
        let target = dir.join("index.json");
        std::fs::write(&target, base).unwrap();
        let temp = files::temp_path(&target, "t");
        std::fs::write(&temp, staged).unwrap();
        JsonStep {
            temp,
            target,
            base_sha256: Some(sha256_hex(base)),
            initial: None,
            entries: vec![entry("new", "1")],
            mode: None,
        }
    }

    #[test]
    fn a_json_roll_forward_replaces_an_unchanged_file_and_readds_to_a_changed_one() {
        let dir = tempfile::tempdir().unwrap();
        // Unchanged since staging: the staged content goes in.
        let unchanged = step(dir.path(), b"{\"a\":1}", "{\"a\":1,\"new\":1}");
        commit_json(&unchanged).unwrap();
        assert_eq!(std::fs::read_to_string(&unchanged.target).unwrap(), "{\"a\":1,\"new\":1}");
        assert!(!unchanged.temp.exists());
        // Done already (the rename consumed the temporary file): a no-op.
        commit_json(&unchanged).unwrap();
        assert_eq!(std::fs::read_to_string(&unchanged.target).unwrap(), "{\"a\":1,\"new\":1}");

        // Changed by someone else after staging: their change is kept and
        // the entry added to it.
        let changed = step(dir.path(), b"{\"a\":1}", "{\"a\":1,\"new\":1}");
        std::fs::write(&changed.target, "{\"a\":1,\"theirs\":2}").unwrap();
        commit_json(&changed).unwrap();
        assert_eq!(std::fs::read_to_string(&changed.target).unwrap(), "{\"a\":1,\"theirs\":2,\"new\":1}");
        assert!(!changed.temp.exists());
    }

    #[test]
    fn a_file_roll_forward_recognizes_a_link_made_before_the_unlink() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("session.jsonl");
        let temp = files::temp_path(&target, "t");
        std::fs::write(&temp, "x").unwrap();
        std::fs::hard_link(&temp, &target).unwrap();
        let file = FileStep { temp: temp.clone(), target: target.clone() };
        assert!(matches!(place_file(&file).unwrap(), Placement::Placed));
        assert!(!temp.exists() && std::fs::read_to_string(&target).unwrap() == "x");
        // A target that is someone else's file is not replaced.
        std::fs::write(&temp, "mine").unwrap();
        std::fs::write(&target, "theirs").unwrap();
        assert!(matches!(place_file(&file).unwrap(), Placement::Conflict(_)));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
    }
}
