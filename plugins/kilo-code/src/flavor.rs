//! What makes this codec Kilo Code's: the store and import folder under
//! `kilo`, the `kilo` CLI and its config, Kilo's versions and default agent,
//! and the `kilo_board` table that tells its store from OpenCode's. The other
//! modules are OpenCode's, which read all of this through `crate::flavor`.

/// This crate's codec, the type `codec` implements `Codec` for.
pub type This = crate::KiloCode;

/// The store, relative to the home.
pub const DB: &str = ".local/share/kilo/kilo.db";
/// Where `prepare` puts import documents, relative to the home.
pub const IMPORT_DIR: &str = ".local/share/trajhost/kilo-import";
/// The global config, relative to the home (its `model` is the default).
pub const CONFIG: &str = ".config/kilo/kilo.json";
/// The CLI, as the resume command runs it.
pub const CLI: &str = "kilo";
/// The version a written document claims when the source is another
/// harness: the one `kilo import` was verified with in the lab.
pub const WRITTEN_VERSION: &str = "7.7.7";
/// The agent (and mode) of written messages: Kilo's default agent (OpenCode's
/// `build`), as 7.7.7 records it.
pub const AGENT: &str = "code";
/// What `info().native_version_source` says.
pub const VERSION_SOURCE: &str = "`session.version` column (the Kilo Code CLI version that created the session)";
/// Tables of other stores with the same schema (none known).
pub const FOREIGN_TABLES: &[&str] = &[];
/// Tables Kilo's store has besides OpenCode's: a database without them is
/// OpenCode's.
pub const OWN_TABLES: &[&str] = &["kilo_board"];

/// Whether an import document whose `info.version` is `version` is Kilo's:
/// 7.x (the OpenCode-based CLI), which a document must say (OpenCode's say 0.x
/// or 1.x, or nothing).
pub fn owns_version(version: Option<&str>) -> bool {
    version.is_some_and(|v| v.trim_start_matches('v').split('.').next() == Some("7"))
}
