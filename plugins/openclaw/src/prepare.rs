//! `prepare`: the plan that installs an export file ([`crate::export`]) into
//! the `main` agent's database, `.openclaw/agents/main/agent/openclaw-agent.sqlite`.
//!
//! Rows per session, as OpenClaw 2026.9.6 writes them for a session of its
//! own (the lab fixtures):
//!
//! | table | rows |
//! |---|---|
//! | `session_windows` | the session: key, times, `session_entry_provenance = 1`, `agent_harness_id = 'openclaw'`, model if chosen |
//! | `transcript_events` | one per entry, `seq` from 0 (the header), `event_json` |
//! | `transcript_event_identities` | one per entry: id, seq, type, `parentId` |
//! | `session_transcript_active_events` | the active branch (every entry but the header), `message_position` for messages |
//! | `session_transcript_index_state` | the projection is current: `indexed_seq` = the last seq, the leaf |
//!
//! Without the active projection and its index state OpenClaw refuses the
//! session ("Session transcript projection is rebuilding"). The search index
//! (`session_transcript_fts*`) and the runtime tables are left to OpenClaw.
//!
//! **A database with other sessions** (`insert-rows`, one transaction): the
//! session gets its own node, `agent:main:explicit:<id>` (the key OpenClaw
//! gives a session started with `--session-id`), with its entry, and the
//! window under it; every other row is untouched. OpenClaw validates every
//! `session_nodes` row and reads only those marked valid (`entry_valid = 1`);
//! the table's insert trigger resets that mark, and the host stores the row
//! as given (it sets a column a trigger changed back), as OpenClaw's own
//! writer does after checking its row. The node stays in
//! `session_canonical_validation_pending`, which OpenClaw checks and clears
//! when it next opens the database. Before planning, the schema is
//! checked (fail closed): `PRAGMA user_version` and `schema_meta.schema_version`
//! must be 23, `schema_meta.role` `agent`, and every table written must have
//! exactly the columns 2026.9.6 declares; `schema_meta.app_version` other
//! than 2026.9.6 is refused unless `--allow-untested`. An id or node already
//! in the database is refused.
//!
//! **A fresh home** (`create-database`): the exact schema the CLI creates
//! (`schema-2026.9.6.sql`, 127 statements), `user_version` 23, `schema_meta`,
//! `session_key_contract`, the main node `agent:main:main` naming the session,
//! and the rows above. The host creates the triggers after the rows, as a
//! database dump is restored, so the node keeps `entry_valid = 1`.

use serde_json::Value as Json;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{CreateDatabase, InsertRows, TableRows};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions, target};

use crate::export::{self, Line};
use crate::layout;

/// The OpenClaw version this plan was tested with (the lab pin).
pub const TESTED_APP_VERSION: &str = "2026.9.6";
/// The agent database schema version of that release.
pub const SCHEMA_VERSION: i64 = 23;
/// The agent whose database sessions are installed into.
pub const AGENT: &str = "main";
/// Largest artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The CLI's schema, one statement per `-- statement` block.
const SCHEMA_SQL: &str = include_str!("schema-2026.9.6.sql");

/// The schema statements of a fresh agent database, in the CLI's order.
pub fn schema_statements() -> Vec<String> {
    SCHEMA_SQL.split("-- statement\n").skip(1).map(|s| s.trim_end().to_string()).collect()
}

/// Tables written and read, with every column 2026.9.6 declares.
pub const KNOWN_COLUMNS: &[(&str, &[&str])] = &[
    ("schema_meta", &["meta_key", "role", "schema_version", "agent_id", "app_version", "created_at", "updated_at"]),
    ("session_key_contract", &["id", "main_key", "canonical_ready", "updated_at"]),
    (
        "session_nodes",
        &[
            "session_key",
            "current_session_id",
            "entry_json",
            "legacy_acp_migration_json",
            "entry_valid",
            "updated_at",
            "status",
            "created_at",
            "created_via",
            "created_actor_type",
            "created_actor_id",
            "owner_actor_type",
            "owner_actor_id",
            "owner_assigned_by_type",
            "owner_assigned_by_id",
            "owner_assigned_at",
            "project_id",
            "parent_session_key",
            "spawned_by",
            "fork_source_session_key",
            "fork_source_session_id",
            "fork_source_entry_id",
            "label",
            "display_name",
            "category",
            "icon",
            "pinned_at",
            "archived_at",
            "last_read_at",
            "last_interaction_at",
            "last_activity_at",
        ],
    ),
    (
        "session_windows",
        &[
            "session_id",
            "session_key",
            "previous_session_id",
            "reason",
            "session_scope",
            "created_at",
            "updated_at",
            "transcript_updated_at",
            "transcript_observed_at",
            "session_entry_provenance",
            "acp_owned",
            "plugin_owner_id",
            "hook_external_content_source",
            "started_at",
            "ended_at",
            "status",
            "chat_type",
            "channel",
            "account_id",
            "primary_conversation_id",
            "model_provider",
            "model",
            "agent_harness_id",
            "parent_session_key",
            "spawned_by",
            "display_name",
        ],
    ),
    (
        "transcript_events",
        &["session_id", "seq", "event_json", "created_at", "event_zstd", "event_utf8_bytes", "navigation_json"],
    ),
    (
        "transcript_event_identities",
        &["session_id", "event_id", "seq", "event_type", "parent_id", "message_idempotency_key", "created_at"],
    ),
    (
        "session_transcript_active_events",
        &["session_id", "active_position", "event_seq", "message_position", "context_eligible"],
    ),
    (
        "session_transcript_index_state",
        &[
            "session_id",
            "indexed_seq",
            "leaf_event_id",
            "needs_rebuild",
            "active_event_count",
            "active_message_count",
            "updated_at",
        ],
    ),
];

/// The session facts the rows need.
struct Session {
    id: String,
    start_ms: i64,
    end_ms: i64,
    /// `(seq, created_at, entry)`, the header first.
    events: Vec<(i64, i64, Json)>,
}

impl Session {
    fn of(artifact: &Artifact, cwd: Option<&str>) -> Result<Session, CodecError> {
        let lines = export::parse(&artifact.bytes, &artifact.path)?;
        let header = &lines[0].entry;
        let id = header
            .get("id")
            .and_then(Json::as_str)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| CodecError::Malformed(format!("{}: the session header has no id", artifact.path)))?
            .to_string();
        let ms = |l: &Line| l.entry.get("timestamp").and_then(Json::as_str).and_then(parse_rfc3339);
        let start_ms = ms(&lines[0]).unwrap_or(0);
        let mut last = start_ms;
        let mut events = Vec::with_capacity(lines.len());
        for (seq, line) in lines.into_iter().enumerate() {
            let at = ms(&line).unwrap_or(last).max(last);
            last = at;
            let mut entry = line.entry;
            if seq == 0
                && let (Some(cwd), Some(map)) = (cwd, entry.as_object_mut())
            {
                map.insert("cwd".into(), Json::from(cwd));
            }
            events.push((seq as i64, at, entry));
        }
        Ok(Session { id, start_ms, end_ms: last, events })
    }
}

/// The plan for `artifacts` (one export file, as `write` made it).
pub fn prepare(artifacts: Vec<Artifact>, target_dir: &Dir, options: &WriteOptions) -> Result<Plan, CodecError> {
    let mut files = artifacts.into_iter().filter(|a| export::is_export(&a.path));
    let (Some(artifact), None) = (files.next(), files.next()) else {
        return Err(CodecError::Malformed(format!("expected exactly one export file under {}/", export::EXPORT_DIR)));
    };
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    let session = Session::of(&artifact, options.cwd.as_deref())?;
    if let Some(want) = options.native_id.as_deref()
        && want != session.id
    {
        return Err(CodecError::Malformed(format!(
            "{}: the session header id {} is not the requested native id {want}",
            artifact.path, session.id
        )));
    }
    let choice = target::choice();
    let model = match (choice.provider, choice.model) {
        (None, None) => None,
        (provider, Some(model)) => Some((provider, model)),
        (Some(_), None) => {
            return Err(CodecError::Unsupported(
                "OpenClaw records a session's provider with its model: give --model with --provider".into(),
            ));
        }
    };
    let db = layout::db_path(AGENT);
    let cwd = options.cwd.clone().or_else(|| {
        session.events.first().and_then(|(_, _, h)| h.get("cwd").and_then(Json::as_str)).map(str::to_string)
    });
    let exists = match target_dir.stat(&db) {
        Ok(_) => true,
        Err(FsError::NotFound(_)) => false,
        Err(e) => return Err(CodecError::Io(format!("{db}: {e}"))),
    };
    let operations = if exists {
        let database = Database::open(target_dir, &db).map_err(|e| sqlite_error(&db, e))?;
        check_schema(&database, &db, choice.allow_untested)?;
        let key = explicit_key(&session.id);
        check_not_present(&database, &db, &session.id, &key)?;
        std::iter::once(node_table(&session, &key))
            .chain(session_tables(&session, &key, model.as_ref()))
            .map(|t| {
                Operation::InsertRows(InsertRows {
                    database: db.clone(),
                    table: t.table,
                    columns: t.columns,
                    rows: t.rows,
                })
            })
            .collect()
    } else {
        let key = format!("agent:{AGENT}:main");
        let mut tables = fresh_tables(&session, &key);
        tables.extend(session_tables(&session, &key, model.as_ref()));
        vec![Operation::CreateDatabase(CreateDatabase {
            path: db.clone(),
            schema: schema_statements(),
            user_version: Some(SCHEMA_VERSION),
            tables,
        })]
    };
    Ok(Plan {
        native_id: session.id.clone(),
        operations,
        resume_command: Some(resume_command(&session.id, cwd.as_deref(), options.home_path.as_deref())),
    })
}

/// `cd <cwd> && HOME=<home> openclaw agent --local --agent main --session-id <id> --message "<prompt>" --json`,
/// the lab's resume line for 2026.9.6.
pub fn resume_command(id: &str, cwd: Option<&str>, home: Option<&str>) -> String {
    ResumeCommand::in_dir(cwd)
        .env("HOME", home)
        .program("openclaw agent --local")
        .arg(&format!("--agent {AGENT}"))
        .option("--session-id", Some(id))
        .arg("--message \"<prompt>\" --json")
        .finish()
}

fn sqlite_error(db: &str, e: SqliteError) -> CodecError {
    crate::sessions::sqlite_error(db, e)
}

fn query_all(database: &Database, db: &str, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, CodecError> {
    database.query(sql, params).and_then(|rows| rows.collect_all()).map_err(|e| sqlite_error(db, e))
}

/// Refuses a database whose schema or version is not the one this plan
/// knows, naming the file and what differs.
pub fn check_schema(database: &Database, db: &str, allow_untested: bool) -> Result<(), CodecError> {
    let unknown = |what: String| {
        CodecError::Unsupported(format!(
            "{db}: unknown OpenClaw agent database schema ({what}); this codec writes schema version \
             {SCHEMA_VERSION} of OpenClaw {TESTED_APP_VERSION}"
        ))
    };
    let version = query_all(database, db, "PRAGMA user_version", &[])?;
    match version.first().and_then(|r| r.first()) {
        Some(Value::Integer(SCHEMA_VERSION)) => {}
        Some(Value::Integer(v)) => return Err(unknown(format!("user_version {v}, expected {SCHEMA_VERSION}"))),
        _ => return Err(unknown("no user_version".into())),
    }
    for (table, known) in KNOWN_COLUMNS {
        let present = trajhost_codec_sdk::sql::table_columns(database, table).map_err(|e| sqlite_error(db, e))?;
        if present.is_empty() {
            return Err(unknown(format!("no table {table}")));
        }
        let missing: Vec<&str> = known.iter().copied().filter(|c| !present.contains(*c)).collect();
        let extra: Vec<&str> = present.iter().map(String::as_str).filter(|c| !known.contains(c)).collect();
        if !missing.is_empty() || !extra.is_empty() {
            return Err(unknown(format!(
                "table {table}: missing columns [{}], unknown columns [{}]",
                missing.join(", "),
                extra.join(", ")
            )));
        }
    }
    let meta = query_all(
        database,
        db,
        "SELECT role, schema_version, app_version FROM schema_meta WHERE meta_key = 'primary'",
        &[],
    )?;
    let Some(row) = meta.first() else { return Err(unknown("no schema_meta 'primary' row".into())) };
    match (&row[0], &row[1]) {
        (Value::Text(role), Value::Integer(SCHEMA_VERSION)) if role == "agent" => {}
        (role, version) => {
            return Err(unknown(format!("schema_meta role {}, schema_version {}", show(role), show(version))));
        }
    }
    let app = match &row[2] {
        Value::Text(v) => Some(v.as_str()),
        _ => None,
    };
    if app != Some(TESTED_APP_VERSION) {
        if !allow_untested {
            return Err(CodecError::Unsupported(format!(
                "{db}: written by OpenClaw {} (schema_meta.app_version); tested with {TESTED_APP_VERSION}: \
                 pass --allow-untested to install anyway",
                app.unwrap_or("of an unknown version")
            )));
        }
        target::untested(app, TESTED_APP_VERSION);
    }
    Ok(())
}

/// A value as SQL would print it.
fn show(value: &Value) -> String {
    match value {
        Value::Null => "NULL".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(f) => f.to_string(),
        Value::Text(s) => format!("'{s}'"),
        Value::Blob(b) => format!("a blob of {} bytes", b.len()),
    }
}

/// Refuses a session id, or the node `key`, the database already has.
fn check_not_present(database: &Database, db: &str, id: &str, key: &str) -> Result<(), CodecError> {
    let rows = query_all(
        database,
        db,
        "SELECT EXISTS (SELECT 1 FROM session_windows WHERE session_id = ?1) \
             OR EXISTS (SELECT 1 FROM transcript_events WHERE session_id = ?1) \
             OR EXISTS (SELECT 1 FROM session_nodes WHERE current_session_id = ?1 OR session_key = ?2)",
        &[Value::Text(id.to_string()), Value::Text(key.to_string())],
    )?;
    if matches!(rows.first().and_then(|r| r.first()), Some(Value::Integer(0))) {
        Ok(())
    } else {
        Err(CodecError::Other(format!("{db} already holds session {id}; trajhost never overwrites a session")))
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn opt(s: Option<&str>) -> Value {
    s.map_or(Value::Null, text)
}

fn table(name: &str, columns: &[&str], rows: Vec<Vec<Value>>) -> TableRows {
    TableRows { table: name.into(), columns: columns.iter().map(|c| c.to_string()).collect(), rows }
}

/// The rows a fresh database holds before any session: its identity and
/// the main node, naming the session.
fn fresh_tables(session: &Session, key: &str) -> Vec<TableRows> {
    let start = session.start_ms;
    vec![
        table(
            "schema_meta",
            &["meta_key", "role", "schema_version", "agent_id", "app_version", "created_at", "updated_at"],
            vec![vec![
                text("primary"),
                text("agent"),
                Value::Integer(SCHEMA_VERSION),
                text(AGENT),
                text(TESTED_APP_VERSION),
                Value::Integer(start),
                Value::Integer(start),
            ]],
        ),
        table(
            "session_key_contract",
            &["id", "main_key", "canonical_ready", "updated_at"],
            vec![vec![Value::Integer(1), text("main"), Value::Null, Value::Integer(0)]],
        ),
        node_table(session, key),
    ]
}

/// The key OpenClaw gives a session started with `--session-id <id>`
/// (`agent:<agent>:explicit:<id>`, folded to lower case as it normalizes
/// every key).
pub fn explicit_key(id: &str) -> String {
    format!("agent:{AGENT}:explicit:{}", id.trim()).to_lowercase()
}

/// The `session_nodes` row naming the session as the node's current one,
/// marked valid: its entry is one OpenClaw's validator accepts.
fn node_table(session: &Session, key: &str) -> TableRows {
    let (start, end) = (session.start_ms, session.end_ms);
    let entry = serde_json::json!({ "sessionId": session.id, "updatedAt": end, "sessionStartedAt": start });
    table(
        "session_nodes",
        &[
            "session_key",
            "current_session_id",
            "entry_json",
            "entry_valid",
            "updated_at",
            "created_at",
            "last_interaction_at",
            "last_activity_at",
        ],
        vec![vec![
            text(key),
            text(&session.id),
            Value::Text(entry.to_string()),
            Value::Integer(1),
            Value::Integer(end),
            Value::Integer(start),
            Value::Integer(end),
            Value::Integer(end),
        ]],
    )
}

/// The session's own rows (window, events, identities, active projection).
fn session_tables(session: &Session, key: &str, model: Option<&(Option<String>, String)>) -> Vec<TableRows> {
    let id = || text(&session.id);
    let (start, end) = (session.start_ms, session.end_ms);
    let window = table(
        "session_windows",
        &[
            "session_id",
            "session_key",
            "created_at",
            "updated_at",
            "transcript_updated_at",
            "transcript_observed_at",
            "session_entry_provenance",
            "model_provider",
            "model",
            "agent_harness_id",
        ],
        vec![vec![
            id(),
            text(key),
            Value::Integer(start),
            Value::Integer(end),
            Value::Integer(end),
            Value::Integer(end),
            Value::Integer(1),
            opt(model.and_then(|(p, _)| p.as_deref())),
            opt(model.map(|(_, m)| m.as_str())),
            text("openclaw"),
        ]],
    );
    let mut events = Vec::new();
    let mut identities = Vec::new();
    let mut active = Vec::new();
    let (mut position, mut messages) = (0i64, 0i64);
    let mut leaf = None;
    for (seq, at, entry) in &session.events {
        let kind = entry.get("type").and_then(Json::as_str).unwrap_or("");
        let entry_id =
            if *seq == 0 { session.id.as_str() } else { entry.get("id").and_then(Json::as_str).unwrap_or("") };
        events.push(vec![id(), Value::Integer(*seq), Value::Text(entry.to_string()), Value::Integer(*at)]);
        let parent = if *seq == 0 { None } else { entry.get("parentId").and_then(Json::as_str) };
        identities.push(vec![
            id(),
            text(entry_id),
            Value::Integer(*seq),
            text(kind),
            opt(parent),
            Value::Null,
            Value::Integer(*at),
        ]);
        if *seq > 0 {
            let message = (kind == "message").then(|| {
                messages += 1;
                Value::Integer(messages - 1)
            });
            active.push(vec![
                id(),
                Value::Integer(position),
                Value::Integer(*seq),
                message.unwrap_or(Value::Null),
                Value::Integer(1),
            ]);
            position += 1;
        }
        leaf = Some(entry_id.to_string());
    }
    let last_seq = session.events.last().map_or(0, |(seq, _, _)| *seq);
    vec![
        window,
        table("transcript_events", &["session_id", "seq", "event_json", "created_at"], events),
        table(
            "transcript_event_identities",
            &["session_id", "event_id", "seq", "event_type", "parent_id", "message_idempotency_key", "created_at"],
            identities,
        ),
        table(
            "session_transcript_active_events",
            &["session_id", "active_position", "event_seq", "message_position", "context_eligible"],
            active,
        ),
        table(
            "session_transcript_index_state",
            &[
                "session_id",
                "indexed_seq",
                "leaf_event_id",
                "needs_rebuild",
                "active_event_count",
                "active_message_count",
                "updated_at",
            ],
            vec![vec![
                id(),
                Value::Integer(last_seq),
                opt(leaf.as_deref()),
                Value::Integer(0),
                Value::Integer(position),
                Value::Integer(messages),
                Value::Integer(end),
            ]],
        ),
    ]
}
