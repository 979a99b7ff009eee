//! Limits on every codec call. Defaults suit an interactive CLI; every field
//! can be changed through [`Limits`] (and the CLI's `--limit-*` flags).

use std::time::Duration;

/// Resource limits applied to each codec instance and each call into it.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall-clock budget of one call into a codec (epoch deadline). A
    /// SQLite query made during the call shares the same deadline.
    pub call_timeout: Duration,
    /// Linear memory a codec instance may grow to.
    pub memory_bytes: usize,
    /// Maximum wasm stack.
    pub wasm_stack_bytes: usize,
    /// Largest `length` accepted by one `file.read` call.
    pub max_read_bytes: u32,
    /// Most entries one `dir.list` call returns.
    pub max_list_entries: usize,
    /// Largest batch of records a codec may return from one call.
    pub max_batch_bytes: usize,
    /// Largest total size of artifacts or plan operations returned by write/prepare.
    pub max_output_bytes: usize,
    /// Bytes of captured stdout/stderr/log kept per instance.
    pub plugin_log_bytes: usize,
    /// Largest result a SQLite query may buffer on the host.
    pub sqlite_max_result_bytes: usize,
    /// Open databases per instance.
    pub sqlite_max_connections: usize,
    /// Largest `.wasm` accepted by `plugin install`.
    pub max_component_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            call_timeout: Duration::from_secs(30),
            memory_bytes: 1 << 30,
            wasm_stack_bytes: 1 << 20,
            max_read_bytes: 16 << 20,
            max_list_entries: 200_000,
            max_batch_bytes: 256 << 20,
            max_output_bytes: 1 << 30,
            plugin_log_bytes: 64 << 10,
            sqlite_max_result_bytes: 256 << 20,
            sqlite_max_connections: 16,
            max_component_bytes: 64 << 20,
        }
    }
}
