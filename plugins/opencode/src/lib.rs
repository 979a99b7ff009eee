//! trajhost codec for OpenCode (`opencode-ai`, sst/opencode, now
//! anomalyco/opencode): discovers and reads the sessions of OpenCode's
//! SQLite store `~/.local/share/opencode/opencode.db` (tables `session`,
//! `message`, `part`) through the host's read-only SQLite capability, writes
//! canonical sessions as OpenCode import documents, and plans their
//! installation.
//!
//! Module map:
//! - [`layout`]: the store, locators (`<db>#<session id>`), where import documents go;
//! - [`store`]: the schema check (required columns fail closed, optional ones are noted) and the session rows;
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the batch reader and the mapping of messages and parts
//!   (see its table), including what `src` means for rows;
//! - [`write`]: canonical records → an import document; [`ids`]: OpenCode ids;
//! - [`prepare`]: the plan (one file) and the resume command;
//! - [`codec`]: the `Codec` implementation; [`flavor`]: what is OpenCode's
//!   own (paths, CLI, versions), which a fork's codec (`plugins/kilo-code`)
//!   replaces while compiling these same modules.
//!
//! ## Why an import document, not rows in `opencode.db`
//!
//! The WIT contract allows both: `insert-rows` into the target's database, or
//! a file the harness loads. This codec writes the JSON document of
//! `opencode export`, installed by `opencode import <file>` (run by the
//! resume command), because:
//!
//! 1. **The real CLI accepts it.** The lab's loader check for OpenCode 1.18.33
//!    passed through `opencode import` (harness-lab.md §5): a rewritten
//!    export, imported into a fresh home, was sent back to the model on
//!    `opencode run --session`. Direct inserts were never verified.
//! 2. **A fresh home has no database.** `insert-rows` needs the database to
//!    exist, and OpenCode creates it (38 migrations by 1.18.33) on its first
//!    run; `opencode import` creates and migrates it.
//! 3. **Rows need facts the sandbox cannot know.** `session.project_id` is
//!    the git root commit of the cwd (or `global`), and a `project` row must
//!    exist; `opencode import` sets the project, `directory` and `path` from
//!    the cwd it runs in. It also validates the document with OpenCode's own
//!    schemas, so a drift in the message or part shapes fails loudly there
//!    instead of leaving rows OpenCode cannot load.
//! 4. **The schema drifts.** Besides `session`/`message`/`part`, 1.18 keeps an
//!    event log (`event`, `event_sequence`) and newer trees add
//!    `session_message`; the import path is what OpenCode maintains across
//!    those changes.
//!
//! The cost: installing is two steps (`prepare` creates the file, the resume
//! command imports it), and until it runs the session is not in the store.
//!
//! Natively (tests) the codec runs without the sandbox:
//! `trajhost_codec_sdk::read_all::<OpenCode>(Dir::native(home), locator, options, sink)`.

pub mod codec;
pub mod discover;
pub mod flavor;
pub use trajhost_opencode_core::ids;
pub mod layout;
pub mod prepare;
pub mod read;
pub mod sniff;
pub mod store;
pub mod time;
pub mod write;

/// The harness id (shared with the other OpenCode codec).
pub use trajhost_opencode_core::HARNESS;
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("opencode@", env!("CARGO_PKG_VERSION"));
/// OpenCode versions whose SQLite store this codec reads (the store replaced
/// the JSON `storage/` tree in 1.x; the schema is checked on every open).
pub const NATIVE_VERSIONS: &str = ">=1.0.0, <2.0.0";
/// The format read.
pub const READS: &str = "opencode-sqlite";
/// The format written.
pub const WRITES: &str = "opencode-import-json";

// The record types and their handling, shared with the other OpenCode codec.
pub use trajhost_opencode_core::{Handling, KNOWN_RECORD_TYPES, handling, type_name};

/// The OpenCode codec.
pub struct OpenCode;

trajhost_codec_sdk::export_codec!(OpenCode);
