//! Sync into the embedded archive as the session grows: peak RSS of a
//! first sync of a home holding one Claude Code session of each size in
//! `--rss-mb` (the goal: flat, and ≤ 150 MiB at 200 MB), and the bytes a
//! sync parses after one line was appended (the goal: O(appended bytes)).

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::corpus::{self, Format};
use crate::{BenchError, ChildRun, Options, Result, Row, mib, run_child, secs};

/// One row per size for the first sync, one for the sync after an append.
pub fn rows(options: &Options, progress: &dyn Fn(&str)) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let mut peaks: Vec<u64> = Vec::new();
    for &size in &options.rss_mb {
        progress(&format!("peak RSS: sync a home of one claude-code {size} MB session"));
        // A home of its own: the session gains a line below.
        let home = options.work_dir.join(format!("sync-home-{size}mb"));
        let mut spec = corpus::Spec::new(Format::ClaudeCode, size * 1_000_000);
        spec.seed = options.seed;
        spec.max_line_bytes = options.max_line_bytes;
        let session = corpus::generate(&home, &spec).map_err(|e| BenchError::io(&home, e))?;
        let data = options.work_dir.join(format!("sync-data-{size}"));
        let _ = std::fs::remove_dir_all(&data);
        let (sync, _) = cli_sync(options, &session.home, &data)?;
        peaks.push(sync.peak_rss);
        let mut row = Row::new(
            format!("peak RSS `sync` of a home of one claude-code {size} MB session"),
            format!("{} MiB in {:.2} s", mib(sync.peak_rss), secs(sync.elapsed)),
        );
        if size == 200 {
            row = row.target("≤ 150 MiB", sync.peak_rss <= 150 << 20);
        } else if peaks.len() > 1 {
            row = row.target(format!("flat (≤ {} MiB + 48)", mib(peaks[0])), sync.peak_rss <= peaks[0] + (48 << 20));
        }
        rows.push(row);

        progress(&format!("sync after one line appended to the {size} MB session"));
        let appended = corpus::append_user_turn(&session.path).map_err(|e| BenchError::io(&session.path, e))?;
        let (after, report) = cli_sync(options, &session.home, &data)?;
        let parsed = report["bytes_parsed"].as_u64().unwrap_or(0);
        rows.push(
            Row::new(
                format!("  `sync` after one line ({appended} B) appended"),
                format!("{parsed} B parsed, {} MiB, {:.2} s", mib(after.peak_rss), secs(after.elapsed)),
            )
            .target("O(appended bytes): ≤ appended + 1 MiB", parsed <= appended + (1 << 20)),
        );
        let _ = std::fs::remove_dir_all(&data);
        let _ = std::fs::remove_dir_all(&session.home);
    }
    Ok(rows)
}

/// `trajhost --data-dir DATA sync --home HOME --json` as a child, with its report.
fn cli_sync(options: &Options, home: &Path, data: &Path) -> Result<(ChildRun, serde_json::Value)> {
    let out = data.with_extension("json");
    let file = std::fs::File::create(&out).map_err(|e| BenchError::io(&out, e))?;
    let mut command = Command::new(&options.exe);
    command
        .arg("--data-dir")
        .arg(data)
        .args([OsStr::new("sync"), "--home".as_ref(), home.as_os_str(), "--json".as_ref()])
        .env("TRAJHOST_CACHE_DIR", &options.cache_dir)
        .env_remove("TRAJHOST_HOME")
        .env_remove("TRAJHOST_ARCHIVE")
        .stdout(file)
        .stderr(Stdio::null());
    let run = run_child(&mut command).map_err(|e| BenchError::io(&options.exe, e))?;
    if run.exit_code != 0 {
        return Err(BenchError::Child {
            command: format!("trajhost sync --home {}", home.display()),
            code: run.exit_code,
        });
    }
    let text = std::fs::read_to_string(&out).map_err(|e| BenchError::io(&out, e))?;
    let _ = std::fs::remove_file(&out);
    let report = serde_json::from_str(&text).map_err(|e| BenchError::io(&out, std::io::Error::other(e)))?;
    Ok((run, report))
}
