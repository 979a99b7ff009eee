//! What makes this codec OpenCode's rather than a fork's: where the store
//! and the import documents live, the CLI and its config, the version and
//! agent a written session claims, and how `sniff` tells the two stores apart.
//!
//! Every other module reads these through `crate::flavor`, so the codec of an
//! OpenCode fork whose store has the same tables (Kilo Code:
//! `plugins/kilo-code`) compiles these same modules (`#[path]`) with a
//! `flavor` of its own. It cannot depend on this crate instead: a codec
//! crate exports its component (`export_codec!`), and the guests' LTO would
//! link both crates' exports and custom sections into one component.

/// This crate's codec, the type [`crate::codec`] implements `Codec` for.
pub type This = crate::OpenCode;

/// The store, relative to the home.
pub const DB: &str = ".local/share/opencode/opencode.db";
/// Where `prepare` puts import documents, relative to the home.
pub const IMPORT_DIR: &str = ".local/share/trajhost/opencode-import";
/// The global config, relative to the home (its `model` is the default).
pub const CONFIG: &str = ".config/opencode/opencode.json";
/// The CLI, as the resume command runs it.
pub const CLI: &str = "opencode";
/// The version a written document claims when the source is another
/// harness: the one its import was verified against.
pub const WRITTEN_VERSION: &str = "1.18.33";
/// The agent (and mode) of written messages: OpenCode's default agent.
pub const AGENT: &str = "build";
/// What `info().native_version_source` says.
pub const VERSION_SOURCE: &str = "`session.version` column (the OpenCode version that created the session)";
/// Tables only a fork's store has: a database holding one is not OpenCode's.
pub const FOREIGN_TABLES: &[&str] = &["kilo_board"];
/// Tables a store of this flavor has besides OpenCode's (none: it is OpenCode).
pub const OWN_TABLES: &[&str] = &[];

/// Whether an import document whose `info.version` is `version` is this
/// flavor's: OpenCode's 0.x and 1.x, or none said (a fork's documents say
/// their own version).
pub fn owns_version(version: Option<&str>) -> bool {
    version.is_none_or(|v| matches!(v.trim_start_matches('v').split('.').next(), Some("0" | "1")))
}
