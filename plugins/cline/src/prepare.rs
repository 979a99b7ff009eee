//! `prepare`: the plan that installs a written session into a target home.
//!
//! 1. `create-file` of `<id>.messages.json` and of the manifest `<id>.json`
//!    under `.cline/data/sessions/<id>/`. The manifest's `messages_path` is
//!    `home-path` + `/` + the messages file's path: Cline loads a session's
//!    messages from that absolute path. Its provider and model are the
//!    user's `--provider`/`--model`, else the ones the target's
//!    `.cline/data/settings/providers.json` selects (`lastUsedProvider` and
//!    its `settings.model`), else what `write` recorded.
//! 2. The index `.cline/data/db/sessions.db`:
//!    - missing (a fresh home): `create-database` with the schema Cline
//!      3.0.65 creates (its statements as `sqlite_master` keeps them,
//!      `user_version` 0) and the session's row;
//!    - present: its `user_version` and the columns of `sessions` (name,
//!      type, NOT NULL, default, key) must be the ones Cline 3.0.65 creates,
//!      else the plan fails closed naming the database and what differs;
//!      then `insert-rows` of the row. A session id already in the table,
//!      or a session directory already there, is refused. When the newest
//!      row was written by another Cline version than 3.0.65 the plan is
//!      refused unless `--allow-untested` (then reported as untested).
//!
//! Cline resumes a session only interactively (`cline --id <id>`, its TUI)
//! or through ACP (`cline --acp`, then `session/load {sessionId, cwd}`),
//! both of which look the session up by its `sessions` row and read the
//! messages at `messages_path`. The resume command is the interactive one.

use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{
    CreateDatabase, CreateFile, InsertRows, TableRows,
};
use trajhost_codec_sdk::errors::target_sqlite_error;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::{Database, Value};
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{ArtifactInfo, CodecError, Operation, Plan, WriteOptions, target};

use crate::layout::{self, SessionPaths};
use crate::write::{CLI_VERSION, Manifest};

/// Largest manifest artifact read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// Largest providers settings file read.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;
/// The provider settings the CLI's `auth` writes.
pub const PROVIDERS_JSON: &str = ".cline/data/settings/providers.json";
/// `PRAGMA user_version` of Cline 3.0.65's `sessions.db`.
pub const USER_VERSION: i64 = 0;

/// The statements Cline 3.0.65 runs to create `sessions.db` (`@cline/shared`
/// `db`), as SQLite keeps them in `sqlite_master` (`IF NOT EXISTS` and the
/// semicolon dropped), so the new database matches one the CLI made.
pub const SCHEMA: &[&str] = &[
    "CREATE TABLE sessions (\n\t\tsession_id TEXT PRIMARY KEY,\n\t\tsource TEXT NOT NULL,\n\t\tpid INTEGER NOT NULL,\n\t\tstarted_at TEXT NOT NULL,\n\t\tended_at TEXT,\n\t\texit_code INTEGER,\n\t\tstatus TEXT NOT NULL,\n\t\tstatus_lock INTEGER NOT NULL DEFAULT 0,\n\t\tinteractive INTEGER NOT NULL,\n\t\tprovider TEXT NOT NULL,\n\t\tmodel TEXT NOT NULL,\n\t\tcwd TEXT NOT NULL,\n\t\tworkspace_root TEXT NOT NULL,\n\t\tteam_name TEXT,\n\t\tenable_tools INTEGER NOT NULL,\n\t\tenable_spawn INTEGER NOT NULL,\n\t\tenable_teams INTEGER NOT NULL,\n\t\tparent_session_id TEXT,\n\t\tparent_agent_id TEXT,\n\t\tagent_id TEXT,\n\t\tconversation_id TEXT,\n\t\tis_subagent INTEGER NOT NULL DEFAULT 0,\n\t\tprompt TEXT,\n\t\tmetadata_json TEXT,\n\t\ttranscript_path TEXT NOT NULL DEFAULT '',\n\t\thook_path TEXT NOT NULL,\n\t\tmessages_path TEXT,\n\t\tupdated_at TEXT NOT NULL\n\t)",
    "CREATE TABLE subagent_spawn_queue (\n\t\tid INTEGER PRIMARY KEY AUTOINCREMENT,\n\t\troot_session_id TEXT NOT NULL,\n\t\tparent_agent_id TEXT NOT NULL,\n\t\ttask TEXT,\n\t\tsystem_prompt TEXT,\n\t\tcreated_at TEXT NOT NULL,\n\t\tconsumed_at TEXT\n\t)",
    "CREATE TABLE schedules (\n\t\tschedule_id TEXT PRIMARY KEY,\n\t\tname TEXT NOT NULL,\n\t\tcron_pattern TEXT NOT NULL,\n\t\tprompt TEXT NOT NULL,\n\t\tprovider TEXT NOT NULL,\n\t\tmodel TEXT NOT NULL,\n\t\tmode TEXT NOT NULL DEFAULT 'act',\n\t\tworkspace_root TEXT,\n\t\tcwd TEXT,\n\t\tsystem_prompt TEXT,\n\t\tmax_iterations INTEGER,\n\t\ttimeout_seconds INTEGER,\n\t\tmax_parallel INTEGER NOT NULL DEFAULT 1,\n\t\tenabled INTEGER NOT NULL DEFAULT 1,\n\t\tcreated_at TEXT NOT NULL,\n\t\tupdated_at TEXT NOT NULL,\n\t\tlast_run_at TEXT,\n\t\tnext_run_at TEXT,\n\t\tclaim_token TEXT,\n\t\tclaim_started_at TEXT,\n\t\tclaim_until_at TEXT,\n\t\tcreated_by TEXT,\n\t\ttags TEXT,\n\t\tmetadata_json TEXT\n\t)",
    "CREATE TABLE schedule_executions (\n\t\texecution_id TEXT PRIMARY KEY,\n\t\tschedule_id TEXT NOT NULL,\n\t\tsession_id TEXT,\n\t\ttriggered_at TEXT NOT NULL,\n\t\tstarted_at TEXT,\n\t\tended_at TEXT,\n\t\tstatus TEXT NOT NULL,\n\t\texit_code INTEGER,\n\t\terror_message TEXT,\n\t\titerations INTEGER,\n\t\ttokens_used INTEGER,\n\t\tcost_usd REAL,\n\t\tFOREIGN KEY (schedule_id) REFERENCES schedules(schedule_id) ON DELETE CASCADE,\n\t\tFOREIGN KEY (session_id) REFERENCES sessions(session_id) ON DELETE SET NULL\n\t)",
    "CREATE INDEX idx_schedule_executions_schedule\n\tON schedule_executions(schedule_id, triggered_at DESC)",
    "CREATE INDEX idx_schedules_next_run\n\tON schedules(enabled, next_run_at)",
];

/// The columns of `sessions` in Cline 3.0.65: name, type, NOT NULL,
/// default, primary key (what `PRAGMA table_info` reports).
pub const SESSIONS_COLUMNS: &[(&str, &str, bool, Option<&str>, bool)] = &[
    ("session_id", "TEXT", false, None, true),
    ("source", "TEXT", true, None, false),
    ("pid", "INTEGER", true, None, false),
    ("started_at", "TEXT", true, None, false),
    ("ended_at", "TEXT", false, None, false),
    ("exit_code", "INTEGER", false, None, false),
    ("status", "TEXT", true, None, false),
    ("status_lock", "INTEGER", true, Some("0"), false),
    ("interactive", "INTEGER", true, None, false),
    ("provider", "TEXT", true, None, false),
    ("model", "TEXT", true, None, false),
    ("cwd", "TEXT", true, None, false),
    ("workspace_root", "TEXT", true, None, false),
    ("team_name", "TEXT", false, None, false),
    ("enable_tools", "INTEGER", true, None, false),
    ("enable_spawn", "INTEGER", true, None, false),
    ("enable_teams", "INTEGER", true, None, false),
    ("parent_session_id", "TEXT", false, None, false),
    ("parent_agent_id", "TEXT", false, None, false),
    ("agent_id", "TEXT", false, None, false),
    ("conversation_id", "TEXT", false, None, false),
    ("is_subagent", "INTEGER", true, Some("0"), false),
    ("prompt", "TEXT", false, None, false),
    ("metadata_json", "TEXT", false, None, false),
    ("transcript_path", "TEXT", true, Some("''"), false),
    ("hook_path", "TEXT", true, None, false),
    ("messages_path", "TEXT", false, None, false),
    ("updated_at", "TEXT", true, None, false),
];

/// The plan for `artifacts` (a manifest and a messages file, as `write`
/// made them).
pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    export: &Dir,
    target: &Dir,
    options: &WriteOptions,
) -> Result<Plan, CodecError> {
    let choice = target::choice();
    let messages: Vec<&ArtifactInfo> =
        artifacts.iter().filter(|a| SessionPaths::from_locator(&a.path).is_ok()).collect();
    let [messages] = messages.as_slice() else {
        return Err(CodecError::Malformed(format!(
            "expected exactly one messages artifact at {}",
            layout::SESSION_GLOBS[0]
        )));
    };
    let paths = SessionPaths::from_locator(&messages.path)?;
    if paths.dir != format!("{}/{}", layout::SESSIONS_DIR, paths.id) {
        return Err(CodecError::Malformed(format!("{}: not under {}", messages.path, layout::SESSIONS_DIR)));
    }
    if let Some(id) = options.native_id.as_deref()
        && id != paths.id
    {
        return Err(CodecError::Malformed(format!("{}: not the requested native id {id}", messages.path)));
    }
    let manifest_info = artifacts.iter().find(|a| a.path == paths.manifest).ok_or_else(|| {
        CodecError::Malformed(format!("the export has no manifest {} beside {}", paths.manifest, messages.path))
    })?;
    let bytes = export.read_to_end(&manifest_info.path, MAX_MANIFEST_BYTES)?;
    let mut manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| CodecError::Malformed(format!("{}: not a manifest this codec wrote ({e})", paths.manifest)))?;
    if manifest.session_id != paths.id {
        return Err(CodecError::Malformed(format!("{}: session_id {} differs", paths.manifest, manifest.session_id)));
    }
    let home = options.home_path.as_deref().ok_or_else(|| {
        CodecError::Unsupported(
            "Cline's sessions.db row names the messages file by its absolute path: \
             write-options.home-path was not given"
                .into(),
        )
    })?;
    match target.stat(&paths.dir) {
        Err(FsError::NotFound(_)) => {}
        Ok(_) => {
            return Err(CodecError::Other(format!(
                "{} already exists in the target; trajhost never overwrites a session",
                paths.dir
            )));
        }
        Err(e) => return Err(CodecError::Io(format!("{}: {e}", paths.dir))),
    }
    let configured = configured_provider(target);
    if let Some(provider) = choice.provider.clone().or_else(|| configured.as_ref().map(|c| c.0.clone())) {
        manifest.provider = provider;
    }
    if let Some(model) = choice.model.clone().or_else(|| configured.and_then(|c| c.1)) {
        manifest.model = model;
    }
    manifest.messages_path = Some(format!("{}/{}", home.trim_end_matches('/'), paths.messages));
    let row = session_row(&manifest);
    let mut operations = vec![
        Operation::CopyArtifact(trajhost_codec_sdk::CopyArtifact {
            artifact: messages.path.clone(),
            path: paths.messages.clone(),
        }),
        Operation::CreateFile(CreateFile { path: paths.manifest.clone(), bytes: manifest.to_bytes() }),
    ];
    let columns: Vec<String> = SESSIONS_COLUMNS.iter().map(|c| c.0.to_string()).collect();
    match target.stat(layout::INDEX_DB) {
        Err(FsError::NotFound(_)) => operations.push(Operation::CreateDatabase(CreateDatabase {
            path: layout::INDEX_DB.into(),
            schema: SCHEMA.iter().map(|s| s.to_string()).collect(),
            user_version: Some(USER_VERSION),
            tables: vec![TableRows { table: "sessions".into(), columns, rows: vec![row] }],
        })),
        Ok(_) => {
            check_index(target, layout::INDEX_DB, &paths.id)?;
            check_version(target, layout::INDEX_DB, choice.allow_untested)?;
            operations.push(Operation::InsertRows(InsertRows {
                database: layout::INDEX_DB.into(),
                table: "sessions".into(),
                columns,
                rows: vec![row],
            }));
        }
        Err(e) => return Err(CodecError::Io(format!("{}: {e}", layout::INDEX_DB))),
    }
    Ok(Plan {
        native_id: paths.id.clone(),
        operations,
        resume_command: Some(resume_command(&paths.id, &manifest.cwd, options)),
    })
}

/// `cd <cwd> && HOME=<home> cline --id <id>`: Cline's interactive resume
/// (its TUI). Headless, the session loads only through ACP: `cline --acp`,
/// then `initialize`, `session/load {sessionId: <id>, cwd}`, `session/prompt`.
pub fn resume_command(id: &str, cwd: &str, options: &WriteOptions) -> String {
    let cwd = options.cwd.as_deref().unwrap_or(cwd);
    let home = options.home_path.as_deref().map(|h| h.trim_end_matches('/'));
    ResumeCommand::in_dir(Some(cwd)).env("HOME", home).program("cline").option("--id", Some(id)).finish()
}

/// The row of `sessions` for `manifest`, in [`SESSIONS_COLUMNS`] order, as
/// Cline 3.0.65 fills it for a finished headless run.
fn session_row(m: &Manifest) -> Vec<Value> {
    let text = |s: &str| Value::Text(s.to_string());
    let int = |b: bool| Value::Integer(i64::from(b));
    vec![
        text(&m.session_id),
        text(&m.source),
        Value::Integer(m.pid),
        text(&m.started_at),
        text(&m.ended_at),
        Value::Integer(m.exit_code),
        text(&m.status),
        Value::Integer(0),
        int(m.interactive),
        text(&m.provider),
        text(&m.model),
        text(&m.cwd),
        text(&m.workspace_root),
        Value::Null,
        int(m.enable_tools),
        int(m.enable_spawn),
        int(m.enable_teams),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Integer(0),
        m.prompt.as_deref().map_or(Value::Null, text),
        Value::Text(m.metadata.to_string()),
        text(""),
        text(""),
        m.messages_path.as_deref().map_or(Value::Null, text),
        text(&m.ended_at),
    ]
}

/// The provider and model the target's `providers.json` selects.
fn configured_provider(target: &Dir) -> Option<(String, Option<String>)> {
    let bytes = target.read_to_end(PROVIDERS_JSON, MAX_SETTINGS_BYTES).ok()?;
    let json: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let provider = json.get("lastUsedProvider")?.as_str()?.to_string();
    let model = json
        .pointer(&format!("/providers/{}/settings/model", provider.replace('~', "~0").replace('/', "~1")))
        .and_then(|m| m.as_str())
        .map(str::to_string);
    Some((provider, model))
}

/// Checks `db` is a `sessions.db` of the schema this codec knows and does
/// not list `id` yet.
pub fn check_index(target: &Dir, db: &str, id: &str) -> Result<(), CodecError> {
    let database = Database::open(target, db).map_err(|e| target_sqlite_error(db, e))?;
    let version = database
        .query("PRAGMA user_version", &[])
        .and_then(|rows| rows.collect_all())
        .map_err(|e| target_sqlite_error(db, e))?;
    let version = match version.first().and_then(|r| r.first()) {
        Some(Value::Integer(v)) => *v,
        _ => -1,
    };
    let mut differences = Vec::new();
    if version != USER_VERSION {
        differences.push(format!("user_version {version}, expected {USER_VERSION}"));
    }
    let rows = database
        .query("PRAGMA table_info(sessions)", &[])
        .and_then(|rows| {
            let names = rows.columns();
            rows.collect_all().map(|all| (names, all))
        })
        .map_err(|e| target_sqlite_error(db, e))?;
    let (names, all) = rows;
    let at = |name: &str| names.iter().position(|n| n == name);
    let (Some(name_at), Some(type_at), Some(notnull_at), Some(default_at), Some(pk_at)) =
        (at("name"), at("type"), at("notnull"), at("dflt_value"), at("pk"))
    else {
        return Err(CodecError::Io(format!("{db}: PRAGMA table_info(sessions): unexpected result columns")));
    };
    let found: Vec<(String, String, bool, Option<String>, bool)> = all
        .iter()
        .map(|row| {
            let text = |i: usize| match row.get(i) {
                Some(Value::Text(s)) => Some(s.clone()),
                _ => None,
            };
            let flag = |i: usize| matches!(row.get(i), Some(Value::Integer(n)) if *n != 0);
            (
                text(name_at).unwrap_or_default(),
                text(type_at).unwrap_or_default().to_ascii_uppercase(),
                flag(notnull_at),
                text(default_at),
                flag(pk_at),
            )
        })
        .collect();
    if found.is_empty() {
        differences.push("no sessions table".into());
    } else {
        for (name, kind, not_null, default, pk) in SESSIONS_COLUMNS {
            match found.iter().find(|c| c.0 == *name) {
                None => differences.push(format!("missing column {name}")),
                Some(c) if c.1 != *kind || c.2 != *not_null || c.3.as_deref() != *default || c.4 != *pk => differences
                    .push(format!(
                        "column {name} is {} {}{}{}, expected {kind} {}{}{}",
                        c.1,
                        if c.2 { "NOT NULL" } else { "NULL" },
                        c.3.as_deref().map(|d| format!(" DEFAULT {d}")).unwrap_or_default(),
                        if c.4 { " PRIMARY KEY" } else { "" },
                        if *not_null { "NOT NULL" } else { "NULL" },
                        default.map(|d| format!(" DEFAULT {d}")).unwrap_or_default(),
                        if *pk { " PRIMARY KEY" } else { "" },
                    )),
                Some(_) => {}
            }
        }
        for c in &found {
            if !SESSIONS_COLUMNS.iter().any(|k| k.0 == c.0) {
                differences.push(format!("unexpected column {}", c.0));
            }
        }
    }
    if !differences.is_empty() {
        return Err(CodecError::Unsupported(format!(
            "{db}: not the sessions.db schema of Cline {CLI_VERSION} ({}); nothing was planned",
            differences.join("; ")
        )));
    }
    let existing = database
        .query("SELECT messages_path FROM sessions WHERE session_id = ?", &[Value::Text(id.to_string())])
        .and_then(|rows| rows.collect_all())
        .map_err(|e| target_sqlite_error(db, e))?;
    if !existing.is_empty() {
        return Err(CodecError::Other(format!(
            "{db}: session {id} is already registered; trajhost never overwrites a session"
        )));
    }
    Ok(())
}

/// The Cline version that wrote the target's newest session
/// (`metadata_json.sessionHistoryOrigin.version`): another than the tested
/// one is refused unless the user allows it (then reported as untested).
pub fn check_version(target: &Dir, db: &str, allow_untested: bool) -> Result<(), CodecError> {
    let database = Database::open(target, db).map_err(|e| target_sqlite_error(db, e))?;
    let rows = database
        .query("SELECT metadata_json FROM sessions ORDER BY updated_at DESC LIMIT 1", &[])
        .and_then(|rows| rows.collect_all())
        .map_err(|e| target_sqlite_error(db, e))?;
    let found = rows.first().and_then(|r| r.first()).and_then(|v| match v {
        Value::Text(json) => serde_json::from_str::<crate::native::Metadata>(json).ok(),
        _ => None,
    });
    let Some(version) = found.and_then(|m| m.session_history_origin.version) else { return Ok(()) };
    if version == CLI_VERSION {
        return Ok(());
    }
    if allow_untested {
        target::untested(Some(&version), CLI_VERSION);
        return Ok(());
    }
    Err(CodecError::Unsupported(format!(
        "{db}: the target's newest session was written by Cline {version}; this codec was tested with Cline \
         {CLI_VERSION} (pass --allow-untested to install anyway)"
    )))
}
