//! The archive's figures: a generated home of Claude Code and Codex
//! sessions synced by the real `trajhost sync` (full, no change, after
//! appends), and `trajhost search` over it, each as a child process; with
//! a PostgreSQL URL, the same home's full and no-change sync into it too.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::corpus::{self, Format, Spec};
use crate::{BenchError, ChildRun, Result, Row, run_child};

/// What the archive section measures.
#[derive(Debug, Clone)]
pub struct ArchiveOptions {
    pub work_dir: PathBuf,
    pub exe: PathBuf,
    pub cache_dir: PathBuf,
    /// Sessions in the generated home (half Claude Code, half Codex).
    pub sessions: usize,
    /// Average bytes of a session: the home holds about `sessions` times this.
    pub session_bytes: u64,
    pub seed: u64,
    /// Also sync into this PostgreSQL database (`--archive-postgres`).
    pub postgres: Option<String>,
}

/// The smallest target a generated session is given (a preamble and a turn).
const MIN_SESSION_BYTES: u64 = 2_000;

/// Words the generated sessions hold, and some they do not: 30 queries.
const QUERIES: &[&str] = &[
    "error",
    "build",
    "test",
    "file",
    "function",
    "the",
    "cargo test",
    "\"tool result\"",
    "refactor*",
    "config OR settings",
    "résumé",
    "数据",
    "json",
    "parse",
    "missing",
    "output",
    "read",
    "write",
    "cannot",
    "module",
    "unicode",
    "PAPAYA",
    "zzzz-no-such-word",
    "line",
    "session",
    "assistant",
    "user",
    "bash",
    "list",
    "grep",
];

fn child(options: &ArchiveOptions, data: &Path, args: &[&OsStr]) -> Result<(ChildRun, String)> {
    child_as(options, data, args, None)
}

/// A child as `machine` (`TRAJHOST_MACHINE`), when given.
fn child_as(
    options: &ArchiveOptions,
    data: &Path,
    args: &[&OsStr],
    machine: Option<&str>,
) -> Result<(ChildRun, String)> {
    let out = options.work_dir.join("archive-child.out");
    let file = std::fs::File::create(&out).map_err(|e| BenchError::io(&out, e))?;
    let mut command = Command::new(&options.exe);
    command
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .env("TRAJHOST_CACHE_DIR", &options.cache_dir)
        .env_remove("TRAJHOST_ARCHIVE")
        .stdout(file)
        .stderr(Stdio::null());
    if let Some(machine) = machine {
        command.env("TRAJHOST_MACHINE", machine);
    }
    let run = run_child(&mut command).map_err(|e| BenchError::io(&options.exe, e))?;
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    Ok((run, text))
}

fn field(json: &str, name: &str) -> u64 {
    serde_json::from_str::<serde_json::Value>(json).ok().and_then(|v| v[name].as_u64()).unwrap_or(u64::MAX)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / 1_048_576.0)
}

/// Generates the home, then measures sync and search.
pub fn run(options: &ArchiveOptions, progress: &dyn Fn(&str)) -> Result<Vec<Row>> {
    let home = options.work_dir.join("archive-home");
    let data = options.work_dir.join("archive-data");
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&data);
    progress(&format!("generating {} sessions of {} KB", options.sessions, options.session_bytes / 1000));
    let mut total = 0u64;
    let mut claude = Vec::new();
    for i in 0..options.sessions {
        let format = if i % 2 == 0 { Format::ClaudeCode } else { Format::Codex };
        // A session ends on a whole turn, which can be tens of KB: aim each
        // one at what keeps the running total on course, so that the home
        // is the size asked for, not one turn's overshoot per session larger.
        let course = options.session_bytes * (i as u64 + 1);
        let mut spec = Spec::new(format, course.saturating_sub(total).max(MIN_SESSION_BYTES));
        spec.seed = options.seed.wrapping_add(i as u64 * 0x9e37_79b9);
        spec.max_line_bytes = 16 << 10;
        let generated = corpus::generate(&home, &spec).map_err(|e| BenchError::io(&home, e))?;
        total += generated.bytes;
        if format == Format::ClaudeCode {
            claude.push(generated.path);
        }
    }
    let home_arg = home.as_os_str();
    let sync_args = [OsStr::new("sync"), OsStr::new("--home"), home_arg, OsStr::new("--json")];
    // Warm the compiled-code cache, so that the sync measures syncing.
    let warm = options.work_dir.join("archive-warm");
    let _ = child(options, &warm, &[OsStr::new("plugin"), OsStr::new("list")])?;

    progress("full sync");
    let (full, report) = child(options, &data, &sync_args)?;
    if full.exit_code != 0 {
        return Err(BenchError::Child { command: "trajhost sync".into(), code: full.exit_code });
    }
    let added = field(&report, "sessions_added");
    let mut rows = vec![
        Row::new(
            format!("full sync of {} sessions ({:.0} MB): wall", options.sessions, total as f64 / 1e6),
            secs(full.elapsed),
        )
        .reference(
            format!("{added} sessions archived; cass 0.7.0 (issue figure): 54.2 s"),
            Some(full.elapsed.as_secs_f64() / 54.2),
        )
        .target("≤ 25 s", full.elapsed.as_secs_f64() <= 25.0),
        Row::new("full sync: peak RSS", mib(full.peak_rss))
            .reference("cass 0.7.0 (issue figure): 2.64 GB", Some(full.peak_rss as f64 / 2.64e9))
            .target("≤ 150 MB", full.peak_rss <= 150_000_000),
    ];

    progress("no-change sync");
    let (idle, report) = child(options, &data, &sync_args)?;
    let parsed = field(&report, "bytes_parsed");
    rows.push(
        Row::new("no-change sync: wall", secs(idle.elapsed))
            .reference("cass 0.7.0 re-index (issue figure): 8.2 s", Some(idle.elapsed.as_secs_f64() / 8.2))
            .target("≤ 0.5 s", idle.elapsed.as_secs_f64() <= 0.5),
    );
    rows.push(
        Row::new("no-change sync: bytes parsed", parsed.to_string())
            .reference(format!("{} files stat'ed", field(&report, "files_stated")), None)
            .target("0", parsed == 0),
    );

    if let Some(url) = &options.postgres {
        rows.extend(postgres_rows(options, url, &home, total, full.elapsed, idle.elapsed, &progress)?);
    }

    progress("appending to 10 sessions");
    let mut appended = 0u64;
    for path in claude.iter().take(10) {
        appended += crate::corpus::append_user_turn(path).map_err(|e| BenchError::io(path, e))?;
    }
    let (after, report) = child(options, &data, &sync_args)?;
    rows.push(Row::new("sync after appending to 10 sessions: wall", secs(after.elapsed)).reference(
        format!(
            "{} updated, {} B appended, {} B kept as evidence, {} B parsed",
            field(&report, "sessions_updated"),
            appended,
            field(&report, "evidence_bytes"),
            field(&report, "bytes_parsed")
        ),
        None,
    ));

    progress("30 searches");
    let mut times = Vec::new();
    let mut peak = 0;
    for query in QUERIES {
        let args =
            [OsStr::new("search"), OsStr::new(query), OsStr::new("--json"), OsStr::new("--limit"), OsStr::new("20")];
        let (run, _) = child(options, &data, &args)?;
        times.push(run.elapsed);
        peak = peak.max(run.peak_rss);
    }
    times.sort();
    let median = times[times.len() / 2];
    let p95 = times[(times.len() * 95).div_ceil(100) - 1];
    rows.push(
        Row::new("search, 30 queries, whole process: median", format!("{:.1} ms", median.as_secs_f64() * 1e3))
            .reference("cass 0.7.0 (issue figure): 110 ms", Some(median.as_secs_f64() / 0.110))
            .target("≤ 20 ms", median.as_secs_f64() <= 0.020),
    );
    rows.push(
        Row::new("search: p95", format!("{:.1} ms", p95.as_secs_f64() * 1e3))
            .reference(format!("peak RSS {}; cass: up to 155 MB", mib(peak)), None),
    );
    let archive = data.join("archive.db");
    let size = std::fs::metadata(&archive).map(|m| m.len()).unwrap_or(0);
    rows.push(
        Row::new("archive size", mib(size))
            .reference(format!("sources {}", mib(total)), Some(size as f64 / total as f64)),
    );
    Ok(rows)
}

fn rate(sessions: u64, bytes: u64, wall: Duration) -> String {
    let secs = wall.as_secs_f64().max(1e-9);
    format!("{:.0} sessions/s, {:.1} MB/s", sessions as f64 / secs, bytes as f64 / 1e6 / secs)
}

/// The same home synced into PostgreSQL (full, then no change), as a
/// machine id of its own, so that the homes are new to the database.
fn postgres_rows(
    options: &ArchiveOptions,
    url: &str,
    home: &Path,
    total: u64,
    embedded_full: Duration,
    embedded_idle: Duration,
    progress: &dyn Fn(&str),
) -> Result<Vec<Row>> {
    let machine = format!("bench-{}-{}", std::process::id(), options.seed);
    let data = options.work_dir.join("archive-data-postgres");
    let _ = std::fs::remove_dir_all(&data);
    let args = [
        OsStr::new("sync"),
        OsStr::new("--home"),
        home.as_os_str(),
        OsStr::new("--archive"),
        OsStr::new(url),
        OsStr::new("--json"),
    ];
    progress("full sync into PostgreSQL");
    let (full, report) = child_as(options, &data, &args, Some(&machine))?;
    if full.exit_code != 0 {
        return Err(BenchError::Child {
            command: "trajhost sync --archive postgres://…".into(), code: full.exit_code
        });
    }
    let added = field(&report, "sessions_added");
    progress("no-change sync into PostgreSQL");
    let (idle, report) = child_as(options, &data, &args, Some(&machine))?;
    let parsed = field(&report, "bytes_parsed");
    Ok(vec![
        Row::new("embedded archive: full sync rate", rate(options.sessions as u64, total, embedded_full)),
        Row::new("PostgreSQL: full sync: wall", secs(full.elapsed)).reference(
            format!("{added} sessions, {}; peak RSS {}", rate(added, total, full.elapsed), mib(full.peak_rss)),
            Some(full.elapsed.as_secs_f64() / embedded_full.as_secs_f64()),
        ),
        Row::new("PostgreSQL: no-change sync: wall", secs(idle.elapsed)).reference(
            format!("{parsed} bytes parsed; embedded {}", secs(embedded_idle)),
            Some(idle.elapsed.as_secs_f64() / embedded_idle.as_secs_f64()),
        ),
    ])
}
