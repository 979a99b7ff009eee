//! `trajhost-bench --redaction`: what masking secrets costs a read. `read
//! FILE --json` with and without `--redact`, on the 48 MB generated Claude
//! Code session the casr comparison uses and on the real-shaped one (lines
//! of the lab fixtures), alternating runs, medians; then the redactor alone
//! over the same records, in process. The goal: redaction within 10 % of
//! the read without it.

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use trajhost::redaction::{Counts, Redactor};

use crate::corpus::Format;
use crate::{BenchError, Options, Result, Row, cli_child, goals, secs};

/// The goal: `read --redact` ÷ `read`.
pub const GOAL_RATIO: f64 = 1.10;

pub fn run(options: &Options, progress: &dyn Fn(&str)) -> Result<Vec<Row>> {
    progress("generating the 48 MB Claude Code sessions");
    let generated = crate::generate(options, Format::ClaudeCode, 48)?;
    let real = goals::real_shaped_claude(&options.fixtures, &options.work_dir.join("real-shaped"), 48_000_000)?;
    let mut rows = Vec::new();
    for (label, session) in [("generated", &generated), ("real lines", &real)] {
        progress(&format!("read --json with and without --redact: {label}"));
        let plain_args = [OsStr::new("read"), session.path.as_os_str(), OsStr::new("--json")];
        let masked_args = [&plain_args[..], &[OsStr::new("--redact")]].concat();
        // One of each first: the codec compiled, the file in the page cache.
        cli_child(options, &plain_args)?;
        cli_child(options, &masked_args)?;
        let (mut plain, mut masked): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
        for _ in 0..goals::RUNS {
            plain.push(cli_child(options, &plain_args)?.elapsed);
            masked.push(cli_child(options, &masked_args)?.elapsed);
        }
        let (plain, masked) = (median(plain), median(masked));
        let ratio = secs(masked) / secs(plain);
        let mib = session.bytes as f64 / (1 << 20) as f64;
        rows.push(
            Row::new(
                format!("read claude-code ({label}) {mib:.1} MiB --redact (median of {})", goals::RUNS),
                format!("{:.3} s", secs(masked)),
            )
            .reference(format!("without --redact {:.3} s", secs(plain)), Some(ratio))
            .target(format!("ratio ≤ {GOAL_RATIO:.2}"), ratio <= GOAL_RATIO),
        );
        // The redactor alone over the canonical records the read produced.
        let records = std::process::Command::new(&options.exe)
            .arg("--data-dir")
            .arg(options.work_dir.join("data"))
            .args(plain_args)
            .env("TRAJHOST_CACHE_DIR", &options.cache_dir)
            .output()
            .map_err(|e| BenchError::io(&options.exe, e))?
            .stdout;
        let records = String::from_utf8_lossy(&records).into_owned();
        let redactor = Redactor::builtin();
        let mut counts = Counts::default();
        let started = Instant::now();
        let mut changed = 0;
        for line in records.lines() {
            changed += matches!(redactor.redact_line(line, &mut counts), std::borrow::Cow::Owned(_)) as usize;
        }
        let took = started.elapsed();
        rows.push(
            Row::new(
                format!("  the redactor alone over its {} records ({changed} masked)", records.lines().count()),
                format!("{:.3} s ({:.0} MB/s)", secs(took), records.len() as f64 / 1e6 / secs(took)),
            )
            .reference(format!("{} secrets found", counts.total()), None),
        );
    }
    Ok(rows)
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}
