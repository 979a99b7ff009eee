//! # trajhost
//!
//! Finds, reads and converts the native session history of coding-agent
//! harnesses. Each harness's format is handled by a codec: a sandboxed
//! WebAssembly component that speaks the `trajhost:codec` WIT API and
//! reaches files and SQLite only through this host.
//!
//! Modules, one job each:
//! - [`wit`]: bindings of every supported API version;
//! - [`runtime`]: the wasmtime engine, linker, limits and compiled cache;
//! - [`capabilities`]: the read-only fs, SQLite and log imports;
//! - [`registry`]: installed codecs (content-addressed blobs + index);
//! - [`catalog`]: built-ins + installed codecs and codec selection;
//! - [`inventory`]: discovery and session resolution across harnesses;
//! - [`convert`]: export a session to another harness, with a fidelity report;
//! - [`install`]: validate and apply a codec's install plan, all or nothing,
//!   also across a kill (journal + recovery);
//! - [`archive`]: the embedded archive (sessions, records, raw evidence,
//!   full-text index), incremental sync and the watcher;
//! - [`view`]: one session as a self-contained HTML page.

pub mod archive;
pub mod browse;
pub mod capabilities;
pub mod catalog;
pub mod conformance;
pub mod convert;
pub mod digest;
pub mod error;
pub mod fuzzing;
pub mod homes;
pub mod install;
pub mod inventory;
pub mod ledger;
pub mod limits;
pub mod packed;
pub mod redaction;
pub mod registry;
pub mod resume;
pub mod runtime;
pub mod scaffold;
pub mod target_version;
pub mod time;
pub mod trajectory;
pub mod uncovered;
pub mod view;
pub mod wit;

pub use error::{HostError, LimitKind, Operation, Result};
pub use limits::Limits;
pub use trajhost_canonical as canonical;

use std::path::PathBuf;

/// The trajhost data directory: `$TRAJHOST_HOME`, else
/// `$XDG_DATA_HOME/trajhost`, else `~/.local/share/trajhost`.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TRAJHOST_HOME") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME") {
        return PathBuf::from(dir).join("trajhost");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".local").join("share").join("trajhost")
}
