//! `prepare`: the plan that installs an export (`crate::export`) into the
//! target's `~/.hermes/state.db`.
//!
//! - No `state.db` yet: `create-database` with the schema a fresh
//!   hermes-agent 0.19.0 `SessionDB` creates (`crate::schema`: tables,
//!   indexes, the FTS5 tables `messages_fts` / `messages_fts_trigram` and
//!   their triggers; `user_version` 0), `schema_version` = 22, and the
//!   session's rows. The FTS triggers are left for Hermes to create (see
//!   [`crate::schema::new_database_statements`]): it adds them and indexes
//!   the rows when it next opens the database. Into an existing database
//!   the triggers index the rows as Hermes' own inserts do.
//! - A `state.db` that exists: its `schema_version` and the columns of
//!   `sessions` and `messages` are checked first; anything but the schema
//!   this codec knows (22, the columns of [`crate::schema`]) is refused,
//!   naming the file and what differs (`--allow-untested` accepts another
//!   version whose tables still have every column written, reported as
//!   untested). Then `insert-rows` of the `sessions` row and the `messages`
//!   rows, in one transaction; the other sessions' rows are not touched.
//! - A session id already in the table is refused (never overwritten). A
//!   title another session holds (`idx_sessions_title_unique`) gets Hermes'
//!   lineage suffix ` #2`, ` #3`, ….
//! - `--model` sets `sessions.model` and goes into the resume command, as
//!   does `--provider` (Hermes' `--provider`); without them, the resume
//!   command names the target's `config.yaml` `model.provider` /
//!   `model.default`.
//! - `resume-command`: `cd <cwd> && HOME=<home> hermes chat -Q --resume <id>
//!   -q "<prompt>" [--provider <p>] [-m <model>] --yolo` (the lab's resume
//!   line; `-z` would ignore `--resume`).

use serde_json::{Map, Value as Json};
use trajhost_codec_sdk::errors::target_sqlite_error;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sql;
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{
    ArtifactInfo, CodecError, CreateDatabase, InsertRows, Operation, Plan, TableRows, WriteOptions,
};

use crate::export::{self, SESSION_FILE, row_of};
use crate::layout::STATE_DB;
use crate::schema::{MESSAGES_COLUMNS, SCHEMA_VERSION, SESSIONS_COLUMNS, new_database_statements};
use crate::write::{ARCHIVES_EARLIER, MAX_TITLE_CHARS};

/// Hermes' configuration, relative to the home.
pub const CONFIG: &str = ".hermes/config.yaml";
/// Largest artifact or config read.
const MAX_ARTIFACT_BYTES: u64 = 1 << 30;
const MAX_CONFIG_BYTES: u64 = 1 << 20;

pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    export_dir: &Dir,
    target: &Dir,
    options: &WriteOptions,
    choice: &TargetChoice,
) -> Result<Plan, CodecError> {
    let session = artifacts
        .iter()
        .find_map(|a| export::export_id(&a.path))
        .ok_or_else(|| {
            CodecError::Malformed(format!("no {}/<id>/{SESSION_FILE} among the artifacts", export::EXPORT_DIR))
        })?
        .to_string();
    if let Some(other) =
        artifacts.iter().find(|a| a.path != export::session_path(&session) && a.path != export::messages_path(&session))
    {
        return Err(CodecError::Malformed(format!("artifact {} is not part of the export of {session}", other.path)));
    }
    if let Some(wanted) = options.native_id.as_deref().filter(|w| *w != session) {
        return Err(CodecError::Malformed(format!("the export holds session {session}, not the requested {wanted}")));
    }
    let mut session_row = export::session_row(export_dir, &session)?;
    let messages = message_rows(export_dir, &session)?;
    if let Some(model) = &choice.model {
        session_row.insert("model".into(), Json::String(model.clone()));
    }
    if let Some(cwd) = options.cwd.as_deref().filter(|c| !c.is_empty()) {
        session_row.insert("cwd".into(), Json::String(cwd.to_string()));
    }

    let db_exists = match target.stat(STATE_DB) {
        Ok(_) => true,
        Err(FsError::NotFound(_)) => false,
        Err(e) => return Err(CodecError::Io(format!("{STATE_DB}: {e}"))),
    };
    let mut operations = Vec::new();
    if db_exists {
        let database = Database::open(target, STATE_DB).map_err(|e| target_sqlite_error(STATE_DB, e))?;
        check_schema(&database, choice)?;
        check_new(&database, &session)?;
        if let Some(Json::String(title)) = session_row.get("title").cloned() {
            session_row.insert("title".into(), Json::String(free_title(&database, &title)?));
        }
        let (columns, rows) = sessions_table(&session_row)?;
        operations.push(Operation::InsertRows(InsertRows {
            database: STATE_DB.into(),
            table: "sessions".into(),
            columns,
            rows,
        }));
        if !messages.rows.is_empty() {
            operations.push(Operation::InsertRows(InsertRows {
                database: STATE_DB.into(),
                table: "messages".into(),
                columns: messages.columns,
                rows: messages.rows,
            }));
        }
    } else {
        let (columns, rows) = sessions_table(&session_row)?;
        operations.push(Operation::CreateDatabase(CreateDatabase {
            path: STATE_DB.into(),
            schema: new_database_statements(),
            user_version: None,
            tables: vec![
                TableRows {
                    table: "schema_version".into(),
                    columns: vec!["version".into()],
                    rows: vec![vec![Value::Integer(SCHEMA_VERSION)]],
                },
                TableRows { table: "sessions".into(), columns, rows },
                TableRows { table: "messages".into(), columns: messages.columns, rows: messages.rows },
            ],
        }));
    }
    let cwd = session_row.get("cwd").and_then(Json::as_str).map(str::to_string);
    let config = read_config(target);
    let provider = choice.provider.clone().or(config.provider);
    let model = choice.model.clone().or(config.model);
    let command =
        resume_command(cwd.as_deref(), options.home_path.as_deref(), &session, provider.as_deref(), model.as_deref());
    Ok(Plan { native_id: session, operations, resume_command: Some(command) })
}

/// `cd <cwd> && HOME=<home> hermes chat -Q --resume <id> -q "<prompt>"
/// [--provider <p>] [-m <model>] --yolo`.
pub fn resume_command(
    cwd: Option<&str>,
    home: Option<&str>,
    id: &str,
    provider: Option<&str>,
    model: Option<&str>,
) -> String {
    ResumeCommand::in_dir(cwd)
        .env("HOME", home)
        .program("hermes chat -Q")
        .option("--resume", Some(id))
        .arg("-q \"<prompt>\"")
        .option("--provider", provider)
        .option("-m", model)
        .arg("--yolo")
        .finish()
}

/// The `messages` rows of the export, with one column list (Hermes' order).
struct Messages {
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
}

fn message_rows(export_dir: &Dir, session: &str) -> Result<Messages, CodecError> {
    let path = export::messages_path(session);
    let bytes = match export_dir.read_to_end(&path, MAX_ARTIFACT_BYTES) {
        Ok(bytes) => bytes,
        Err(FsError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(CodecError::Io(format!("{path}: {e}"))),
    };
    let mut objects: Vec<Map<String, Json>> = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Json>(line) {
            Ok(Json::Object(mut row)) => {
                row.insert("session_id".into(), Json::String(session.to_string()));
                if row.remove(ARCHIVES_EARLIER).is_some() {
                    for earlier in &mut objects {
                        earlier.insert("active".into(), Json::from(0));
                        earlier.insert("compacted".into(), Json::from(1));
                    }
                }
                objects.push(row);
            }
            _ => return Err(CodecError::Malformed(format!("{path}: line {} is not a JSON object", n + 1))),
        }
    }
    let mut columns: Vec<String> = Vec::new();
    for name in MESSAGES_COLUMNS.iter().filter(|c| **c != "id") {
        if objects.iter().any(|o| o.contains_key(*name)) {
            columns.push(name.to_string());
        }
    }
    let mut rows = Vec::with_capacity(objects.len());
    for object in &objects {
        if let Some(unknown) = object.keys().find(|k| !columns.contains(k)) {
            return Err(CodecError::Malformed(format!("{path}: unknown messages column {unknown}")));
        }
        let (names, values) = row_of(object, &path)?;
        let row = columns
            .iter()
            .map(|c| match names.iter().position(|n| n == c) {
                Some(i) => values[i].clone(),
                None => default_of(c),
            })
            .collect();
        rows.push(row);
    }
    Ok(Messages { columns, rows })
}

/// The value a `messages` column takes when a row leaves it out (the
/// `NOT NULL DEFAULT`s of schema 22).
fn default_of(column: &str) -> Value {
    match column {
        "observed" | "compacted" => Value::Integer(0),
        "active" => Value::Integer(1),
        _ => Value::Null,
    }
}

/// The `sessions` row as one insert: its columns in table order.
fn sessions_table(row: &Map<String, Json>) -> Result<(Vec<String>, Vec<Vec<Value>>), CodecError> {
    let file = SESSION_FILE;
    if let Some(unknown) = row.keys().find(|k| !SESSIONS_COLUMNS.contains(&k.as_str())) {
        return Err(CodecError::Malformed(format!("{file}: unknown sessions column {unknown}")));
    }
    for needed in ["id", "source", "started_at"] {
        if row.get(needed).is_none_or(Json::is_null) {
            return Err(CodecError::Malformed(format!("{file}: the sessions row has no {needed}")));
        }
    }
    let (names, values) = row_of(row, file)?;
    let mut columns = Vec::new();
    let mut out = Vec::new();
    for column in SESSIONS_COLUMNS {
        if let Some(i) = names.iter().position(|n| n == column) {
            columns.push(column.to_string());
            out.push(values[i].clone());
        }
    }
    Ok((columns, vec![out]))
}

/// Refuses a `state.db` whose schema is not the one this codec writes.
pub fn check_schema(db: &Database, choice: &TargetChoice) -> Result<(), CodecError> {
    let err = |e| target_sqlite_error(STATE_DB, e);
    let version = match db.query("SELECT version FROM schema_version", &[]) {
        Ok(rows) => {
            let all = rows.collect_all().map_err(err)?;
            match all.as_slice() {
                [row] => match row.first() {
                    Some(Value::Integer(v)) => Some(*v),
                    _ => None,
                },
                _ => None,
            }
        }
        Err(SqliteError::Sqlite(m)) if m.contains("no such table") => None,
        Err(e) => return Err(err(e)),
    };
    let mut problems = Vec::new();
    let mut blocking = false;
    if version != Some(SCHEMA_VERSION) {
        problems.push(match version {
            Some(v) => format!("schema_version {v}, not {SCHEMA_VERSION}"),
            None => "no single schema_version row".to_string(),
        });
        blocking |= version.is_none();
    }
    for (table, known) in [("sessions", SESSIONS_COLUMNS), ("messages", MESSAGES_COLUMNS)] {
        let present = sql::table_columns(db, table).map_err(err)?;
        if present.is_empty() {
            problems.push(format!("no {table} table"));
            blocking = true;
            continue;
        }
        let missing: Vec<&str> = known.iter().copied().filter(|c| !present.contains(*c)).collect();
        let unexpected: Vec<&str> = present.iter().map(String::as_str).filter(|c| !known.contains(c)).collect();
        if !missing.is_empty() {
            problems.push(format!("{table} lacks columns {}", missing.join(", ")));
            blocking = true;
        }
        if !unexpected.is_empty() {
            problems.push(format!("{table} has unknown columns {}", unexpected.join(", ")));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    if choice.allow_untested && !blocking {
        trajhost_codec_sdk::target::untested(
            Some(&format!("state.db schema {}", version.map_or("?".into(), |v| v.to_string()))),
            &format!("state.db schema {SCHEMA_VERSION} (hermes-agent {})", crate::TESTED_VERSION),
        );
        return Ok(());
    }
    let hint = if blocking { "" } else { "; pass --allow-untested to insert anyway" };
    Err(CodecError::Unsupported(format!(
        "{STATE_DB}: not the schema this codec writes ({}); nothing was planned — it knows state.db schema \
         {SCHEMA_VERSION} of hermes-agent {}{hint}",
        problems.join("; "),
        crate::TESTED_VERSION
    )))
}

/// Refuses a session id the target already has.
fn check_new(db: &Database, id: &str) -> Result<(), CodecError> {
    if exists(db, "SELECT 1 FROM sessions WHERE id = ?", id)? {
        return Err(CodecError::Other(format!(
            "{STATE_DB}: session {id} already exists; trajhost never overwrites a session"
        )));
    }
    Ok(())
}

/// `title`, or the first of `title #2`, `title #3`, … no session holds.
fn free_title(db: &Database, title: &str) -> Result<String, CodecError> {
    if !exists(db, "SELECT 1 FROM sessions WHERE title = ?", title)? {
        return Ok(title.to_string());
    }
    for n in 2..1000 {
        let suffix = format!(" #{n}");
        let base: String = title.chars().take(MAX_TITLE_CHARS - suffix.chars().count()).collect();
        let candidate = format!("{}{suffix}", base.trim_end());
        if !exists(db, "SELECT 1 FROM sessions WHERE title = ?", &candidate)? {
            return Ok(candidate);
        }
    }
    Err(CodecError::Other(format!("{STATE_DB}: every variant of the session title is taken")))
}

fn exists(db: &Database, sql: &str, value: &str) -> Result<bool, CodecError> {
    let rows = db.query(sql, &[Value::Text(value.to_string())]).map_err(|e| target_sqlite_error(STATE_DB, e))?;
    let page = rows.next_page(1).map_err(|e| target_sqlite_error(STATE_DB, e))?;
    Ok(!page.rows.is_empty())
}

/// What the resume command takes from `config.yaml`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub provider: Option<String>,
    pub model: Option<String>,
}

fn read_config(target: &Dir) -> Config {
    match target.read_to_end(CONFIG, MAX_CONFIG_BYTES) {
        Ok(bytes) => parse_config(&String::from_utf8_lossy(&bytes)),
        Err(_) => Config::default(),
    }
}

/// `model.provider` and `model.default` of a Hermes `config.yaml`: a
/// line-level reading of the top-level `model:` mapping, in flow style
/// (`model: {provider: custom, default: m}`) or block style (indented
/// `provider:` / `default:` lines). A scalar `model: name` is the model.
pub fn parse_config(yaml: &str) -> Config {
    let mut config = Config::default();
    let mut in_model = false;
    for line in yaml.lines() {
        let content = line.split(" #").next().unwrap_or(line);
        if content.trim().is_empty() || content.trim_start().starts_with('#') {
            continue;
        }
        let indented = content.starts_with(' ') || content.starts_with('\t');
        if !indented {
            in_model = false;
            let Some(rest) = content.strip_prefix("model:") else { continue };
            let rest = rest.trim();
            if let Some(flow) = rest.strip_prefix('{') {
                for pair in flow.trim_end_matches('}').split(',') {
                    config.set(pair);
                }
            } else if rest.is_empty() {
                in_model = true;
            } else {
                config.model = scalar(rest);
            }
        } else if in_model {
            config.set(content.trim());
        }
    }
    config
}

impl Config {
    fn set(&mut self, pair: &str) {
        let Some((key, value)) = pair.split_once(':') else { return };
        match key.trim() {
            "provider" => self.provider = scalar(value),
            "default" => self.model = scalar(value),
            _ => {}
        }
    }
}

/// A YAML plain or quoted scalar.
fn scalar(value: &str) -> Option<String> {
    let v = value.trim();
    let v = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(v);
    let v = v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).unwrap_or(v);
    (!v.is_empty()).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_model_of_config_yaml() {
        let flow = "model: {provider: custom, default: fake-model, base_url: \"http://127.0.0.1:0/v1\", api_key: dummy}\n\
                    security: {allow_lazy_installs: false}\n";
        assert_eq!(parse_config(flow), Config { provider: Some("custom".into()), model: Some("fake-model".into()) });
        let block =
            "model:\n  default: \"anthropic/claude-x\"\n  provider: openrouter  # note\nother: 1\n  default: no\n";
        assert_eq!(
            parse_config(block),
            Config { provider: Some("openrouter".into()), model: Some("anthropic/claude-x".into()) }
        );
        assert_eq!(parse_config("model: gpt-x\n").model.as_deref(), Some("gpt-x"));
        assert_eq!(parse_config(""), Config::default());
    }

    #[test]
    fn resume_commands_quote() {
        assert_eq!(
            resume_command(Some("/w"), Some("/h"), "20261130_041901_233928", Some("custom"), Some("fake-model")),
            "cd /w && HOME=/h hermes chat -Q --resume 20261130_041901_233928 -q \"<prompt>\" --provider custom \
             -m fake-model --yolo"
        );
        assert_eq!(resume_command(None, None, "x", None, None), "hermes chat -Q --resume x -q \"<prompt>\" --yolo");
    }
}
