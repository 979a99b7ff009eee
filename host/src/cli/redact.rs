//! `--redact` / `--no-redact`, shared by every command that lets session
//! content out, and the one stderr line that says what was masked.

use std::path::Path;

use anyhow::Context as _;
use trajhost::archive::config::{Config, config_path};
use trajhost::redaction::{Counts, Redactor, Sink};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct RedactFlags {
    /// Mask secrets as [REDACTED:<rule>] (docs/redaction.md) where this command does not by default.
    #[arg(long, conflicts_with = "no_redact")]
    pub redact: bool,
    /// Keep secrets as they are where this command masks them by default (said on stderr).
    #[arg(long)]
    pub no_redact: bool,
}

impl RedactFlags {
    /// Whether `sink` redacts under these flags.
    pub fn applies(&self, sink: Sink) -> bool {
        self.redact || (!self.no_redact && sink.on_by_default())
    }

    /// The redactor for `sink` (the built-in rules plus `[redact]` of
    /// DATA_DIR/config.toml), or `None` when it does not redact.
    pub fn redactor(&self, data_dir: &Path, sink: Sink) -> anyhow::Result<Option<Redactor>> {
        if self.no_redact && sink.on_by_default() {
            eprintln!("note: --no-redact: secrets in this output are not masked");
        }
        if !self.applies(sink) {
            return Ok(None);
        }
        let config = Config::load(data_dir)?;
        let redactor = trajhost::redaction::redactor(&config.redact)
            .with_context(|| format!("[redact] in {}", config_path(data_dir).display()))?;
        Ok(Some(redactor))
    }
}

/// `--redact` of convert, prepare and continue: off by default, since the
/// session stays the user's own (a handoff between their harnesses).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct HandoffRedact {
    /// Mask secrets as [REDACTED:<rule>] in what is written (docs/redaction.md; off by default: your own handoff).
    #[arg(long)]
    pub redact: bool,
}

impl HandoffRedact {
    pub fn redactor(&self, data_dir: &Path) -> anyhow::Result<Option<Redactor>> {
        RedactFlags { redact: self.redact, no_redact: false }.redactor(data_dir, Sink::Handoff)
    }
}

/// `redacted 3 secrets: aws-access-token ×2, …` on stderr, when any were.
pub fn report(counts: &Counts) {
    if let Some(line) = trajhost::redaction::summary(counts) {
        eprintln!("{line}");
    }
}
