//! The log capability and the bounded plugin log that also receives a
//! codec's stdout and stderr.

use crate::PluginState;
use crate::wit::latest::log::{self as wit, Level};

impl wit::Host for PluginState {
    fn log(&mut self, level: Level, message: String) -> wasmtime::Result<()> {
        let message = sanitize(&message);
        match level {
            Level::Trace => tracing::trace!(plugin = %self.plugin, "{message}"),
            Level::Debug => tracing::debug!(plugin = %self.plugin, "{message}"),
            Level::Info => tracing::info!(plugin = %self.plugin, "{message}"),
            Level::Warn => tracing::warn!(plugin = %self.plugin, "{message}"),
            Level::Error => tracing::error!(plugin = %self.plugin, "{message}"),
        }
        self.log.push(&format!("{level:?}: {message}"));
        Ok(())
    }
}

/// Removes terminal control sequences and other control characters from
/// plugin output before anyone displays it.
pub fn sanitize(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\n' && c != '\t' { '\u{fffd}' } else { c }).collect()
}

/// A size-bounded log: keeps the first bytes and counts what it dropped.
#[derive(Debug, Default)]
pub struct PluginLog {
    text: String,
    cap: usize,
    dropped: usize,
}

impl PluginLog {
    pub fn new(cap: usize) -> PluginLog {
        PluginLog { text: String::new(), cap, dropped: 0 }
    }

    pub fn push(&mut self, line: &str) {
        let room = self.cap.saturating_sub(self.text.len());
        if line.len() < room {
            self.text.push_str(line);
            self.text.push('\n');
        } else {
            self.dropped += line.len() + 1;
        }
    }

    /// The log, sanitized, with a note of what did not fit.
    pub fn contents(&self) -> String {
        let mut out = sanitize(&self.text);
        if self.dropped > 0 {
            out.push_str(&format!("[{} more bytes of plugin log dropped]\n", self.dropped));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_escape_sequences() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{7}"), "a\u{fffd}[31mred\u{fffd}");
    }

    #[test]
    fn log_is_bounded() {
        let mut log = PluginLog::new(10);
        log.push("12345");
        log.push("123456789");
        assert_eq!(log.contents(), "12345\n[10 more bytes of plugin log dropped]\n");
    }
}
