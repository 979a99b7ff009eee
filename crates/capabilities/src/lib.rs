//! # trajhost-capabilities
//!
//! What a sandboxed codec can reach, and the bindings it reaches them
//! through: the WIT bindings of every supported API version ([`wit`]), the
//! per-instance state ([`PluginState`]) and the imports it serves —
//! read-only directories, read-only SQLite, a log, and the user's choices
//! for a target. Each capability module implements one imported WIT
//! interface for [`PluginState`]. The engine that runs codecs is
//! `trajhost-runtime`, one layer up.

pub mod evidence;
pub mod fs;
pub mod limits;
pub mod log;
pub mod messages;
pub mod output;
pub mod sqlite;
pub mod state;
pub mod target;
pub mod wit;

pub use limits::Limits;
pub use state::{CapabilityStats, MemoryLimiter, PluginState};

// The shared `types` interface has no functions.
impl crate::wit::latest::types::Host for crate::PluginState {}
