//! `prepare`: the plan that installs a written rollout into a target home.
//!
//! 1. `create-file` of the rollout at `.codex/sessions/YYYY/MM/DD/<file>`,
//!    its `session_meta.model_provider` set to the provider the target's
//!    `.codex/config.toml` selects (else `openai`): Codex 0.171 refuses to
//!    resume a thread recorded under another provider ("Cannot change this
//!    thread's model provider from `openai` to `fake` on resume").
//! 2. When the target has a state database (`.codex/state_<N>.sqlite`, the
//!    highest `N`): its `threads` schema is checked first — every column
//!    must be one this codec knows and the ones Codex needs must be there,
//!    else the plan fails closed naming the database and the columns — then
//!    an `insert-rows` of the thread's row, filled the way Codex 0.171 fills
//!    it, with `rollout_path` = `home-path` + `/` + the rollout's path.
//!    Codex looks a thread up by that row first: a row whose path does not
//!    exist makes `codex exec resume` fail ("no rollout found for thread
//!    id"), so the row must name the real file in the target home. A thread
//!    id already in the table is refused.
//!
//! The guest never writes: the host validates and executes the plan.

use serde::Deserialize;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::InsertRows;
use trajhost_codec_sdk::errors::target_sqlite_error;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::sqlite::{Database, SqliteError, Value};
use trajhost_codec_sdk::writer::install::{self, ResumeCommand, Row};
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::layout::{self, CODEX_DIR};
use crate::native::{self, ResponseItem, SessionMeta, TurnContext};
use crate::time::parse_rfc3339;

/// Columns of `threads` that must exist: Codex declares them `NOT NULL`
/// without a default, and the row fills them.
pub const REQUIRED_COLUMNS: &[&str] = &[
    "id",
    "rollout_path",
    "created_at",
    "updated_at",
    "source",
    "model_provider",
    "cwd",
    "title",
    "sandbox_policy",
    "approval_mode",
];

/// Every `threads` column this codec knows (Codex 0.171 `state_5.sqlite`;
/// older schemas have a subset). A column outside this list is an unknown
/// schema: the plan fails closed.
pub const KNOWN_COLUMNS: &[&str] = &[
    "id",
    "rollout_path",
    "created_at",
    "updated_at",
    "source",
    "model_provider",
    "cwd",
    "title",
    "sandbox_policy",
    "approval_mode",
    "tokens_used",
    "has_user_event",
    "archived",
    "archived_at",
    "git_sha",
    "git_branch",
    "git_origin_url",
    "cli_version",
    "first_user_message",
    "agent_nickname",
    "agent_role",
    "memory_mode",
    "model",
    "reasoning_effort",
    "agent_path",
    "created_at_ms",
    "updated_at_ms",
    "thread_source",
    "preview",
    "recency_at",
    "recency_at_ms",
    "history_mode",
    "name",
    "is_pinned",
    "thread_section_id",
    "section_position",
    "section_entered_at_ms",
    "project_id",
    "originator",
    "daybreak_enabled",
    "creator_user_id",
    "creator_account_id",
    "attached_thread_parent_id",
];

/// Largest rollout artifact accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The plan for `artifacts` (one rollout, as `write` made it).
pub fn prepare(artifacts: Vec<Artifact>, target: &Dir, options: &WriteOptions) -> Result<Plan, CodecError> {
    let mut rollouts = artifacts.into_iter().filter(|a| layout::check_locator(&a.path).is_ok());
    let (Some(artifact), None) = (rollouts.next(), rollouts.next()) else {
        return Err(CodecError::Malformed(format!(
            "expected exactly one rollout artifact at {}",
            layout::SESSION_GLOB
        )));
    };
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    let facts = Facts::of(&artifact)?;
    if let Some(id) = options.native_id.as_deref()
        && !id.eq_ignore_ascii_case(&facts.id)
    {
        return Err(CodecError::Malformed(format!(
            "{}: session_meta.id {} is not the requested native id {id}",
            artifact.path, facts.id
        )));
    }
    // Codex refuses to resume a thread under another provider than the one
    // it is configured with ("Cannot change this thread's model provider
    // from `openai` to `fake` on resume"): the thread takes the target's.
    let provider = target_provider(target);
    let bytes = with_model_provider(&artifact.bytes, &provider)
        .map_err(|what| CodecError::Malformed(format!("{}: {what}", artifact.path)))?;
    let facts = Facts { model_provider: provider, ..facts };
    let mut operations = Vec::new();
    if let Some(db) = state_database(target)? {
        let home = options.home_path.as_deref().ok_or_else(|| {
            CodecError::Unsupported(format!(
                "{db} exists in the target: its threads row must name the rollout's absolute path, \
                 and write-options.home-path was not given"
            ))
        })?;
        let columns = threads_columns(target, &db)?;
        check_not_registered(target, &db, &facts.id)?;
        let rollout_path = format!("{}/{}", home.trim_end_matches('/'), artifact.path);
        operations.push(Operation::InsertRows(thread_row(&db, &columns, &facts, rollout_path)));
    }
    let native_id = facts.id.clone();
    operations.insert(0, install::create_file(artifact.path, bytes));
    Ok(Plan { native_id: native_id.clone(), operations, resume_command: Some(resume_command(&native_id, options)) })
}

/// `codex exec resume <id> "<prompt>"`, the headless resume Codex 0.171
/// accepts (`harness-lab.md` §4), with `CODEX_HOME` pointing into the target.
fn resume_command(id: &str, options: &WriteOptions) -> String {
    let codex_home = options.home_path.as_deref().map(|home| format!("{}/{CODEX_DIR}", home.trim_end_matches('/')));
    ResumeCommand::in_dir(options.cwd.as_deref())
        .env("CODEX_HOME", codex_home.as_deref())
        .program("codex")
        .arg(&format!("exec --skip-git-repo-check resume {id} \"<prompt>\""))
        .finish()
}

/// The state database of the target, relative to it: the highest
/// `state_<N>.sqlite` under `.codex`.
fn state_database(target: &Dir) -> Result<Option<String>, CodecError> {
    let entries = match target.list(CODEX_DIR) {
        Ok(entries) => entries,
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(CodecError::Io(format!("{CODEX_DIR}: {e}"))),
    };
    let names = entries.iter().filter(|e| e.is_file()).map(|e| e.name.as_str());
    Ok(layout::state_databases(names).into_iter().next().map(|(_, name)| layout::join(CODEX_DIR, &name)))
}

/// A `threads` column as the schema declares it.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    /// `NOT NULL` without a default: the row must fill it. Unknown when
    /// only the names could be read.
    pub needs_value: bool,
}

/// The columns of `threads` in `db`, checked against [`KNOWN_COLUMNS`].
pub fn threads_columns(target: &Dir, db: &str) -> Result<Vec<Column>, CodecError> {
    let database = Database::open(target, db).map_err(|e| target_sqlite_error(db, e))?;
    let columns = match table_info(&database) {
        Ok(columns) => columns,
        // A host may refuse pragmas with an argument (trajhost's read-only
        // authorizer allows `table_info` only without one); the column names
        // of an empty select are enough for the check.
        Err(_) => {
            let rows = database.query("SELECT * FROM threads LIMIT 0", &[]).map_err(|e| match e {
                SqliteError::Sqlite(m) if m.contains("no such table") => {
                    CodecError::Unsupported(format!("{db}: no threads table; unknown state database schema"))
                }
                e => target_sqlite_error(db, e),
            })?;
            rows.columns().into_iter().map(|name| Column { name, needs_value: false }).collect()
        }
    };
    if columns.is_empty() {
        return Err(CodecError::Unsupported(format!("{db}: no threads table; unknown state database schema")));
    }
    let unexpected: Vec<&str> =
        columns.iter().map(|c| c.name.as_str()).filter(|c| !KNOWN_COLUMNS.contains(c)).collect();
    let missing: Vec<&str> =
        REQUIRED_COLUMNS.iter().copied().filter(|r| !columns.iter().any(|c| c.name == *r)).collect();
    let unfilled: Vec<&str> = columns
        .iter()
        .filter(|c| c.needs_value && !FILLED.contains(&c.name.as_str()))
        .map(|c| c.name.as_str())
        .collect();
    if !unexpected.is_empty() || !missing.is_empty() || !unfilled.is_empty() {
        let mut parts = Vec::new();
        if !unexpected.is_empty() {
            parts.push(format!("unexpected columns: {}", unexpected.join(", ")));
        }
        if !missing.is_empty() {
            parts.push(format!("missing columns: {}", missing.join(", ")));
        }
        if !unfilled.is_empty() {
            parts.push(format!("NOT NULL columns without a default this codec does not fill: {}", unfilled.join(", ")));
        }
        return Err(CodecError::Unsupported(format!(
            "{db}: unknown threads schema ({}); nothing was planned — this codec knows the schema of Codex {}",
            parts.join("; "),
            crate::write::CLI_VERSION
        )));
    }
    Ok(columns)
}

/// `PRAGMA table_info(threads)` as columns.
fn table_info(database: &Database) -> Result<Vec<Column>, SqliteError> {
    let rows = database.query("PRAGMA table_info(threads)", &[])?;
    let names = rows.columns();
    let at = |name: &str| names.iter().position(|n| n == name);
    let (Some(name_at), Some(notnull_at), Some(default_at)) = (at("name"), at("notnull"), at("dflt_value")) else {
        return Err(SqliteError::Invalid("PRAGMA table_info(threads): unexpected result columns".into()));
    };
    let pk_at = at("pk");
    let mut columns = Vec::new();
    for row in rows.collect_all()? {
        let Some(Value::Text(name)) = row.get(name_at).cloned() else { continue };
        let not_null = matches!(row.get(notnull_at), Some(Value::Integer(n)) if *n != 0);
        let has_default = !matches!(row.get(default_at), Some(Value::Null) | None);
        let is_pk = pk_at.is_some_and(|i| matches!(row.get(i), Some(Value::Integer(n)) if *n != 0));
        columns.push(Column { name, needs_value: (not_null || is_pk) && !has_default });
    }
    Ok(columns)
}

/// Refuses a thread id the target already has.
fn check_not_registered(target: &Dir, db: &str, id: &str) -> Result<(), CodecError> {
    let database = Database::open(target, db).map_err(|e| target_sqlite_error(db, e))?;
    let rows = database
        .query("SELECT rollout_path FROM threads WHERE id = ?", &[Value::Text(id.to_string())])
        .map_err(|e| target_sqlite_error(db, e))?;
    let page = rows.next_page(1).map_err(|e| target_sqlite_error(db, e))?;
    if let Some(row) = page.rows.first() {
        let path = match row.first() {
            Some(Value::Text(p)) => p.clone(),
            _ => String::new(),
        };
        return Err(CodecError::Other(format!(
            "{db}: thread {id} is already registered (rollout_path {path:?}); trajhost never overwrites a session"
        )));
    }
    Ok(())
}

/// Columns the row fills (when the target has them).
const FILLED: &[&str] = &[
    "id",
    "rollout_path",
    "created_at",
    "updated_at",
    "created_at_ms",
    "updated_at_ms",
    "recency_at",
    "recency_at_ms",
    "source",
    "model_provider",
    "cwd",
    "title",
    "sandbox_policy",
    "approval_mode",
    "tokens_used",
    "has_user_event",
    "archived",
    "git_branch",
    "cli_version",
    "first_user_message",
    "memory_mode",
    "model",
    "thread_source",
    "preview",
    "history_mode",
    "is_pinned",
    "originator",
];

/// The `threads` row, as Codex 0.171 fills it for a thread it records
/// itself (see a fixture's `state_5.sqlite`), limited to the target's columns.
fn thread_row(db: &str, columns: &[Column], facts: &Facts, rollout_path: String) -> InsertRows {
    let first = facts.first_user_message.clone().unwrap_or_default();
    Row::new()
        .text("id", &facts.id)
        .text("rollout_path", &rollout_path)
        .int("created_at", facts.created_ms.div_euclid(1000))
        .int("updated_at", facts.updated_ms.div_euclid(1000))
        .int("created_at_ms", facts.created_ms)
        .int("updated_at_ms", facts.updated_ms)
        .int("recency_at", facts.updated_ms.div_euclid(1000))
        .int("recency_at_ms", facts.updated_ms)
        .text("source", &facts.source)
        .text("model_provider", &facts.model_provider)
        .text("cwd", &facts.cwd)
        .text("title", &first)
        .text("sandbox_policy", &facts.sandbox_policy)
        .text("approval_mode", &facts.approval_mode)
        .int("tokens_used", facts.tokens_used)
        .int("has_user_event", i64::from(facts.first_user_message.is_some()))
        .int("archived", 0)
        .opt_text("git_branch", facts.git_branch.as_deref())
        .text("cli_version", &facts.cli_version)
        .text("first_user_message", &first)
        .text("memory_mode", "enabled")
        .opt_text("model", facts.model.as_deref())
        .text("thread_source", "user")
        .text("preview", &first)
        .text("history_mode", "legacy")
        .int("is_pinned", 0)
        .opt_text("originator", facts.originator.as_deref())
        // Older schemas lack some columns: the row fills those the target has.
        .keep_columns(|name| columns.iter().any(|c| c.name == name))
        .insert_into(db, "threads")
}

/// What the row needs from the rollout.
#[derive(Debug, Default)]
struct Facts {
    id: String,
    created_ms: i64,
    updated_ms: i64,
    cwd: String,
    source: String,
    model_provider: String,
    cli_version: String,
    originator: Option<String>,
    git_branch: Option<String>,
    model: Option<String>,
    sandbox_policy: String,
    approval_mode: String,
    first_user_message: Option<String>,
    tokens_used: i64,
}

impl Facts {
    fn of(artifact: &Artifact) -> Result<Facts, CodecError> {
        let path = &artifact.path;
        let name_id = layout::check_locator(path)?;
        let malformed = |what: &str| CodecError::Malformed(format!("{path}: {what}"));
        let text = std::str::from_utf8(&artifact.bytes).map_err(|_| malformed("not UTF-8"))?;
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let first = lines.next().ok_or_else(|| malformed("empty rollout"))?;
        let env = native::envelope(first.as_bytes()).map_err(|_| malformed("first line is not JSON"))?;
        if env.kind.get() != Some("session_meta") {
            return Err(malformed("does not start with session_meta"));
        }
        let meta: SessionMeta<'_> = native::payload(env.payload).ok_or_else(|| malformed("unreadable session_meta"))?;
        let id = meta.thread_id().ok_or_else(|| malformed("session_meta has no id"))?.to_string();
        if !id.eq_ignore_ascii_case(name_id) {
            return Err(malformed(&format!("session_meta.id {id} differs from the file name's {name_id}")));
        }
        let created_ms = meta
            .timestamp
            .get()
            .and_then(parse_rfc3339)
            .or_else(|| env.timestamp.get().and_then(parse_rfc3339))
            .ok_or_else(|| malformed("session_meta has no timestamp"))?;
        let mut facts = Facts {
            id,
            created_ms,
            updated_ms: created_ms,
            cwd: meta.cwd.owned().ok_or_else(|| malformed("session_meta has no cwd"))?,
            source: source_text(meta.source),
            model_provider: meta.model_provider.owned().unwrap_or_else(|| crate::write::MODEL_PROVIDER.into()),
            cli_version: meta.cli_version.owned().unwrap_or_default(),
            originator: meta.originator.owned(),
            git_branch: meta.git.0.as_ref().and_then(|g| g.branch.clone()),
            sandbox_policy: String::new(),
            approval_mode: String::new(),
            ..Facts::default()
        };
        for line in lines {
            let Ok(env) = native::envelope(line.as_bytes()) else { continue };
            if let Some(ms) = env.timestamp.get().and_then(parse_rfc3339) {
                facts.updated_ms = facts.updated_ms.max(ms);
            }
            match env.kind.get() {
                Some("turn_context") => facts.turn_context(env.payload),
                Some("response_item") if facts.first_user_message.is_none() => {
                    let Some(item) = native::payload::<ResponseItem<'_>>(env.payload) else { continue };
                    if item.kind.get() == Some("message")
                        && item.role.get() == Some("user")
                        && !item.is_injected_context()
                    {
                        let text = native::join_text(item.content.0.as_deref().unwrap_or(&[]), "\n");
                        facts.first_user_message = Some(text).filter(|t| !t.is_empty());
                    }
                }
                Some("event_msg") => {
                    if let Some(event) = native::payload::<native::Event<'_>>(env.payload)
                        && event.kind.get() == Some("token_count")
                        && let Some(total) = event.info.0.as_ref().and_then(|i| i.total_token_usage.0)
                        && let Some(n) = total.total_tokens.0
                    {
                        facts.tokens_used = n;
                    }
                }
                _ => {}
            }
        }
        if facts.sandbox_policy.is_empty() {
            facts.sandbox_policy = r#"{"type":"read-only"}"#.into();
        }
        if facts.approval_mode.is_empty() {
            facts.approval_mode = "on-request".into();
        }
        Ok(facts)
    }

    fn turn_context(&mut self, payload: Option<&serde_json::value::RawValue>) {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Policies<'a> {
            #[serde(borrow)]
            approval_policy: native::Text<'a>,
            sandbox_policy: Option<&'a serde_json::value::RawValue>,
        }
        if let Some(ctx) = native::payload::<TurnContext<'_>>(payload)
            && let Some(model) = ctx.model.non_empty()
        {
            self.model = Some(model.to_string());
        }
        if let Some(p) = native::payload::<Policies<'_>>(payload) {
            if let Some(a) = p.approval_policy.non_empty() {
                self.approval_mode = a.to_string();
            }
            if let Some(raw) = p.sandbox_policy
                && let Ok(value) = serde_json::from_str::<serde_json::Value>(raw.get())
            {
                // Codex stores the policy as compact JSON.
                self.sandbox_policy = value.to_string();
            }
        }
    }
}

/// `session_meta.source` as the `threads.source` column holds it: the plain
/// string (`cli`, `exec`), or the JSON of an object source.
fn source_text(raw: Option<&serde_json::value::RawValue>) -> String {
    let Some(raw) = raw else { return crate::write::SOURCE.to_string() };
    match serde_json::from_str::<serde_json::Value>(raw.get()) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(value) => value.to_string(),
        Err(_) => crate::write::SOURCE.to_string(),
    }
}

/// Largest config file read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The model provider the target's Codex is configured with:
/// `.codex/config.toml`'s `model_provider` (the active `profile`'s first),
/// else Codex's default `openai`.
pub fn target_provider(target: &Dir) -> String {
    let path = layout::join(CODEX_DIR, "config.toml");
    let text = target
        .read_to_end(&path, MAX_CONFIG_BYTES)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_default();
    config_provider(&text).unwrap_or_else(|| crate::write::MODEL_PROVIDER.to_string())
}

/// `model_provider` of a Codex `config.toml`: a line-level reading of the
/// top-level keys `model_provider` and `profile`, and of the active
/// profile's table (`[profiles.<name>]`).
pub fn config_provider(toml: &str) -> Option<String> {
    let mut table = String::new();
    let mut top: Option<String> = None;
    let mut profile: Option<String> = None;
    let mut by_profile: Vec<(String, String)> = Vec::new();
    for line in toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            table = line.trim_start_matches('[').trim_end_matches(']').trim().to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, Some(value)) = (key.trim(), toml_string(value.trim())) else { continue };
        match (table.as_str(), key) {
            ("", "model_provider") => top = Some(value),
            ("", "profile") => profile = Some(value),
            (t, "model_provider") => {
                if let Some(name) = t.strip_prefix("profiles.") {
                    by_profile.push((name.trim_matches('"').to_string(), value));
                }
            }
            _ => {}
        }
    }
    profile
        .and_then(|p| by_profile.into_iter().find(|(name, _)| *name == p).map(|(_, v)| v))
        .or(top)
        .filter(|v| !v.is_empty())
}

/// A TOML basic or literal string value (a trailing comment allowed).
fn toml_string(value: &str) -> Option<String> {
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &value[1..];
    let end = rest.find(quote)?;
    Some(rest[..end].to_string())
}

/// The rollout with `session_meta.payload.model_provider` set to
/// `provider`; every other byte as written (key order kept).
pub fn with_model_provider(bytes: &[u8], provider: &str) -> Result<Vec<u8>, &'static str> {
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    let first = std::str::from_utf8(&bytes[..end]).map_err(|_| "first line is not UTF-8")?;
    let line = ordered(first).ok_or("first line is not a JSON object")?;
    let provider_json = serde_json::to_string(provider).map_err(|_| "provider")?;
    let mut found_payload = false;
    let mut entries = Vec::new();
    for (key, raw) in &line {
        if key == "payload" {
            found_payload = true;
            let mut payload: Vec<(String, String)> = ordered(raw.get())
                .ok_or("session_meta payload is not an object")?
                .into_iter()
                .map(|(k, v)| (k, v.get().to_string()))
                .collect();
            match payload.iter_mut().find(|(k, _)| k == "model_provider") {
                Some(entry) => entry.1 = provider_json.clone(),
                None => payload.push(("model_provider".into(), provider_json.clone())),
            }
            entries.push((key.clone(), object_text(&payload)));
        } else {
            entries.push((key.clone(), raw.get().to_string()));
        }
    }
    if !found_payload {
        return Err("session_meta has no payload");
    }
    let mut out = object_text(&entries).into_bytes();
    out.extend_from_slice(&bytes[end..]);
    Ok(out)
}

/// The entries of a JSON object in document order, values raw.
fn ordered(text: &str) -> Option<Vec<(String, &serde_json::value::RawValue)>> {
    struct Entries<'a>(Vec<(String, &'a serde_json::value::RawValue)>);
    impl<'de> Deserialize<'de> for Entries<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Entries<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Entries<'de>, A::Error> {
                    let mut entries = Vec::new();
                    while let Some((k, v)) = map.next_entry::<String, &'de serde_json::value::RawValue>()? {
                        entries.push((k, v));
                    }
                    Ok(Entries(entries))
                }
            }
            d.deserialize_map(V)
        }
    }
    serde_json::from_str::<Entries<'_>>(text).ok().map(|e| e.0)
}

fn object_text(entries: &[(String, String)]) -> String {
    let mut out = String::from("{");
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
        out.push(':');
        out.push_str(value);
    }
    out.push('}');
    out
}
