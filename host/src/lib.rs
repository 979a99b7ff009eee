//! # trajhost
//!
//! Finds, reads and converts the native session history of coding-agent
//! harnesses. Each harness's format is handled by a codec: a sandboxed
//! WebAssembly component that speaks the `trajhost:codec` WIT API and
//! reaches files and SQLite only through the host.
//!
//! The work is done by library crates with one job each (ARCHITECTURE.md
//! draws the arrows); this crate is the command line over them. Its library
//! names them under one roof for the integration tests and the bench:
//!
//! - `wit`, `capabilities`, `limits`: `trajhost-capabilities`;
//! - `runtime`, `error`: `trajhost-runtime`;
//! - `registry`, `catalog`, `ledger`, `conformance`, `scaffold`:
//!   `trajhost-registry`;
//! - `inventory`, `homes`, `packed`, `redaction`, `digest`,
//!   `target_version`: `trajhost-inventory`;
//! - `convert`, `trajectory`, `resume`: `trajhost-convert`;
//! - `install`: `trajhost-install`;
//! - `archive`: `trajhost-archive`;
//! - `view`, `browse`: `trajhost-view`.

pub use trajhost_archive as archive;
pub use trajhost_archive::fuzzing;
pub use trajhost_canonical as canonical;
pub use trajhost_canonical::time;
pub use trajhost_capabilities as capabilities;
pub use trajhost_capabilities::{limits, wit};
pub use trajhost_convert as convert;
pub use trajhost_convert::{resume, trajectory};
pub use trajhost_install as install;
pub use trajhost_inventory as inventory;
pub use trajhost_inventory::{digest, homes, packed, redaction, target_version};
pub use trajhost_registry as registry;
pub use trajhost_registry::{catalog, conformance, default_data_dir, ledger, scaffold, uncovered};
pub use trajhost_runtime as runtime;
pub use trajhost_runtime::error;
pub use trajhost_runtime::{HostError, LimitKind, Limits, Operation, Result};
pub use trajhost_view as view;
pub use trajhost_view::browse;
