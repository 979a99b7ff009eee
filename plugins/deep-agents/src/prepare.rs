//! Installs an export into a target home as one LangGraph checkpoint of
//! dcode's `~/.deepagents/.state/sessions.db`: a root checkpoint
//! (`checkpoint_ns = ''`, no parent) whose `channel_values.messages` is the
//! whole message list as a `_DeltaSnapshot` (LangGraph's full snapshot of a
//! delta channel: its history walk stops there), msgpack-serialized with
//! LangGraph's extensions, and JSON metadata with what dcode lists and
//! filters threads by (`agent_name`, `cwd`, `updated_at`, `git_branch`).
//!
//! - No `sessions.db` yet: `create-database` with dcode's schema (the two
//!   langgraph-checkpoint-sqlite tables and dcode's thread-list index),
//!   `user_version` 0.
//! - A `sessions.db` already there: its tables, their columns and its
//!   `user_version` must be the ones this codec knows (else refused, naming
//!   what differs), and the thread id must be new; then one `insert-rows`
//!   into `checkpoints` (the other threads' rows are untouched).
//!
//! Resume is interactive only (the Textual TUI; `-n` ignores `-r`):
//! `cd <cwd> && HOME=<home> dcode [-M <model>] -r <thread_id>`.

use std::collections::BTreeSet;

use serde_json::{Value as Json, json};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{CreateDatabase, InsertRows, TableRows};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::{Database, Value};
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions, sql, target};

use crate::export::{self, Export};
use crate::layout::STATE_DB;
use crate::msgpack::{EXT_DELTA_SNAPSHOT, encode};
use crate::threads::sqlite_error;
use crate::write::python_iso;

/// dcode 0.1.57's `sessions.db` schema, as langgraph-checkpoint-sqlite and
/// dcode (`_ensure_threads_list_index`) create it.
pub const SCHEMA: [&str; 3] = [
    "CREATE TABLE checkpoints (
                    thread_id TEXT NOT NULL,
                    checkpoint_ns TEXT NOT NULL DEFAULT '',
                    checkpoint_id TEXT NOT NULL,
                    parent_checkpoint_id TEXT,
                    type TEXT,
                    checkpoint BLOB,
                    metadata BLOB,
                    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
                )",
    "CREATE TABLE writes (
                    thread_id TEXT NOT NULL,
                    checkpoint_ns TEXT NOT NULL DEFAULT '',
                    checkpoint_id TEXT NOT NULL,
                    task_id TEXT NOT NULL,
                    task_path TEXT NOT NULL DEFAULT '',
                    idx INTEGER NOT NULL,
                    channel TEXT NOT NULL,
                    type TEXT,
                    value BLOB,
                    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
                )",
    "CREATE INDEX idx_dcode_threads_list ON checkpoints(thread_id, json_extract(metadata, '$.updated_at'), \
     checkpoint_id, json_extract(metadata, '$.agent_name'), json_extract(metadata, '$.git_branch'), \
     json_extract(metadata, '$.cwd'))",
];

pub const USER_VERSION: i64 = 0;

/// The stores this codec adds a thread to: dcode 0.1.57's (the checkpointer's
/// two tables), and 0.1.88's, which adds the workspace binding of each thread
/// (`dcode_thread_workspaces`, `dcode_workspace_snapshots`). A prepared thread
/// has no binding there: dcode binds it when it resumes it, as it does for a
/// thread of a 0.1.57 store it migrated. Those tables are never written.
pub const KNOWN_STORES: [(&str, &[&str]); 2] = [
    ("0.1.57", &["checkpoints", "writes"]),
    ("0.1.88", &["checkpoints", "dcode_thread_workspaces", "dcode_workspace_snapshots", "writes"]),
];

pub const CHECKPOINT_COLUMNS: [&str; 7] =
    ["thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type", "checkpoint", "metadata"];
pub const WRITES_COLUMNS: [&str; 9] =
    ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "task_path", "idx", "channel", "type", "value"];

/// The channel version of the one write to `messages` (LangGraph's
/// `<counter:032>.<hash>` form; only the counter is read back).
const FIRST_VERSION: &str = "00000000000000000000000000000001.0000000000000000";

/// The checkpoint blob (`type = 'msgpack'`): LangGraph's checkpoint v4
/// with the messages as a delta snapshot.
pub fn checkpoint_blob(export: &Export, ts: &str) -> Vec<u8> {
    let mut messages = Vec::new();
    encode::array_header(&mut messages, export.messages.len());
    for m in &export.messages {
        encode::pydantic(&mut messages, &m.module, &m.class, &m.fields);
    }
    let mut out = Vec::new();
    encode::map_header(&mut out, 7);
    encode::str(&mut out, "v");
    encode::uint(&mut out, 4);
    encode::str(&mut out, "ts");
    encode::str(&mut out, ts);
    encode::str(&mut out, "id");
    encode::str(&mut out, &export.checkpoint_id);
    encode::str(&mut out, "channel_values");
    encode::map_header(&mut out, 1);
    encode::str(&mut out, "messages");
    encode::ext(&mut out, EXT_DELTA_SNAPSHOT, &messages);
    encode::str(&mut out, "channel_versions");
    encode::value(&mut out, &json!({"messages": FIRST_VERSION}));
    encode::str(&mut out, "versions_seen");
    encode::value(&mut out, &json!({}));
    encode::str(&mut out, "updated_channels");
    encode::value(&mut out, &json!(["messages"]));
    out
}

/// Refuses a `sessions.db` whose layout is not the one this codec writes.
pub fn check_store(db: &Database, file: &str) -> Result<(), CodecError> {
    let err = |e| sqlite_error(file, e);
    let rows = db
        .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", &[])
        .map_err(err)?;
    let tables: BTreeSet<String> = rows
        .collect_all()
        .map_err(err)?
        .into_iter()
        .filter_map(|r| match r.into_iter().next() {
            Some(Value::Text(t)) => Some(t),
            _ => None,
        })
        .collect();
    if !KNOWN_STORES.iter().any(|(_, known)| known.iter().copied().eq(tables.iter().map(String::as_str))) {
        let known: Vec<String> =
            KNOWN_STORES.iter().map(|(version, tables)| format!("{tables:?} (dcode {version})")).collect();
        return Err(CodecError::Unsupported(format!(
            "{file}: tables {tables:?}, expected one of {}; not adding to it",
            known.join(", ")
        )));
    }
    for (table, columns) in [("checkpoints", &CHECKPOINT_COLUMNS[..]), ("writes", &WRITES_COLUMNS[..])] {
        let found = sql::table_columns(db, table).map_err(err)?;
        let want: BTreeSet<String> = columns.iter().map(|s| s.to_string()).collect();
        if found != want {
            return Err(CodecError::Unsupported(format!(
                "{file}: table {table} has columns {found:?}, expected {want:?}; not adding to it"
            )));
        }
    }
    let rows = db.query("PRAGMA user_version", &[]).map_err(err)?;
    let version = rows.collect_all().map_err(err)?.into_iter().next().and_then(|r| r.into_iter().next());
    if !matches!(version, Some(Value::Integer(USER_VERSION))) {
        return Err(CodecError::Unsupported(format!(
            "{file}: user_version is {version:?}, expected {USER_VERSION}; not adding to it"
        )));
    }
    Ok(())
}

/// The deepagents-code version that wrote the newest checkpoint of an
/// existing store (its metadata's `lc_versions`): a store last used by
/// a version whose store this codec does not know is refused unless
/// `--allow-untested`.
pub fn check_version(db: &Database, file: &str) -> Result<(), CodecError> {
    let err = |e| sqlite_error(file, e);
    let rows = db
        .query(
            "SELECT CASE WHEN json_valid(CAST(metadata AS TEXT)) \
               THEN json_extract(CAST(metadata AS TEXT), '$.lc_versions.\"deepagents-code\"') END \
             FROM checkpoints ORDER BY rowid DESC LIMIT 1",
            &[],
        )
        .map_err(err)?;
    let found = match rows.collect_all().map_err(err)?.into_iter().next().and_then(|r| r.into_iter().next()) {
        Some(Value::Text(v)) => v,
        _ => return Ok(()), // an empty store, or no version recorded
    };
    if KNOWN_STORES.iter().any(|(version, _)| *version == found) {
        return Ok(());
    }
    let known: Vec<&str> = KNOWN_STORES.iter().map(|(version, _)| *version).collect();
    if target::choice().allow_untested {
        target::untested(Some(&found), &known.join(", "));
        return Ok(());
    }
    Err(CodecError::Unsupported(format!(
        "{file}: its newest thread was written by deepagents-code {found}; this codec knows the stores of \
         {} only: pass --allow-untested to install anyway",
        known.join(" and ")
    )))
}

/// `cd <cwd> && HOME=<home> dcode [-M <model>] -r <thread_id>`.
pub fn resume_command(cwd: Option<&str>, home: Option<&str>, model: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(cwd).env("HOME", home).program("dcode").option("-M", model).option("-r", Some(id)).finish()
}

/// dcode's `-M` value: `provider:model` when both were chosen.
fn model_spec() -> Option<String> {
    let choice = target::choice();
    match (choice.provider, choice.model) {
        (Some(p), Some(m)) if !m.contains(':') => Some(format!("{p}:{m}")),
        (_, Some(m)) => Some(m),
        (_, None) => None,
    }
}

pub fn prepare(artifacts: Vec<Artifact>, target: &Dir, options: &WriteOptions) -> Result<Plan, CodecError> {
    let choice = target::choice();
    if choice.provider.is_some() && choice.model.is_none() {
        return Err(CodecError::Unsupported(
            "dcode selects a model as provider:model (-M); pass --model with --provider".into(),
        ));
    }
    let artifact = artifacts
        .iter()
        .find(|a| a.path == export::FILE)
        .ok_or_else(|| CodecError::Malformed(format!("no {} among the artifacts", export::FILE)))?;
    let mut export = export::parse(&artifact.bytes, &artifact.path)?;
    if let Some(id) = options.native_id.as_deref()
        && id != export.thread_id
    {
        return Err(CodecError::Malformed(format!(
            "the export holds thread {}, not the requested {id}",
            export.thread_id
        )));
    }
    if let Some(cwd) = options.cwd.as_deref().filter(|c| !c.is_empty()) {
        export.metadata["cwd"] = Json::String(cwd.to_string());
    }
    let ts = export.meta_str("updated_at").map(str::to_string).unwrap_or_else(|| python_iso(0));
    let row = vec![
        Value::Text(export.thread_id.clone()),
        Value::Text(String::new()),
        Value::Text(export.checkpoint_id.clone()),
        Value::Null,
        Value::Text("msgpack".into()),
        Value::Blob(checkpoint_blob(&export, &ts)),
        Value::Blob(serde_json::to_vec(&export.metadata).expect("JSON serializes")),
    ];
    let columns: Vec<String> = CHECKPOINT_COLUMNS.iter().map(|s| s.to_string()).collect();
    let operation = match target.stat(STATE_DB) {
        Err(FsError::NotFound(_)) => Operation::CreateDatabase(CreateDatabase {
            path: STATE_DB.into(),
            schema: SCHEMA.iter().map(|s| s.to_string()).collect(),
            user_version: Some(USER_VERSION),
            tables: vec![TableRows { table: "checkpoints".into(), columns, rows: vec![row] }],
        }),
        Err(e) => return Err(CodecError::Io(format!("checking {STATE_DB} in the target home: {e:?}"))),
        Ok(_) => {
            let db = Database::open(target, STATE_DB).map_err(|e| sqlite_error(STATE_DB, e))?;
            check_store(&db, STATE_DB)?;
            check_version(&db, STATE_DB)?;
            let rows = db
                .query(
                    "SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1",
                    &[Value::Text(export.thread_id.clone())],
                )
                .map_err(|e| sqlite_error(STATE_DB, e))?;
            if !rows.collect_all().map_err(|e| sqlite_error(STATE_DB, e))?.is_empty() {
                return Err(CodecError::Other(format!(
                    "{STATE_DB} already holds thread {}; a session is never overwritten",
                    export.thread_id
                )));
            }
            Operation::InsertRows(InsertRows {
                database: STATE_DB.into(),
                table: "checkpoints".into(),
                columns,
                rows: vec![row],
            })
        }
    };
    let cwd = export.meta_str("cwd").map(str::to_string);
    let model = model_spec();
    Ok(Plan {
        native_id: export.thread_id.clone(),
        operations: vec![operation],
        resume_command: Some(resume_command(
            cwd.as_deref(),
            options.home_path.as_deref(),
            model.as_deref(),
            &export.thread_id,
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_the_shell() {
        assert_eq!(resume_command(Some("/w"), Some("/h"), None, "01a2"), "cd /w && HOME=/h dcode -r 01a2");
        assert_eq!(
            resume_command(Some("/a b"), None, Some("openai:gpt-5"), "x"),
            "cd '/a b' && dcode -M openai:gpt-5 -r x"
        );
    }
}
