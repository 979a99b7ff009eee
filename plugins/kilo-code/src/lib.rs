//! trajhost codec for the Kilo Code CLI (`@kilocode/cli` 7.x, `kilo`), an
//! OpenCode fork: its SQLite store `~/.local/share/kilo/kilo.db` has OpenCode
//! 1.18's tables (`session`, `message`, `part`, the event log…) plus Kilo's
//! `kilo_board` and `kilo_board_message`, and `session.version` is the Kilo
//! version (7.7.7). `kilo export` prints OpenCode's export document and
//! `kilo import <file>` loads one.
//!
//! So this crate is OpenCode's codec (`plugins/opencode`) with another
//! [`flavor`]: its modules are compiled here from `plugins/opencode/src`
//! (`#[path]`), and everything that differs (store and import paths, the CLI
//! in the resume command, the config holding the default model, the version
//! and agent a written session claims, the `kilo_board` table `sniff` looks
//! for) comes from [`flavor`], as OpenCode's own comes from its `flavor.rs`.
//! A codec crate cannot depend on another codec crate: both export a
//! component (`export_codec!`), and the guest build's LTO would link the two
//! exports and their `trajhost:sdk`/`trajhost:writes-for` sections into one.
//!
//! - reads `kilo.db` sessions (locator `.local/share/kilo/kilo.db#<ses id>`)
//!   and the import documents `prepare` installed but `kilo import` has not
//!   loaded yet (`.local/share/trajhost/kilo-import/<ses id>.json`);
//! - writes an import document (OpenCode's export JSON, `version` 7.7.7,
//!   agent `code`), and `prepare` plans it as one file; the resume command
//!   is `cd <cwd> && kilo import <file> && kilo --session <id>`.
//!
//! What the modules do is documented in `plugins/opencode/src` (and the read
//! mapping in its `read.rs`).

#[path = "../../opencode/src/codec.rs"]
pub mod codec;
#[path = "../../opencode/src/discover.rs"]
pub mod discover;
pub mod flavor;
pub use trajhost_opencode_core::ids;
#[path = "../../opencode/src/layout.rs"]
pub mod layout;
#[path = "../../opencode/src/prepare.rs"]
pub mod prepare;
#[path = "../../opencode/src/read.rs"]
pub mod read;
#[path = "../../opencode/src/sniff.rs"]
pub mod sniff;
#[path = "../../opencode/src/store.rs"]
pub mod store;
#[path = "../../opencode/src/time.rs"]
pub mod time;
#[path = "../../opencode/src/write.rs"]
pub mod write;

/// The harness id.
pub const HARNESS: &str = "kilo-code";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("kilo-code@", env!("CARGO_PKG_VERSION"));
/// Kilo Code CLI versions whose store this codec reads: 7.x, the CLI built on
/// OpenCode (verified with 7.7.7; the schema is checked on every open).
pub const NATIVE_VERSIONS: &str = ">=7.0.0, <8.0.0";
/// The format read.
pub const READS: &str = "kilo-code-sqlite";
/// The format written: OpenCode's import document, which `kilo import` loads.
pub const WRITES: &str = "kilo-code-import-json";

// OpenCode's record types and their handling: Kilo's messages and parts are OpenCode's.
pub use trajhost_opencode_core::{Handling, KNOWN_RECORD_TYPES, handling, type_name};

/// The Kilo Code CLI codec.
pub struct KiloCode;

trajhost_codec_sdk::export_codec!(KiloCode);
