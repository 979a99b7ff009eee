//! Argument parsing, output and exit codes. Everything else lives in the
//! library; this is the only place that prints.

mod archive;
mod browse;
mod continue_session;
mod convert;
mod export;
mod given;
mod plugin;
mod read;
mod redact;
mod sessions;
mod terminal;
mod transcript;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use trajhost::catalog::{Catalog, Progress};
use trajhost::registry::Registry;
use trajhost::runtime::{Mode, Runtime};
use trajhost::wit::latest::types::{Diagnostic, Severity};
use trajhost::{HostError, Limits};

/// Exit codes (documented in the README).
pub mod exit {
    pub const OK: u8 = 0;
    pub const ERROR: u8 = 1;
    /// Bad flags (clap exits with it itself), or no command without a terminal.
    pub const USAGE: u8 = 2;
    pub const NOT_FOUND: u8 = 3;
    pub const SANDBOX: u8 = 4;
    pub const TAMPERED: u8 = 5;
}

#[derive(Parser)]
#[command(
    name = "trajhost",
    version,
    about = "Find, read and convert coding-agent session history through sandboxed codecs"
)]
struct Cli {
    /// trajhost's own data directory (installed codecs, compiled cache).
    /// Default: $TRAJHOST_HOME, else $XDG_DATA_HOME/trajhost, else ~/.local/share/trajhost.
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,

    /// Where compiled codecs are cached. Default: DATA_DIR/cache, or $TRAJHOST_CACHE_DIR.
    #[arg(long, global = true, value_name = "DIR", env = "TRAJHOST_CACHE_DIR")]
    cache_dir: Option<PathBuf>,

    /// Wall-clock limit of one call into a codec, in seconds.
    #[arg(long, global = true, value_name = "SECS")]
    limit_time: Option<f64>,

    /// Memory limit of a codec instance, in MiB.
    #[arg(long, global = true, value_name = "MIB")]
    limit_memory: Option<usize>,

    /// An archive given as a home may unpack to at most this many bytes (K, M, G suffixes; default 8G).
    #[arg(long, global = true, value_name = "BYTES", value_parser = parse_size, help_heading = "Archive limits")]
    archive_max_bytes: Option<u64>,

    /// … and to at most this many times the bytes read from it, once past 64M (default 200).
    #[arg(long, global = true, value_name = "RATIO", help_heading = "Archive limits")]
    archive_max_ratio: Option<u64>,

    /// … with at most this many members (default 200000).
    #[arg(long, global = true, value_name = "N", help_heading = "Archive limits")]
    archive_max_entries: Option<u64>,

    /// … each name at most this many bytes long (default 1024).
    #[arg(long, global = true, value_name = "BYTES", help_heading = "Archive limits")]
    archive_max_path: Option<usize>,

    /// … and at most this many components deep (default 64).
    #[arg(long, global = true, value_name = "N", help_heading = "Archive limits")]
    archive_max_depth: Option<usize>,

    /// The archive sync, search, `sessions --archived` and `read ID` use: a SQLite file, or a shared
    /// database `postgres://user@host/db`. Default: $TRAJHOST_ARCHIVE, else `archive` in
    /// DATA_DIR/config.toml, else DATA_DIR/archive.db.
    #[arg(long, global = true, value_name = "FILE|URL")]
    archive: Option<String>,

    /// Log what the host does (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,

    /// With no command: `browse` on a terminal, else this help.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Browse every session in a terminal UI (also bare `trajhost` on a terminal).
    Browse(browse::Args),
    /// List sessions of every harness under a home directory.
    Sessions(sessions::Args),
    /// Read one session into canonical records.
    Read(read::Args),
    /// Convert a session for another harness into an export directory.
    Convert(convert::ConvertArgs),
    /// Export sessions as OpenTelemetry GenAI spans (OTLP) or ATIF trajectories.
    Export(export::Args),
    /// One session as a self-contained HTML page (no network, no external assets).
    View(view::Args),
    /// Install an export directory into a harness's native store.
    Prepare(convert::PrepareArgs),
    /// Continue a session in another harness: convert, prepare into its home, and start its interactive resume.
    Continue(continue_session::Args),
    /// Archive the sessions of homes (incremental: an unchanged file costs one stat).
    Sync(archive::SyncArgs),
    /// Full-text search over the archive (ranked, bm25).
    Search(archive::SearchArgs),
    /// Sync, then keep the archive current as sessions change (file-system notifications over the stores).
    Watch(archive::WatchArgs),
    /// Install, list, remove, verify and test codecs.
    #[command(subcommand)]
    Plugin(plugin::Command),
    /// Print a shell completion script (bash: `source <(trajhost completions bash)`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `trajhost man | man -l -`.
    Man,
}

/// What commands share.
pub struct Context {
    pub data_dir: PathBuf,
    pub runtime: Runtime,
    pub registry: Registry,
    /// Limits of an archive given as a home.
    pub unpack_limits: trajhost::packed::UnpackLimits,
    /// `--archive`, if given.
    pub archive: Option<String>,
    /// Whether the compile notice was printed (once per process).
    compile_noticed: std::cell::Cell<bool>,
}

impl Context {
    fn new(cli: &Cli, mode: Mode) -> Result<Context, HostError> {
        let data_dir = cli.data_dir.clone().unwrap_or_else(trajhost::default_data_dir);
        let registry = Registry::new(&data_dir);
        let mut limits = Limits::default();
        if let Some(secs) = cli.limit_time {
            limits.call_timeout = Duration::from_secs_f64(secs);
        }
        if let Some(mib) = cli.limit_memory {
            limits.memory_bytes = mib << 20;
        }
        let cache_dir = cli.cache_dir.clone().unwrap_or_else(|| registry.cache_dir());
        let mut runtime = Runtime::new(limits, Some(&cache_dir), mode)?;
        // `$CODEX_HOME` and the like: sessions of the process's own home
        // that live outside it.
        runtime.set_home_mounts(trajhost::homes::environment_mounts(&default_home(), |v| std::env::var_os(v)));
        let defaults = trajhost::packed::UnpackLimits::default();
        let unpack_limits = trajhost::packed::UnpackLimits {
            max_total_bytes: cli.archive_max_bytes.unwrap_or(defaults.max_total_bytes),
            max_ratio: cli.archive_max_ratio.unwrap_or(defaults.max_ratio),
            max_entries: cli.archive_max_entries.unwrap_or(defaults.max_entries),
            max_path_bytes: cli.archive_max_path.unwrap_or(defaults.max_path_bytes),
            max_depth: cli.archive_max_depth.unwrap_or(defaults.max_depth),
            ..defaults
        };
        Ok(Context {
            data_dir,
            runtime,
            registry,
            unpack_limits,
            archive: cli.archive.clone(),
            compile_noticed: std::cell::Cell::new(false),
        })
    }

    /// The codec catalog; says on stderr when it compiles a codec (its first
    /// use with this cache: about a second each), or once when it compiles
    /// many.
    pub fn catalog(&self) -> Result<Catalog<'_>, HostError> {
        Catalog::open_reporting(&self.runtime, &self.registry, |progress| match progress {
            Progress::Compiling { codecs, first_run } => {
                if codecs.len() == 1 && !*first_run {
                    eprintln!("compiling {} (first use)…", codecs[0]);
                    return;
                }
                if self.compile_noticed.replace(true) {
                    return;
                }
                if *first_run {
                    eprintln!("compiling {} built-in codecs (first run)…", codecs.len());
                } else {
                    eprintln!("compiling {} codecs…", codecs.len());
                }
            }
        })
    }
}

pub fn main() -> ExitCode {
    let mut cli = Cli::parse();
    if cli.command.is_none() {
        use std::io::IsTerminal;
        if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
            use clap::CommandFactory;
            let _ = Cli::command().print_help();
            return ExitCode::from(exit::USAGE);
        }
        cli.command = Some(Command::Browse(browse::Args::default()));
    }
    let filter = match cli.verbose {
        0 => "warn",
        1 => "info,trajhost=debug",
        _ => "debug,trajhost=trace",
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TRAJHOST_LOG").unwrap_or_else(|_| filter.into()))
        .with_writer(std::io::stderr)
        .init();

    let command = cli.command.as_ref().expect("set above");
    let mode = match command {
        Command::Plugin(plugin::Command::Test(_)) => Mode::Metered,
        _ => Mode::Production,
    };
    let data_dir = cli.data_dir.clone().unwrap_or_else(trajhost::default_data_dir);
    convert::recover_installs(&data_dir);
    let result = match command {
        Command::Completions { shell } => completions(*shell),
        Command::Man => manual(),
        Command::Search(args) => archive::run_search(&data_dir, cli.archive.as_deref(), args),
        _ => run_with_runtime(&cli, mode),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            if is_broken_pipe(&error) {
                return ExitCode::from(exit::OK);
            }
            eprintln!("error: {}", terminal::safe_text(&format!("{error:#}")));
            ExitCode::from(exit_code(&error))
        }
    }
}

/// The commands that run codecs, in a context with the wasm runtime.
fn run_with_runtime(cli: &Cli, mode: Mode) -> anyhow::Result<u8> {
    let command = cli.command.as_ref().expect("a command");
    Context::new(cli, mode).map_err(anyhow::Error::from).and_then(|ctx| match command {
        Command::Browse(args) => browse::run(&ctx, args),
        Command::Sessions(args) => sessions::run(&ctx, args),
        Command::Read(args) => read::run(&ctx, args),
        Command::Convert(args) => convert::run_convert(&ctx, args),
        Command::Export(args) => export::run(&ctx, args),
        Command::View(args) => view::run(&ctx, args),
        Command::Prepare(args) => convert::run_prepare(&ctx, args),
        Command::Continue(args) => continue_session::run(&ctx, args),
        Command::Sync(args) => archive::run_sync(&ctx, args),
        Command::Search(args) => archive::run_search(&ctx.data_dir, ctx.archive.as_deref(), args),
        Command::Watch(args) => archive::run_watch(&ctx, args),
        Command::Plugin(command) => plugin::run(&ctx, command),
        Command::Completions { .. } | Command::Man => unreachable!("answered before the runtime starts"),
    })
}

fn completions(shell: clap_complete::Shell) -> anyhow::Result<u8> {
    use clap::CommandFactory;
    // Into memory first: the generator panics on a write error (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "trajhost", &mut script);
    std::io::Write::write_all(&mut std::io::stdout().lock(), &script)?;
    Ok(exit::OK)
}

fn manual() -> anyhow::Result<u8> {
    use clap::CommandFactory;
    clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout().lock())?;
    Ok(exit::OK)
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// The exit code of a failed command: the one mapping every command uses.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    error.chain().find_map(|e| e.downcast_ref::<HostError>()).map_or(exit::ERROR, host_exit_code)
}

/// The exit code for a library error (traps and limits are 4 everywhere).
pub fn host_exit_code(error: &HostError) -> u8 {
    match error {
        HostError::SessionNotFound(_) | HostError::NoCodec(_) => exit::NOT_FOUND,
        HostError::Trap { .. } | HostError::LimitExceeded { .. } => exit::SANDBOX,
        HostError::Tampered { .. } => exit::TAMPERED,
        _ => exit::ERROR,
    }
}

/// The exit code of a command that went on past several failures: the
/// most specific one (tampered, sandbox, not found, error).
pub fn worst_exit_code<'e>(errors: impl IntoIterator<Item = &'e HostError>) -> u8 {
    errors.into_iter().map(host_exit_code).max().unwrap_or(exit::OK)
}

/// A severity as every output spells it.
pub fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// A diagnostic as JSON, the same in `read --json` and `sessions --json`.
pub fn diagnostic_json(d: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "code": d.code, "severity": severity_name(d.severity), "detail": d.detail,
        "count": d.count, "file": d.file, "offset": d.offset,
    })
}

/// `8G`, `512M`, `100K` or a plain count of bytes.
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, shift) = match text.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&text[..text.len() - 1], 10),
        Some('M') => (&text[..text.len() - 1], 20),
        Some('G') => (&text[..text.len() - 1], 30),
        Some('T') => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    let n: u64 = digits.trim().parse().map_err(|_| format!("{text:?} is not a size such as 8G, 512M or 1000000"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("{text} is too large"))
}

/// The user's home, the default place to look for sessions.
pub fn default_home() -> PathBuf {
    std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/"))
}
