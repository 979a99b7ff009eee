//! The `state.db` schema of hermes-agent 0.19.0 (`SCHEMA_VERSION` 22), as a
//! fresh `SessionDB` creates it: every `CREATE` statement SQLite records in
//! `sqlite_master` for such a database, in its order (the FTS5 tables'
//! shadow tables, `sqlite_sequence` and the automatic indexes are created by
//! SQLite itself). `user_version` stays 0: Hermes keeps its version in the
//! `schema_version` table.

/// The triggers that keep `messages_fts` and `messages_fts_trigram` in step
/// with `messages` (Hermes' `_FTS_TRIGGERS`).
pub const FTS_TRIGGERS: &[&str] = &[
    "messages_fts_insert",
    "messages_fts_delete",
    "messages_fts_update",
    "messages_fts_trigram_insert",
    "messages_fts_trigram_delete",
    "messages_fts_trigram_update",
];

/// The statements of a database `prepare` creates: all but the FTS
/// triggers. trajhost builds a new database under an authorizer that
/// refuses what FTS5 runs inside a trigger (`PRAGMA data_version`), so the
/// rows go in without them; Hermes' `SessionDB` finds fewer triggers than
/// `FTS_TRIGGERS` when it opens the database, creates them with the same
/// text and rebuilds both FTS indexes from `messages` (its repair after a
/// runtime without FTS5). From Hermes' first start on the database is the
/// one it creates itself.
pub fn new_database_statements() -> Vec<String> {
    STATEMENTS
        .iter()
        .filter(|s| !FTS_TRIGGERS.iter().any(|t| s.starts_with(&format!("CREATE TRIGGER {t} "))))
        .map(|s| s.to_string())
        .collect()
}

/// `schema_version.version` of the tested Hermes.
pub const SCHEMA_VERSION: i64 = 22;

/// The statements, in `sqlite_master` order.
pub const STATEMENTS: &[&str] = &[
    r#"CREATE TABLE schema_version (
    version INTEGER NOT NULL
)"#,
    r#"CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
)"#,
    r#"CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0,
    api_content TEXT
)"#,
    r#"CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
)"#,
    r#"CREATE TABLE state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
)"#,
    r#"CREATE TABLE gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
)"#,
    r#"CREATE TABLE compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
)"#,
    r#"CREATE TABLE async_delegations (
    delegation_id TEXT PRIMARY KEY,
    origin_session TEXT NOT NULL,
    origin_ui_session_id TEXT NOT NULL DEFAULT '',
    parent_session_id TEXT,
    state TEXT NOT NULL,
    dispatched_at REAL NOT NULL,
    completed_at REAL,
    updated_at REAL NOT NULL,
    event_json TEXT,
    result_json TEXT,
    delivery_state TEXT NOT NULL DEFAULT 'pending',
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at REAL,
    owner_pid INTEGER,
    owner_started_at INTEGER,
    task_json TEXT,
    delivery_claim TEXT,
    delivery_claimed_at REAL
)"#,
    r#"CREATE INDEX idx_sessions_source ON sessions(source)"#,
    r#"CREATE INDEX idx_sessions_source_id ON sessions(source, id)"#,
    r#"CREATE INDEX idx_sessions_parent ON sessions(parent_session_id)"#,
    r#"CREATE INDEX idx_sessions_started ON sessions(started_at DESC)"#,
    r#"CREATE INDEX idx_messages_session ON messages(session_id, timestamp)"#,
    r#"CREATE INDEX idx_compression_locks_expires ON compression_locks(expires_at)"#,
    r#"CREATE INDEX idx_session_model_usage_session ON session_model_usage(session_id)"#,
    r#"CREATE INDEX idx_session_model_usage_model ON session_model_usage(model)"#,
    r#"CREATE INDEX idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at)"#,
    r#"CREATE INDEX idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL"#,
    r#"CREATE INDEX idx_messages_session_active
    ON messages(session_id, active, timestamp)"#,
    r#"CREATE INDEX idx_messages_active_null
    ON messages(active) WHERE active IS NULL"#,
    r#"CREATE INDEX idx_sessions_session_key
    ON sessions(session_key, started_at DESC)"#,
    r#"CREATE INDEX idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC)"#,
    r#"CREATE INDEX idx_sessions_handoff_state
    ON sessions(handoff_state, started_at)"#,
    r#"CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL"#,
    r#"CREATE VIRTUAL TABLE messages_fts USING fts5(
    content
)"#,
    r#"CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END"#,
    r#"CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END"#,
    r#"CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END"#,
    r#"CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
    content,
    tokenize='trigram'
)"#,
    r#"CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END"#,
    r#"CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END"#,
    r#"CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END"#,
];

/// Every `sessions` column of schema 22, in table order.
pub const SESSIONS_COLUMNS: &[&str] = &[
    "id",
    "source",
    "user_id",
    "session_key",
    "chat_id",
    "chat_type",
    "thread_id",
    "display_name",
    "origin_json",
    "expiry_finalized",
    "model",
    "model_config",
    "system_prompt",
    "parent_session_id",
    "started_at",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cwd",
    "git_branch",
    "git_repo_root",
    "billing_provider",
    "billing_base_url",
    "billing_mode",
    "estimated_cost_usd",
    "actual_cost_usd",
    "cost_status",
    "cost_source",
    "pricing_version",
    "title",
    "api_call_count",
    "handoff_state",
    "handoff_platform",
    "handoff_error",
    "compression_failure_cooldown_until",
    "compression_failure_error",
    "compression_fallback_streak",
    "profile_name",
    "rewind_count",
    "archived",
];

/// Every `messages` column of schema 22, in table order.
pub const MESSAGES_COLUMNS: &[&str] = &[
    "id",
    "session_id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "effect_disposition",
    "timestamp",
    "token_count",
    "finish_reason",
    "reasoning",
    "reasoning_content",
    "reasoning_details",
    "codex_reasoning_items",
    "codex_message_items",
    "platform_message_id",
    "observed",
    "active",
    "compacted",
    "api_content",
];
