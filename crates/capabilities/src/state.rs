//! What one codec instance's store holds.

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::output::CapturedOutput;
use crate::limits::Limits;
use crate::log::PluginLog;
use crate::sqlite::SharedDeadline;

/// Counters of capability use during one operation, for tests and
/// `plugin test`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CapabilityStats {
    pub list_calls: u64,
    pub entries_listed: u64,
    pub stat_calls: u64,
    pub opens: u64,
    pub bytes_read: u64,
    pub sql_queries: u64,
}

/// Enforces the memory cap and remembers whether it was hit and the peak.
pub struct MemoryLimiter {
    max_memory: usize,
    pub hit: bool,
    pub peak: usize,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.hit = true;
            wasmtime::bail!("memory limit of {} bytes reached", self.max_memory);
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > 1_000_000 {
            self.hit = true;
            wasmtime::bail!("table limit of 1000000 elements reached");
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        32
    }

    fn tables(&self) -> usize {
        64
    }

    fn memories(&self) -> usize {
        8
    }
}

/// The store data of one codec instance.
pub struct PluginState {
    /// `harness@version`, for messages.
    pub plugin: String,
    pub table: ResourceTable,
    wasi: WasiCtx,
    pub limits: Limits,
    pub limiter: MemoryLimiter,
    pub log: PluginLog,
    stdout: CapturedOutput,
    stderr: CapturedOutput,
    pub deadline: SharedDeadline,
    pub stats: CapabilityStats,
    pub open_databases: usize,
    pub target: crate::target::TargetState,
    /// Set while the archive records what a read opens.
    pub recorder: Option<crate::evidence::Recorder>,
    /// Recorded databases served instead of real ones (an archived session).
    pub replay: Option<std::sync::Arc<crate::evidence::Replay>>,
}

impl PluginState {
    /// An empty WASI context: no preopens, no environment, no arguments, no
    /// network, empty stdin; stdout and stderr go to bounded buffers.
    pub fn new(plugin: String, limits: Limits) -> PluginState {
        let stdout = CapturedOutput::new(limits.plugin_log_bytes);
        let stderr = CapturedOutput::new(limits.plugin_log_bytes);
        let wasi = WasiCtx::builder().stdout(stdout.clone()).stderr(stderr.clone()).build();
        PluginState {
            plugin,
            table: ResourceTable::new(),
            wasi,
            limiter: MemoryLimiter { max_memory: limits.memory_bytes, hit: false, peak: 0 },
            log: PluginLog::new(limits.plugin_log_bytes),
            limits,
            stdout,
            stderr,
            deadline: SharedDeadline::new(),
            stats: CapabilityStats::default(),
            open_databases: 0,
            target: Default::default(),
            recorder: None,
            replay: None,
        }
    }

    /// The log calls plus captured stdout/stderr, sanitized.
    pub fn plugin_log(&self) -> String {
        let mut out = self.log.contents();
        for (name, pipe) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            let (bytes, dropped) = pipe.contents();
            if !bytes.is_empty() {
                out.push_str(&format!("[{name}]\n"));
                let text = super::messages::without_backtrace_note(&String::from_utf8_lossy(&bytes));
                out.push_str(&crate::log::sanitize(&text));
            }
            if dropped > 0 {
                out.push_str(&format!("\n[{dropped} more bytes of {name} dropped]\n"));
            }
        }
        out
    }
}

impl WasiView for PluginState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}
