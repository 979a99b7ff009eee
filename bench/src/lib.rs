//! Measurements behind `trajhost-bench`: the cost of the sandbox, made
//! visible. Nothing here prints; progress goes through a callback and the
//! results come back as [`Row`]s the binary renders. A crate of its own so
//! that the `trajhost` binary links no codec natively.
//!
//! - read throughput of the claude-code codec as wasm (through the host's
//!   fs capability) against the same parsing code compiled natively;
//! - peak RSS of `trajhost read FILE --json > /dev/null` child processes on
//!   sessions of growing size (read with `wait4`);
//! - cold compile against warm (cached) load of a codec component;
//! - SQLite through the host capability (opencode codec as wasm) against the
//!   same codec natively and against a direct rusqlite scan of the rows;
//! - optionally the peer, casr, on the same sessions;
//! - with `--archive`, the archive: full, no-change and incremental sync of
//!   a generated home, and search ([`archive`]).

pub mod archive;
pub mod browse;
pub mod corpus;
mod error;
mod exe;
pub mod goals;
pub mod redaction;
pub mod sync;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use trajhost::Limits;
use trajhost::catalog::Catalog;
use trajhost::inventory;
use trajhost::registry::Registry;
use trajhost::registry::builtin::BUILTIN_CODECS;
use trajhost::runtime::{LoadKind, Mode, Runtime};

pub use corpus::{Format, Generated, Spec};
pub use error::{BenchError, Result};
pub use exe::trajhost_exe;

/// One line of the table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub measure: String,
    /// trajhost's number (the sandboxed path).
    pub trajhost: String,
    /// What it is compared with, when anything.
    pub reference: String,
    /// trajhost ÷ reference (time or memory; lower is better).
    pub ratio: Option<f64>,
    pub target: String,
    /// Whether the target holds; `None` when there is none.
    pub holds: Option<bool>,
}

impl Row {
    pub(crate) fn new(measure: impl Into<String>, trajhost: impl Into<String>) -> Row {
        Row {
            measure: measure.into(),
            trajhost: trajhost.into(),
            reference: String::new(),
            ratio: None,
            target: String::new(),
            holds: None,
        }
    }
    pub(crate) fn reference(mut self, reference: impl Into<String>, ratio: Option<f64>) -> Row {
        self.reference = reference.into();
        self.ratio = ratio;
        self
    }
    pub(crate) fn target(mut self, target: impl Into<String>, holds: bool) -> Row {
        self.target = target.into();
        self.holds = Some(holds);
        self
    }
}

/// What `run` measures.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where corpora, data dirs and caches go (a temp dir).
    pub work_dir: PathBuf,
    /// The `trajhost` binary run as a child for peak RSS (see [`trajhost_exe`]).
    pub exe: PathBuf,
    /// Compiled-code cache the children share (warmed before measuring).
    pub cache_dir: PathBuf,
    pub seed: u64,
    /// Session size for wasm vs native throughput, in MB (10^6 bytes).
    pub throughput_mb: u64,
    /// Session sizes for peak RSS, in MB.
    pub rss_mb: Vec<u64>,
    /// Long single lines in generated sessions.
    pub max_line_bytes: usize,
    /// Copies of the opencode fixture's rows in the synthetic store.
    pub sqlite_copies: u32,
    /// The opencode store to replicate (an `opencode.db` from the fixtures).
    pub sqlite_template: Option<PathBuf>,
    /// Measure casr too: its install root (installed there when missing).
    pub casr_root: Option<PathBuf>,
    /// The repository's `fixtures/` (the real-shaped session is made of their lines).
    pub fixtures: PathBuf,
    /// Sessions in the home where an id is resolved (0: not measured).
    pub many_sessions: usize,
}

/// The table, plus what could not be measured.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    pub rows: Vec<Row>,
    pub skipped: Vec<String>,
}

/// Runs every measurement; `progress` hears what is happening.
pub fn run(options: &Options, progress: &dyn Fn(&str)) -> Result<Report> {
    let mut report = Report::default();
    std::fs::create_dir_all(&options.work_dir).map_err(|e| BenchError::io(&options.work_dir, e))?;
    let data_dir = options.work_dir.join("data");
    let registry = Registry::new(&data_dir);
    let runtime = Runtime::new(Limits::default(), Some(&options.cache_dir), Mode::Production)?;

    // 1. Cold compile vs warm load.
    progress("compile: cold compile vs warm load of claude-code");
    let loads = load_times("trajhost-codec-claude-code", &options.work_dir.join("cold-cache"))?;
    report.rows.push(
        Row::new("claude-code codec: warm load (cache hit, deserialize)", format!("{} µs", loads.warm_us))
            .reference(
                format!("cold compile {} µs", loads.compile_us),
                Some(loads.warm_us as f64 / loads.compile_us as f64),
            )
            .target("≤ 1000 µs", loads.warm_us <= 1000),
    );
    report.rows.push(
        Row::new("  warm load + link + first instance", format!("{} µs", loads.warm_ready_us))
            .reference(format!("{} KiB component", loads.wasm_bytes / 1024), None),
    );
    let catalog_loads = warm_catalog_loads(&options.cache_dir)?;
    let recompiled = catalog_loads.iter().filter(|(_, k)| *k != LoadKind::CacheHit).count();
    report.rows.push(
        Row::new("  warm process: codecs compiled", format!("{recompiled} of {} loaded", catalog_loads.len()))
            .target("0 (compile only at install / first use)", recompiled == 0),
    );

    // 2. wasm vs native on the same session.
    let mb = options.throughput_mb;
    progress(&format!("corpus: claude-code {mb} MB"));
    let claude = generate(options, Format::ClaudeCode, mb)?;
    let catalog = Catalog::open(&runtime, &registry)?;
    progress("read: claude-code as wasm");
    let wasm = read_wasm(&catalog, &claude.path)?;
    progress("read: claude-code natively");
    let native = read_native_claude(&claude)?;
    let ratio = secs(wasm.elapsed) / secs(native.elapsed);
    report.rows.push(
        Row::new(format!("claude-code read {mb} MB: wasm codec"), throughput(&wasm, claude.bytes))
            .reference(format!("native {}", throughput(&native, claude.bytes)), Some(ratio))
            .target("ratio ≤ 1.2", ratio <= 1.2),
    );
    let (scan, lines) = goals::memchr_scan(&claude.path)?;
    report.rows.push(
        Row::new("  native parser vs a bare line scan (hardware)", throughput(&native, claude.bytes)).reference(
            format!("memchr over {lines} lines in memory: {:.0} MB/s", claude.bytes as f64 / 1e6 / secs(scan)),
            Some(secs(native.elapsed) / secs(scan)),
        ),
    );
    if wasm.out_bytes != native.out_bytes {
        report.skipped.push(format!(
            "warning: wasm and native outputs differ in size ({} vs {} bytes)",
            wasm.out_bytes, native.out_bytes
        ));
    }

    // 3. Peak RSS of the CLI streaming records.
    let warm = generate(options, Format::ClaudeCode, 1)?;
    cli_read(options, &warm.path)?; // fills the children's cache
    let mut peaks = Vec::new();
    let mut convert_peaks = Vec::new();
    for &size in &options.rss_mb {
        progress(&format!("corpus + peak RSS: claude-code {size} MB"));
        let session = if size == mb { claude.clone() } else { generate(options, Format::ClaudeCode, size)? };
        let child = cli_read(options, &session.path)?;
        peaks.push((size, child.peak_rss));
        let first = peaks[0].1;
        let mut row = Row::new(
            format!("peak RSS `read --json` claude-code {size} MB"),
            format!("{} MiB in {:.2} s", mib(child.peak_rss), secs(child.elapsed)),
        )
        .reference(format!("longest line {} MiB", mib(session.longest_line)), None);
        if size >= 1000 {
            row = row.target("≤ 64 MiB", child.peak_rss <= 64 << 20);
        } else if peaks.len() > 1 {
            row = row.target(format!("flat (≤ {} MiB + 48)", mib(first)), child.peak_rss <= first + (48 << 20));
        }
        report.rows.push(row);

        progress(&format!("peak RSS: convert claude-code {size} MB to codex"));
        let out = options.work_dir.join(format!("convert-{size}"));
        let _ = std::fs::remove_dir_all(&out);
        let convert = cli_convert(options, &session.path, "codex", &out)?;
        convert_peaks.push(convert.peak_rss);
        let mut row = Row::new(
            format!("peak RSS `convert --to codex` claude-code {size} MB"),
            format!("{} MiB in {:.2} s", mib(convert.peak_rss), secs(convert.elapsed)),
        )
        .reference(format!("longest line {} MiB", mib(session.longest_line)), None);
        if size >= 1000 {
            row = row.target("≤ 128 MiB", convert.peak_rss <= 128 << 20);
        } else if convert_peaks.len() > 1 {
            let first = convert_peaks[0];
            row = row.target(format!("flat (≤ {} MiB + 48)", mib(first)), convert.peak_rss <= first + (48 << 20));
        }
        report.rows.push(row);
        let _ = std::fs::remove_dir_all(&out);

        if session.path != claude.path {
            let _ = std::fs::remove_file(&session.path);
        }
    }

    // 3b. Peak RSS of sync into the embedded archive, and an append.
    report.rows.extend(sync::rows(options, progress)?);

    // 4. SQLite through the capability.
    match &options.sqlite_template {
        Some(template) if template.exists() => {
            progress("sqlite: synthetic opencode store");
            let home = options.work_dir.join("opencode-home");
            let store = build_opencode_store(template, &home, options.sqlite_copies)?;
            let found = opencode_session(&catalog, &home)?;
            progress("sqlite: opencode as wasm");
            let wasm = read_found_wasm(&catalog, &found)?;
            progress("sqlite: opencode natively / direct rusqlite");
            let native = read_native_opencode(&home, &found.session.locator)?;
            let direct = scan_opencode_rusqlite(&home.join(OPENCODE_DB), &found.session.native_id)?;
            let label = format!("{} messages, {} parts, {} MiB", store.messages, store.parts, mib(store.bytes));
            report.rows.push(
                Row::new(
                    format!("opencode read via SQLite capability ({label})"),
                    format!("{:.0} ms", ms(wasm.elapsed)),
                )
                .reference(
                    format!("same codec native {:.0} ms", ms(native.elapsed)),
                    Some(secs(wasm.elapsed) / secs(native.elapsed)),
                ),
            );
            report.rows.push(
                Row::new(
                    "  same queries, direct rusqlite (no JSON parsing, no records)",
                    format!("{:.0} ms", ms(wasm.elapsed)),
                )
                .reference(
                    format!("rusqlite {:.0} ms", ms(direct.elapsed)),
                    Some(secs(wasm.elapsed) / secs(direct.elapsed)),
                ),
            );
        }
        _ => report.skipped.push("SKIP sqlite: no opencode fixture store to replicate".into()),
    }

    // 5. The peer: read and convert against casr (median of alternating runs).
    if options.casr_root.is_some() {
        let codex = generate(options, Format::Codex, mb.min(50))?;
        let claude50 = if mb == 50 { claude.clone() } else { generate(options, Format::ClaudeCode, 50)? };
        let real = goals::real_shaped_claude(&options.fixtures, &options.work_dir.join("real-shaped"), 48_000_000)?;
        let sessions = [("claude-code", &claude50), ("codex", &codex), ("claude-code (real lines)", &real)];
        let peer = goals::against_casr(options, &sessions, progress)?;
        report.rows.extend(peer.rows);
        report.skipped.extend(peer.skipped);
    } else {
        report.skipped.push("SKIP casr rows: give --with-casr or --casr-root DIR".into());
    }

    // 6. The first command after an install, and an id among many sessions.
    progress("first command on a fresh install");
    let empty = options.work_dir.join("empty-home");
    std::fs::create_dir_all(&empty).map_err(|e| BenchError::io(&empty, e))?;
    let (first, compiled) =
        goals::first_command(options, &[OsStr::new("sessions"), OsStr::new("--home"), empty.as_os_str()], "sessions")?;
    report.rows.push(
        Row::new("first command after install: `sessions` on an empty home", format!("{:.2} s", secs(first.elapsed)))
            .reference(format!("{compiled} codecs compiled"), None)
            .target("≤ 1.5 s", secs(first.elapsed) <= 1.5),
    );
    let read_args = [OsStr::new("read"), warm.path.as_os_str(), OsStr::new("--json")];
    let (first, compiled) = goals::first_command(options, &read_args, "read")?;
    report.rows.push(
        Row::new("first command after install: `read` of a Claude Code file", format!("{:.2} s", secs(first.elapsed)))
            .reference(format!("{compiled} codecs compiled"), None)
            .target("≤ 1.5 s", secs(first.elapsed) <= 1.5),
    );
    if options.many_sessions > 0 {
        let count = options.many_sessions;
        progress(&format!("a home of {count} Claude Code sessions"));
        let (home, id) = goals::many_sessions_home(&options.work_dir.join("many-sessions"), count, options.seed)?;
        let args = [OsStr::new("read"), OsStr::new(&id), OsStr::new("--home"), home.as_os_str(), OsStr::new("--json")];
        cli_child(options, &args)?;
        let mut runs: Vec<Duration> =
            (0..goals::RUNS).map(|_| cli_child(options, &args).map(|r| r.elapsed)).collect::<Result<_>>()?;
        runs.sort();
        let median = runs[runs.len() / 2];
        report.rows.push(
            Row::new(
                format!("`read <id>` in a home of {count} sessions (median of {})", goals::RUNS),
                format!("{:.3} s", secs(median)),
            )
            .reference("a discovery to resolve the id; no archive", None)
            .target("≤ 0.3 s", secs(median) <= 0.3),
        );
        let _ = std::fs::remove_dir_all(&home);
    }
    Ok(report)
}

pub(crate) fn secs(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub(crate) fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)
}

fn throughput(run: &ReadRun, input: u64) -> String {
    format!("{:.2} s ({:.0} MB/s)", secs(run.elapsed), input as f64 / 1e6 / secs(run.elapsed))
}

pub(crate) fn generate(options: &Options, format: Format, mb: u64) -> Result<Generated> {
    let home = options.work_dir.join(format!("{}-{mb}mb", format.harness()));
    let mut spec = Spec::new(format, mb * 1_000_000);
    spec.seed = options.seed;
    spec.max_line_bytes = options.max_line_bytes;
    corpus::generate(&home, &spec).map_err(|e| BenchError::io(&home, e))
}

/// Cold compile and warm load of one built-in codec.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LoadTimes {
    pub wasm_bytes: usize,
    /// `Runtime::compile` (cranelift, no cache).
    pub compile_us: u128,
    /// Fastest of several warm loads (fresh runtime, cache hit).
    pub warm_us: u128,
    /// Warm load + linking (`InstancePre`) + one instance.
    pub warm_ready_us: u128,
}

/// Measures cold compile vs warm load of the built-in `package` with a
/// cache under `cache_root` (emptied first).
pub fn load_times(package: &str, cache_root: &Path) -> Result<LoadTimes> {
    let builtin =
        BUILTIN_CODECS.iter().find(|b| b.package == package).ok_or_else(|| BenchError::NoBuiltin(package.into()))?;
    let _ = std::fs::remove_dir_all(cache_root);
    let limits = Limits::default();
    let cold = Runtime::new(limits.clone(), Some(cache_root), Mode::Production)?;
    let start = Instant::now();
    let component = cold.compile(builtin.wasm, package)?;
    let compile_us = start.elapsed().as_micros();
    cold.precompile(&component, builtin.sha256)?;
    drop(cold);

    let mut warm_us = u128::MAX;
    let mut warm_ready_us = u128::MAX;
    for _ in 0..5 {
        let warm = Runtime::new(limits.clone(), Some(cache_root), Mode::Production)?;
        let start = Instant::now();
        let (component, kind) = warm.load(builtin.wasm, builtin.sha256, package)?;
        let loaded_us = start.elapsed().as_micros();
        if kind != LoadKind::CacheHit {
            return Err(BenchError::WarmLoadRecompiled(package.into()));
        }
        let loaded = warm.prepare(&component, package)?;
        let _instance = loaded.instantiate(&warm)?;
        warm_ready_us = warm_ready_us.min(start.elapsed().as_micros());
        warm_us = warm_us.min(loaded_us);
    }

    Ok(LoadTimes { wasm_bytes: builtin.wasm.len(), compile_us, warm_us, warm_ready_us })
}

/// Opens a catalog over `cache_root` twice, as two processes would, and
/// instantiates every harness's codec each time: the first pass may compile
/// (first use), the second must not. Returns the second pass's loads.
pub fn warm_catalog_loads(cache_root: &Path) -> Result<Vec<(String, LoadKind)>> {
    let data = tempfile::tempdir().map_err(|e| BenchError::io(cache_root, e))?;
    let registry = Registry::new(data.path());
    let mut loads = Vec::new();
    for _ in 0..2 {
        let runtime = Runtime::new(Limits::default(), Some(cache_root), Mode::Production)?;
        let catalog = Catalog::open(&runtime, &registry)?;
        for harness in catalog.harnesses() {
            let record = catalog.for_harness(&harness)[0].clone();
            catalog.instantiate(&record)?;
        }
        loads = catalog.loads();
    }
    Ok(loads)
}

/// One in-process read.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct ReadRun {
    pub elapsed: Duration,
    /// Bytes of canonical JSON lines produced.
    pub out_bytes: u64,
    pub batches: u64,
}

/// Reads a session file through its wasm codec (records are counted, not printed).
pub fn read_wasm(catalog: &Catalog<'_>, path: &Path) -> Result<ReadRun> {
    let home = PathBuf::from("/");
    let found = inventory::resolve(catalog, &path.to_string_lossy(), &home, None)?;
    read_found_wasm(catalog, &found)
}

fn read_found_wasm(catalog: &Catalog<'_>, found: &inventory::FoundSession) -> Result<ReadRun> {
    let start = Instant::now();
    let (_, mut stream) = inventory::open(catalog, found, None, inventory::default_read_options())?;
    let (mut out_bytes, mut batches) = (0u64, 0u64);
    while let Some(batch) = stream.next_batch()? {
        out_bytes += batch.records.len() as u64;
        batches += 1;
    }
    Ok(ReadRun { elapsed: start.elapsed(), out_bytes, batches })
}

fn native_options() -> trajhost_codec_sdk::ReadOptions {
    let o = inventory::default_read_options();
    trajhost_codec_sdk::ReadOptions { max_batch_records: o.max_batch_records, max_batch_bytes: o.max_batch_bytes }
}

fn native_error(codec: &'static str, e: trajhost_codec_sdk::CodecError) -> BenchError {
    BenchError::Native { codec, message: format!("{e:?}") }
}

/// The same claude-code parsing code, compiled natively, same batch options.
pub fn read_native_claude(session: &Generated) -> Result<ReadRun> {
    let start = Instant::now();
    let (mut out_bytes, mut batches) = (0u64, 0u64);
    trajhost_codec_sdk::read_all::<trajhost_codec_claude_code::ClaudeCode>(
        trajhost_codec_sdk::fs::Dir::native(&session.home),
        &session.locator,
        native_options(),
        |batch| {
            out_bytes += batch.records.len() as u64;
            batches += 1;
        },
    )
    .map_err(|e| native_error("claude-code", e))?;
    Ok(ReadRun { elapsed: start.elapsed(), out_bytes, batches })
}

fn read_native_opencode(home: &Path, locator: &str) -> Result<ReadRun> {
    let start = Instant::now();
    let (mut out_bytes, mut batches) = (0u64, 0u64);
    trajhost_codec_sdk::read_all::<trajhost_codec_opencode::OpenCode>(
        trajhost_codec_sdk::fs::Dir::native(home),
        locator,
        native_options(),
        |batch| {
            out_bytes += batch.records.len() as u64;
            batches += 1;
        },
    )
    .map_err(|e| native_error("opencode", e))?;
    Ok(ReadRun { elapsed: start.elapsed(), out_bytes, batches })
}

/// A child process's wall time and peak RSS.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct ChildRun {
    pub elapsed: Duration,
    /// Peak RSS of the child's own address space (`VmHWM`), in bytes.
    pub peak_rss: u64,
    /// `ru_maxrss` from `wait4`, in bytes (includes the parent's peak; see [`run_child`]).
    pub maxrss_wait4: u64,
    pub exit_code: i32,
}

/// Runs `command` and measures the child's peak RSS: its `VmHWM` (the
/// high-water mark of its own address space) sampled from
/// `/proc/<pid>/status` every 2 ms until it exits, reaped with `wait4`.
///
/// `ru_maxrss` from `wait4` is not used as the peak: Linux folds the
/// high-water mark of the address space a process had *before* `exec` into
/// it, and std spawns with `vfork`, so a child's `ru_maxrss` is at least the
/// parent's own peak (a bench that has just read 100 MB in-process reported
/// 94 MB for every child). It is kept as `maxrss_wait4` for reference.
pub fn run_child(command: &mut Command) -> std::io::Result<ChildRun> {
    let start = Instant::now();
    let child = command.stdin(Stdio::null()).spawn()?;
    let pid = child.id() as libc::pid_t;
    let status_path = format!("/proc/{pid}/status");
    let mut peak = 0u64;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        if let Some(hwm) = std::fs::read_to_string(&status_path).ok().as_deref().and_then(vm_hwm) {
            peak = peak.max(hwm);
        }
        let rc = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if rc < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if rc == pid {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let elapsed = start.elapsed();
    let exit_code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    drop(child);
    let maxrss_wait4 = usage.ru_maxrss.max(0) as u64 * 1024;
    Ok(ChildRun { elapsed, peak_rss: if peak > 0 { peak } else { maxrss_wait4 }, maxrss_wait4, exit_code })
}

/// `VmHWM:   12345 kB` → bytes.
fn vm_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `trajhost read FILE --json > /dev/null` as a child.
pub fn cli_read(options: &Options, path: &Path) -> Result<ChildRun> {
    cli_child(options, &[OsStr::new("read"), path.as_os_str(), OsStr::new("--json")])
}

/// `trajhost convert FILE --to TARGET --out DIR --json` as a child.
pub fn cli_convert(options: &Options, path: &Path, target: &str, out: &Path) -> Result<ChildRun> {
    let args =
        [OsStr::new("convert"), path.as_os_str(), "--to".as_ref(), target.as_ref(), "--out".as_ref(), out.as_os_str()];
    cli_child(options, &[&args[..], &[OsStr::new("--json")]].concat())
}

/// `trajhost ARGS…` as a child with the bench's data and cache dirs, output
/// discarded; a non-zero exit is an error naming the command.
pub(crate) fn cli_child(options: &Options, args: &[&OsStr]) -> Result<ChildRun> {
    let mut command = Command::new(&options.exe);
    command
        .arg("--data-dir")
        .arg(options.work_dir.join("data"))
        .args(args)
        .env("TRAJHOST_CACHE_DIR", &options.cache_dir)
        .env_remove("TRAJHOST_HOME")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let run = run_child(&mut command).map_err(|e| BenchError::io(&options.exe, e))?;
    if run.exit_code != 0 {
        let shown: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        return Err(BenchError::Child { command: format!("trajhost {}", shown.join(" ")), code: run.exit_code });
    }
    Ok(run)
}

// ---- SQLite ----

/// Where OpenCode keeps its store under a home.
pub const OPENCODE_DB: &str = ".local/share/opencode/opencode.db";

/// What the synthetic store holds.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Store {
    pub messages: u64,
    pub parts: u64,
    /// Bytes of `data` in message and part rows.
    pub bytes: u64,
}

/// Copies an OpenCode store and replicates its message and part rows
/// `copies` times (new ids, same session), in rollback-journal mode.
pub fn build_opencode_store(template: &Path, home: &Path, copies: u32) -> Result<Store> {
    let db = home.join(OPENCODE_DB);
    let _ = std::fs::remove_dir_all(home);
    std::fs::create_dir_all(db.parent().expect("has a parent")).map_err(|e| BenchError::io(&db, e))?;
    {
        let src = rusqlite::Connection::open_with_flags(
            format!("file:{}?immutable=1", template.display()),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| BenchError::sqlite(template, e))?;
        src.execute("VACUUM INTO ?1", [db.to_string_lossy()]).map_err(|e| BenchError::sqlite(&db, e))?;
    }
    let conn = rusqlite::Connection::open(&db).map_err(|e| BenchError::sqlite(&db, e))?;
    let sql = format!(
        "PRAGMA journal_mode=DELETE;
         BEGIN;
         CREATE TEMP TABLE k(n INTEGER);
         WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < {copies}) INSERT INTO k SELECT n FROM c;
         CREATE TEMP TABLE m0 AS SELECT * FROM message;
         CREATE TEMP TABLE p0 AS SELECT * FROM part;
         INSERT INTO message (id, session_id, time_created, time_updated, data)
           SELECT printf('%s_%06d', id, n), session_id, time_created + n * 1000, time_updated + n * 1000, data FROM m0, k;
         INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
           SELECT printf('%s_%06d', id, n), printf('%s_%06d', message_id, n), session_id, time_created + n * 1000, time_updated + n * 1000, data FROM p0, k;
         COMMIT;"
    );
    conn.execute_batch(&sql).map_err(|e| BenchError::sqlite(&db, e))?;
    let count = |q: &str| conn.query_row(q, [], |r| r.get::<_, i64>(0)).map(|n| n.max(0) as u64);
    let store = Store {
        messages: count("SELECT count(*) FROM message").map_err(|e| BenchError::sqlite(&db, e))?,
        parts: count("SELECT count(*) FROM part").map_err(|e| BenchError::sqlite(&db, e))?,
        bytes: count("SELECT (SELECT COALESCE(sum(length(data)),0) FROM message) + (SELECT COALESCE(sum(length(data)),0) FROM part)")
            .map_err(|e| BenchError::sqlite(&db, e))?,
    };
    Ok(store)
}

fn opencode_session(catalog: &Catalog<'_>, home: &Path) -> Result<inventory::FoundSession> {
    let query = inventory::SessionQuery { home: home.to_path_buf(), harness: Some("opencode".into()), cwd: None };
    let found = inventory::discover(catalog, &query)?;
    if let Some((_, error)) = found.failures.into_iter().next() {
        return Err(error.into());
    }
    found
        .sessions
        .into_iter()
        .max_by_key(|s| s.session.size)
        .ok_or_else(|| BenchError::NoSession("no opencode session in the synthetic store".into()))
}

/// The opencode codec's queries, run directly with rusqlite: every message
/// of the session by id, and each message's parts (values are read, not parsed).
pub fn scan_opencode_rusqlite(db: &Path, session: &str) -> Result<ReadRun> {
    let start = Instant::now();
    let conn = rusqlite::Connection::open_with_flags(
        format!("file:{}?immutable=1", db.display()),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(|e| BenchError::sqlite(db, e))?;
    let mut out_bytes = 0u64;
    let mut messages = conn
        .prepare("SELECT rowid AS row_id, id, time_created, data FROM message WHERE session_id = ? ORDER BY id")
        .map_err(|e| BenchError::sqlite(db, e))?;
    let mut parts = conn
        .prepare("SELECT rowid AS row_id, id, data FROM part WHERE message_id = ? ORDER BY id")
        .map_err(|e| BenchError::sqlite(db, e))?;
    let mut rows = messages.query([session]).map_err(|e| BenchError::sqlite(db, e))?;
    while let Some(row) = rows.next().map_err(|e| BenchError::sqlite(db, e))? {
        let id: String = row.get(1).map_err(|e| BenchError::sqlite(db, e))?;
        let data: String = row.get(3).map_err(|e| BenchError::sqlite(db, e))?;
        out_bytes += data.len() as u64;
        let mut part_rows = parts.query([&id]).map_err(|e| BenchError::sqlite(db, e))?;
        while let Some(part) = part_rows.next().map_err(|e| BenchError::sqlite(db, e))? {
            let data: String = part.get(2).map_err(|e| BenchError::sqlite(db, e))?;
            out_bytes += data.len() as u64;
        }
    }
    Ok(ReadRun { elapsed: start.elapsed(), out_bytes, batches: 0 })
}

// ---- casr ----

pub mod casr {
    //! The peer: `cross_agent_session_resumer` 0.4.0, installed into a
    //! temp root with `cargo install --locked` (never vendored).

    use super::*;

    pub const VERSION: &str = "0.4.0";

    /// What casr was asked to do, and what it cost.
    #[derive(Debug, Clone)]
    pub struct CasrRun {
        pub elapsed: Duration,
        pub peak_rss: u64,
        pub what: String,
    }

    /// `root/bin/casr`, installed when missing.
    pub fn install(root: &Path) -> std::result::Result<PathBuf, String> {
        let bin = root.join("bin").join("casr");
        if bin.exists() {
            return Ok(bin);
        }
        let output = Command::new("cargo")
            .args(["install", "--locked", "cross_agent_session_resumer", "--version", VERSION, "--root"])
            .arg(root)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !output.status.success() {
            let err = String::from_utf8_lossy(&output.stderr);
            let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_string();
            return Err(format!("cargo install failed: {last}"));
        }
        if bin.exists() {
            Ok(bin)
        } else {
            std::fs::read_dir(root.join("bin"))
                .ok()
                .and_then(|mut d| d.next())
                .and_then(|e| e.ok())
                .map(|e| e.path())
                .ok_or_else(|| "installed, but no binary in bin/".into())
        }
    }

    /// casr's name for the harness a session of `format` is resumed in.
    pub fn target_of(format: Format) -> &'static str {
        match format {
            Format::ClaudeCode => "cod",
            Format::Codex => "cc",
        }
    }

    /// The casr command measured, as shown in the table.
    pub fn command(format: Format) -> String {
        format!("resume {} --dry-run", target_of(format))
    }

    /// casr reading the same session: `casr resume <other> <id> --dry-run
    /// --source <file>` parses it and converts it to the other harness in
    /// memory, writing nothing; history and tool outputs are not truncated
    /// (`--max-context-tokens 0 --max-tool-output 0`), as `trajhost read`
    /// carries everything. HOME is an empty scratch dir.
    pub fn read(bin: &Path, session: &Generated, work: &Path) -> std::result::Result<CasrRun, String> {
        let scratch = work.join("casr-home");
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
        let target = target_of(session.format);
        let mut command = Command::new(bin);
        command
            .args([
                "resume",
                target,
                &session.native_id,
                "--dry-run",
                "--json",
                "--max-context-tokens",
                "0",
                "--max-tool-output",
                "0",
                "--source",
            ])
            .arg(&session.path)
            .env("HOME", &scratch)
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .current_dir(&scratch)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let run = run_child(&mut command).map_err(|e| e.to_string())?;
        if run.exit_code != 0 {
            return Err(format!("`casr resume {target} <id> --dry-run --source <file>` exited with {}", run.exit_code));
        }
        Ok(CasrRun { elapsed: run.elapsed, peak_rss: run.peak_rss, what: self::command(session.format) })
    }
}

/// Aligned text table.
pub fn render(rows: &[Row]) -> String {
    let header = ["measure", "trajhost", "reference", "ratio", "target", "holds"];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            [
                r.measure.clone(),
                r.trajhost.clone(),
                r.reference.clone(),
                r.ratio.map(|x| format!("{x:.3}")).unwrap_or_default(),
                r.target.clone(),
                match r.holds {
                    Some(true) => "yes".into(),
                    Some(false) => "NO".into(),
                    None => String::new(),
                },
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cols: &[String]| -> String {
        let mut s = String::from("|");
        for (c, w) in cols.iter().zip(widths) {
            s.push(' ');
            s.push_str(c);
            s.push_str(&" ".repeat(w - c.chars().count()));
            s.push_str(" |");
        }
        s.push('\n');
        s
    };
    let mut out = line(&header.map(String::from));
    out.push_str(&line(&widths.map(|w| "-".repeat(w))));
    for row in &cells {
        out.push_str(&line(row));
    }
    out
}
