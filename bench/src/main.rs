//! `trajhost-bench`: one table from one run (see docs/performance.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use trajhost_bench::{self as bench, Options};

/// Measure the sandbox's cost: wasm vs native, peak RSS, load times, SQLite, casr.
#[derive(Parser)]
#[command(name = "trajhost-bench", version)]
struct Args {
    /// Size of the session read as wasm and natively, in MB.
    #[arg(long, default_value_t = 100, value_name = "MB")]
    throughput_mb: u64,
    /// Session sizes whose peak RSS is measured, in MB (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = [10u64, 100], value_name = "MB,…")]
    rss_mb: Vec<u64>,
    /// Also measure peak RSS on a 1 GB session (1000 MB; takes a while).
    #[arg(long)]
    large: bool,
    /// Size of the long single lines in generated sessions, in MiB (≤ 64).
    #[arg(long, default_value_t = 4, value_name = "MIB")]
    max_line_mib: usize,
    /// Copies of the opencode fixture's rows in the synthetic SQLite store.
    #[arg(long, default_value_t = 400)]
    sqlite_copies: u32,
    /// Generator seed.
    #[arg(long, default_value_t = 0x7261_6a68_6f73_7400)]
    seed: u64,
    /// Also measure casr 0.4.0 (installed with `cargo install --locked` into
    /// a temp dir, or into --casr-root; takes minutes).
    #[arg(long)]
    with_casr: bool,
    /// Where casr is (or gets) installed; reused when it holds bin/casr.
    #[arg(long, value_name = "DIR")]
    casr_root: Option<PathBuf>,
    /// Working directory for corpora (default: a temp dir, removed at the end).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// The `trajhost` binary measured as a child. Default: built by cargo when
    /// cargo runs the bench, else the one beside this binary.
    #[arg(long, value_name = "PATH")]
    trajhost: Option<PathBuf>,
    /// Sessions in the home where `read <id>` resolves an id (0: skip).
    #[arg(long, default_value_t = trajhost_bench::goals::MANY_SESSIONS, value_name = "N")]
    many_sessions: usize,
    /// The table as JSON.
    #[arg(long)]
    json: bool,
    /// Measure the archive instead: sync and search over a generated home of
    /// this many Claude Code and Codex sessions (the shape: 4004).
    #[arg(long, value_name = "SESSIONS")]
    archive: Option<usize>,
    /// Average size of a session of `--archive`, in KB (4004 × 45 KB ≈ 180 MB).
    #[arg(long, default_value_t = 45, value_name = "KB")]
    archive_session_kb: u64,
    /// With `--archive`: also sync the same home into this PostgreSQL database (full and no-change
    /// sync, as a fresh machine id), printed beside the embedded archive's figures. Give an empty
    /// database (tests/services/postgres starts one: TRAJHOST_TEST_POSTGRES).
    #[arg(long, value_name = "URL")]
    archive_postgres: Option<String>,
    /// Measure the terminal UI's list instead: build and filter this many sessions (the goal: 25000 in
    /// under 100 ms each).
    #[arg(long, value_name = "SESSIONS")]
    browse: Option<usize>,
    /// Measure what redaction costs a read instead: `read --json` with and without `--redact` on the 48 MB
    /// Claude Code sessions (the goal: within 10 %).
    #[arg(long)]
    redaction: bool,
    /// Measure sync instead: peak RSS of a first sync of a home holding one Claude Code session of each
    /// `--rss-mb` size (and 1000 with `--large`), and the bytes parsed after one line is appended.
    #[arg(long)]
    sync: bool,
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    let temp = tempfile::Builder::new().prefix("trajhost-bench-").tempdir()?;
    let work_dir = args.work_dir.clone().unwrap_or_else(|| temp.path().to_path_buf());
    let mut rss_mb = args.rss_mb.clone();
    if args.large && !rss_mb.contains(&1000) {
        rss_mb.push(1000);
    }
    let casr_root = match (&args.casr_root, args.with_casr) {
        (Some(root), _) => Some(root.clone()),
        (None, true) => Some(work_dir.join("casr")),
        (None, false) => None,
    };
    let exe = match &args.trajhost {
        Some(path) => path.clone(),
        None => bench::trajhost_exe()?,
    };
    eprintln!("bench: measuring {}", exe.display());
    let template = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/opencode/1.18.33/long-output")
        .join(bench::OPENCODE_DB);
    if let Some(sessions) = args.browse {
        let rows = bench::browse::run(sessions);
        return print_rows(&rows, args.json);
    }
    if let Some(sessions) = args.archive {
        let options = bench::archive::ArchiveOptions {
            cache_dir: work_dir.join("cache"),
            exe,
            work_dir,
            sessions,
            session_bytes: args.archive_session_kb * 1000,
            seed: args.seed,
            postgres: args.archive_postgres.clone(),
        };
        let rows = bench::archive::run(&options, &|step| eprintln!("bench: {step}"))?;
        return print_rows(&rows, args.json);
    }
    let redaction = args.redaction;
    let options = Options {
        cache_dir: work_dir.join("cache"),
        exe,
        work_dir,
        seed: args.seed,
        throughput_mb: args.throughput_mb,
        rss_mb,
        max_line_bytes: args.max_line_mib.clamp(1, 64) << 20,
        sqlite_copies: args.sqlite_copies,
        sqlite_template: template.exists().then_some(template),
        casr_root,
        fixtures: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures"),
        many_sessions: args.many_sessions,
    };
    if redaction {
        let rows = bench::redaction::run(&options, &|step| eprintln!("bench: {step}"))?;
        return print_rows(&rows, args.json);
    }
    if args.sync {
        let rows = bench::sync::rows(&options, &|step| eprintln!("bench: {step}"))?;
        return print_rows(&rows, args.json);
    }
    let report = bench::run(&options, &|step| eprintln!("bench: {step}"))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", bench::render(&report.rows));
        for line in &report.skipped {
            println!("{line}");
        }
    }
    Ok(())
}

/// A table of rows on stdout, or the rows as JSON.
fn print_rows(rows: &[bench::Row], json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(rows)?);
    } else {
        print!("{}", bench::render(rows));
    }
    Ok(())
}
