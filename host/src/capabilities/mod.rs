//! What a codec can reach: read-only directories, read-only SQLite, a
//! log, and the user's choices for a target. Each module implements one imported WIT interface for
//! [`PluginState`](crate::runtime::PluginState).

pub mod evidence;
pub mod fs;
pub mod log;
pub mod sqlite;
pub mod target;

// The shared `types` interface has no functions.
impl crate::wit::latest::types::Host for crate::runtime::PluginState {}
