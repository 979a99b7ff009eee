//! The speed goals against the peer and the hardware (`--goals`): each row of
//! docs/performance.md's goal table, measured in one run.
//!
//! - `read` and `convert` against casr, the median of 5 alternating runs of
//!   each program as a whole process, on generated Claude Code and Codex
//!   sessions and on one made by repeating a real (lab fixture) session's lines;
//! - the native parser's rate next to a bare memchr pass over the same bytes;
//! - the first command on a fresh data directory and compiled-code cache;
//! - resolving an id in a home of 25,000 sessions.

use std::ffi::OsStr;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::corpus::{self, Format, Generated, Spec};
use crate::{BenchError, ChildRun, Options, Result, Row, casr, mib, run_child, secs};

/// Runs per program in an alternating comparison.
pub const RUNS: usize = 5;
/// Sessions in the many-sessions home.
pub const MANY_SESSIONS: usize = 25_000;

/// Median wall time and median peak RSS of several runs.
#[derive(Debug, Clone, Copy)]
pub struct Median {
    pub elapsed: Duration,
    pub peak_rss: u64,
}

fn median_of(runs: &[Median]) -> Median {
    let mut times: Vec<Duration> = runs.iter().map(|r| r.elapsed).collect();
    let mut peaks: Vec<u64> = runs.iter().map(|r| r.peak_rss).collect();
    times.sort();
    peaks.sort();
    Median { elapsed: times[times.len() / 2], peak_rss: peaks[peaks.len() / 2] }
}

/// Runs `ours` and `theirs` alternately, [`RUNS`] times each, after one
/// unmeasured run of each (page cache, compiled-code cache).
fn alternate(
    mut ours: impl FnMut() -> Result<ChildRun>,
    mut theirs: impl FnMut() -> std::result::Result<casr::CasrRun, String>,
) -> Result<std::result::Result<(Median, Median), String>> {
    ours()?;
    if let Err(reason) = theirs() {
        return Ok(Err(reason));
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let run = ours()?;
        a.push(Median { elapsed: run.elapsed, peak_rss: run.peak_rss });
        match theirs() {
            Ok(run) => b.push(Median { elapsed: run.elapsed, peak_rss: run.peak_rss }),
            Err(reason) => return Ok(Err(reason)),
        }
    }
    Ok(Ok((median_of(&a), median_of(&b))))
}

/// A time row and a memory row of one comparison against casr, target ≤ 0.5 each.
fn casr_rows(what: &str, ours: Median, theirs: Median, casr_what: &str) -> [Row; 2] {
    let t = secs(ours.elapsed) / secs(theirs.elapsed);
    let m = ours.peak_rss as f64 / theirs.peak_rss.max(1) as f64;
    [
        Row::new(format!("{what}: time (median of {RUNS})"), format!("{:.3} s", secs(ours.elapsed)))
            .reference(format!("casr {:.3} s ({casr_what})", secs(theirs.elapsed)), Some(t))
            .target("ratio ≤ 0.5", t <= 0.5),
        Row::new(format!("{what}: peak RSS"), format!("{} MiB", mib(ours.peak_rss)))
            .reference(format!("casr {} MiB", mib(theirs.peak_rss)), Some(m))
            .target("ratio ≤ 0.5", m <= 0.5),
    ]
}

/// `read` and `convert --to <other>` of each session against casr.
pub fn against_casr(options: &Options, sessions: &[(&str, &Generated)], progress: &dyn Fn(&str)) -> Result<Report> {
    let mut report = Report::default();
    let Some(root) = &options.casr_root else {
        report.skipped.push("SKIP casr rows: give --with-casr or --casr-root DIR".into());
        return Ok(report);
    };
    progress("casr: install (cargo install --locked)");
    let bin = match casr::install(root) {
        Ok(bin) => bin,
        Err(reason) => {
            report.skipped.push(format!("SKIP casr rows: {reason}"));
            return Ok(report);
        }
    };
    for (label, session) in sessions {
        let what = format!("{label} {} MiB", mib(session.bytes));
        let other = match session.format {
            Format::ClaudeCode => "codex",
            Format::Codex => "claude-code",
        };
        progress(&format!("vs casr: read {what}"));
        match alternate(|| crate::cli_read(options, &session.path), || casr::read(&bin, session, &options.work_dir))? {
            Ok((ours, theirs)) => {
                report.rows.extend(casr_rows(&format!("read {what}"), ours, theirs, &casr::command(session.format)))
            }
            Err(reason) => report.skipped.push(format!("SKIP casr read on {what}: {reason}")),
        }
        progress(&format!("vs casr: convert {what} to {other}"));
        let out = options.work_dir.join("goals-convert");
        let convert = || {
            let _ = std::fs::remove_dir_all(&out);
            crate::cli_convert(options, &session.path, other, &out)
        };
        match alternate(convert, || casr::read(&bin, session, &options.work_dir))? {
            Ok((ours, theirs)) => report.rows.extend(casr_rows(
                &format!("convert {what} to {other}"),
                ours,
                theirs,
                &casr::command(session.format),
            )),
            Err(reason) => report.skipped.push(format!("SKIP casr convert on {what}: {reason}")),
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    Ok(report)
}

/// Rows and skips.
#[derive(Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
    pub skipped: Vec<String>,
}

/// The rate of a bare line scan (memchr for `\n` over the file's bytes,
/// already in memory): what the hardware allows a line-oriented parser.
pub fn memchr_scan(path: &Path) -> Result<(Duration, u64)> {
    let bytes = std::fs::read(path).map_err(|e| BenchError::io(path, e))?;
    let mut best = Duration::MAX;
    let mut lines = 0;
    for _ in 0..5 {
        let start = Instant::now();
        lines = memchr::memchr_iter(b'\n', std::hint::black_box(&bytes)).count();
        best = best.min(start.elapsed());
    }
    Ok((best, lines as u64))
}

/// A Claude Code session made by repeating the lines of the lab's real
/// sessions (many small records, few large outputs) up to `target` bytes.
/// Each repetition gets its own `uuid`s (the last 12 hex digits xor'ed with
/// the repetition), so parent chains stay whole within one repetition.
pub fn real_shaped_claude(fixtures: &Path, home: &Path, target: u64) -> Result<Generated> {
    let mut template = Vec::new();
    for name in ["simple", "long-output", "parallel", "failing-tool", "multibyte"] {
        let dir = fixtures.join("claude-code/2.1.197").join(name).join(".claude/projects/-home-user-project");
        let entries = std::fs::read_dir(&dir).map_err(|e| BenchError::io(&dir, e))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension() == Some(OsStr::new("jsonl")) {
                let text = std::fs::read_to_string(&path).map_err(|e| BenchError::io(&path, e))?;
                template.extend(text.lines().filter(|l| !l.contains("\"queue-operation\"")).map(String::from));
            }
        }
    }
    if template.is_empty() {
        return Err(BenchError::NoSession(format!("no Claude Code fixture lines under {}", fixtures.display())));
    }
    let native_id = "5eed0000-0000-4000-8000-000000000048".to_string();
    let locator = format!(".claude/projects/-home-user-project/{native_id}.jsonl");
    let path = home.join(&locator);
    let _ = std::fs::remove_dir_all(home);
    std::fs::create_dir_all(path.parent().expect("has a parent")).map_err(|e| BenchError::io(home, e))?;
    let file = std::fs::File::create(&path).map_err(|e| BenchError::io(&path, e))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let (mut bytes, mut lines, mut longest) = (0u64, 0u64, 0u64);
    let mut repetition = 0u64;
    let mut last_uuid: Option<String> = None;
    while bytes < target {
        repetition += 1;
        for line in &template {
            let mut line = retag(line, &native_id, repetition);
            // One conversation: each fixture's root continues the line before it.
            if let Some(last) = &last_uuid {
                line = line.replacen("\"parentUuid\":null", &format!("\"parentUuid\":\"{last}\""), 1);
            }
            if let Some(uuid) = field_value(&line, "\"uuid\":\"") {
                last_uuid = Some(uuid.to_string());
            }
            out.write_all(line.as_bytes()).and_then(|()| out.write_all(b"\n")).map_err(|e| BenchError::io(&path, e))?;
            bytes += line.len() as u64 + 1;
            lines += 1;
            longest = longest.max(line.len() as u64 + 1);
        }
    }
    out.flush().map_err(|e| BenchError::io(&path, e))?;
    Ok(Generated {
        format: Format::ClaudeCode,
        home: home.to_path_buf(),
        locator,
        path,
        native_id,
        bytes,
        lines,
        longest_line: longest,
    })
}

/// One template line for a repetition: one session id, fresh uuids.
fn retag(line: &str, session_id: &str, repetition: u64) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("\"sessionId\":\"") {
        out.push_str(&rest[..at]);
        let value = &rest[at + 13..];
        let end = value.find('"').unwrap_or(value.len());
        out.push_str("\"sessionId\":\"");
        out.push_str(session_id);
        rest = &value[end..];
    }
    out.push_str(rest);
    for key in ["\"uuid\":\"", "\"parentUuid\":\"", "\"leafUuid\":\""] {
        out = rekey(&out, key, repetition);
    }
    retool(&out, repetition)
}

/// The string value after `key` (which ends with the opening quote).
fn field_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(key)? + key.len();
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

/// Tool-use ids (`toolu_…`) made unique per repetition.
fn retool(line: &str, repetition: u64) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    let mut rest = line;
    while let Some(at) = rest.find("toolu_") {
        let id_end = rest[at..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(rest.len(), |n| at + n);
        out.push_str(&rest[..id_end]);
        out.push_str(&format!("r{repetition}"));
        rest = &rest[id_end..];
    }
    out.push_str(rest);
    out
}

fn rekey(line: &str, key: &str, repetition: u64) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(key) {
        let start = at + key.len();
        out.push_str(&rest[..start]);
        let value = &rest[start..];
        if value.len() >= 36 && value.as_bytes()[36] == b'"' {
            let tail = u64::from_str_radix(&value[24..36], 16).unwrap_or(0) ^ repetition;
            out.push_str(&value[..24]);
            out.push_str(&format!("{:012x}", tail & 0xffff_ffff_ffff));
            rest = &value[36..];
        } else {
            rest = value;
        }
    }
    out.push_str(rest);
    out
}

/// What a command costs on a fresh install: an empty data directory and an
/// empty compiled-code cache. Returns the run and the number of codecs it
/// compiled (the `.cwasm` files it left in the cache).
pub fn first_command(options: &Options, args: &[&OsStr], label: &str) -> Result<(ChildRun, usize)> {
    let fresh = options.work_dir.join(format!("fresh-{label}"));
    let _ = std::fs::remove_dir_all(&fresh);
    std::fs::create_dir_all(&fresh).map_err(|e| BenchError::io(&fresh, e))?;
    let mut command = Command::new(&options.exe);
    command
        .arg("--data-dir")
        .arg(fresh.join("data"))
        .args(args)
        .env("TRAJHOST_CACHE_DIR", fresh.join("cache"))
        .env_remove("TRAJHOST_HOME")
        .env_remove("TRAJHOST_ARCHIVE")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let run = run_child(&mut command).map_err(|e| BenchError::io(&options.exe, e))?;
    if run.exit_code != 0 {
        return Err(BenchError::Child { command: format!("trajhost ({label}, fresh install)"), code: run.exit_code });
    }
    Ok((run, compiled_count(&fresh.join("cache"))))
}

/// The compiled components (`.cwasm`) under a compiled-code cache directory.
pub fn compiled_count(cache: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(cache) else { return 0 };
    entries
        .flatten()
        .map(|entry| {
            let path = entry.path();
            if path.is_dir() {
                compiled_count(&path)
            } else {
                usize::from(path.extension() == Some(OsStr::new("cwasm")))
            }
        })
        .sum()
}

/// A home with `count` small Claude Code sessions (one turn each), in 50
/// projects. Returns the home and the id of one session in the middle.
pub fn many_sessions_home(home: &Path, count: usize, seed: u64) -> Result<(PathBuf, String)> {
    let _ = std::fs::remove_dir_all(home);
    let staging = home.join(".staging");
    let mut middle = String::new();
    for i in 0..count {
        let mut spec = Spec::new(Format::ClaudeCode, 1500);
        spec.seed = seed.wrapping_add(i as u64 * 0x9e37_79b9);
        spec.max_line_bytes = 1024;
        let generated = corpus::generate(&staging, &spec).map_err(|e| BenchError::io(&staging, e))?;
        let project = home.join(format!(".claude/projects/-home-user-project-{}", i % 50));
        std::fs::create_dir_all(&project).map_err(|e| BenchError::io(&project, e))?;
        let to = project.join(format!("{}.jsonl", generated.native_id));
        std::fs::rename(&generated.path, &to).map_err(|e| BenchError::io(&to, e))?;
        if i == count / 2 {
            middle = generated.native_id;
        }
    }
    let _ = std::fs::remove_dir_all(&staging);
    Ok((home.to_path_buf(), middle))
}
