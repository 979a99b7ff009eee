//! `trajhost sync`, `trajhost search`, `trajhost watch`, and the archive
//! side of `sessions --archived`, `read` and `convert`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use trajhost::archive::config::{self, Config};
use trajhost::archive::search::{MARK_CLOSE, MARK_OPEN};
use trajhost::archive::store::{SearchQuery, SessionFilter};
use trajhost::archive::sync::{SyncEvent, SyncOptions, SyncReport};
use trajhost::archive::watch::{WatchOptions, WatchPlan};
use trajhost::archive::{self, ArchiveStore, Location};
use trajhost::catalog::Catalog;

use super::{Context, default_home, exit};

#[derive(clap::Args)]
pub struct SyncArgs {
    /// A home to sync (repeat for several; default: $HOME).
    #[arg(long = "home", value_name = "DIR")]
    homes: Vec<PathBuf>,
    /// Only this harness.
    #[arg(long)]
    harness: Option<String>,
    /// Print the work done as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    redact: super::redact::RedactFlags,
}

#[derive(clap::Args)]
pub struct SearchArgs {
    /// Words to find (all must match); "a phrase" in quotes; word* for a prefix; OR between alternatives.
    query: String,
    /// Only sessions of this harness.
    #[arg(long)]
    harness: Option<String>,
    /// Only sessions whose cwd is DIR or lies under it.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Only records at or after DATE (YYYY-MM-DD or RFC 3339).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only records of this kind (user, assistant, reasoning, tool_call, tool_result, compaction).
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
    /// At most N hits.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// One JSON array of hits (snippet matches between \u0002 and \u0003).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    redact: super::redact::RedactFlags,
}

#[derive(clap::Args)]
pub struct WatchArgs {
    /// A home to watch (repeat for several; default: $HOME).
    #[arg(long = "home", value_name = "DIR")]
    homes: Vec<PathBuf>,
    /// Only this harness.
    #[arg(long)]
    harness: Option<String>,
    /// Quiet time after a change before syncing, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    debounce_ms: u64,
    /// One JSON line per sync on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    redact: super::redact::RedactFlags,
}

const KINDS: &[&str] = &["user", "assistant", "reasoning", "tool_call", "tool_result", "compaction"];

/// The archive a command uses (`--archive`, `$TRAJHOST_ARCHIVE`, the
/// config file, `DATA_DIR/archive.db`), and this machine's id.
fn archive_location(data_dir: &Path, explicit: Option<&str>) -> anyhow::Result<(Location, String)> {
    let config = Config::load(data_dir)?;
    Ok((config::location(data_dir, explicit, &config), config::machine(&config)))
}

/// Opens (or creates) the archive a writing command uses.
fn open_archive(data_dir: &Path, explicit: Option<&str>) -> anyhow::Result<Box<dyn ArchiveStore>> {
    let (location, machine) = archive_location(data_dir, explicit)?;
    Ok(archive::open(&location, &machine)?)
}

/// The archive, if it exists (reading commands never create an archive
/// file; a database is always there to connect to).
pub fn existing_archive(ctx: &Context) -> anyhow::Result<Option<Box<dyn ArchiveStore>>> {
    existing_archive_in(&ctx.data_dir, ctx.archive.as_deref())
}

fn existing_archive_in(data_dir: &Path, explicit: Option<&str>) -> anyhow::Result<Option<Box<dyn ArchiveStore>>> {
    let (location, machine) = archive_location(data_dir, explicit)?;
    if let Location::Sqlite(path) = &location
        && !path.is_file()
    {
        return Ok(None);
    }
    Ok(Some(archive::open(&location, &machine)?))
}

/// The error of a reading command with no archive yet.
fn no_archive(data_dir: &Path, explicit: Option<&str>) -> anyhow::Error {
    let location = archive_location(data_dir, explicit).map(|(l, _)| l.display()).unwrap_or_default();
    anyhow::anyhow!("no archive at {location} yet: run `trajhost sync` first")
}

/// Where a session's source is, as `sessions --archived` shows it.
fn source_state(store: &dyn ArchiveStore, s: &archive::ArchivedSession) -> &'static str {
    let main = s.locator.split_once('#').map_or(s.locator.as_str(), |(f, _)| f);
    if !archive::is_local(store, s) {
        "remote"
    } else if s.home.join(main).is_file() {
        "present"
    } else {
        "gone"
    }
}

fn homes(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() { vec![default_home()] } else { given.to_vec() }
}

pub fn run_sync(ctx: &Context, args: &SyncArgs) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let mut store = open_archive(&ctx.data_dir, ctx.archive.as_deref())?;
    // Archives among the homes stay unpacked until the sync is done.
    let opened = super::given::open_homes(ctx, &catalog, &args.homes)?;
    let options = SyncOptions {
        homes: opened.dirs.clone(),
        keys: opened.keys.clone(),
        harness: args.harness.clone(),
        ..sync_redaction(&ctx.data_dir, ctx.archive.as_deref(), &args.redact)?
    };
    let bar = (!args.json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {pos}/{len} sessions {wide_bar} {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let report = trajhost::archive::sync::sync(&catalog, &mut *store, &options, &mut |event| {
        if let Some(bar) = &bar {
            match event {
                SyncEvent::Planned { sessions, .. } => bar.inc_length(sessions as u64),
                SyncEvent::Read { harness, native_id, .. } => {
                    bar.set_message(format!("{harness} {native_id}"));
                    bar.inc(1);
                }
            }
        }
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", describe_sync(&report, &store.location()))?;
        out.flush()?;
        for f in &report.failures {
            eprintln!("not archived: {} {} in {}: {}", f.harness, f.session, f.home.display(), f.error);
        }
        super::redact::report(&report.redactions);
    }
    // What could not be archived is reported, and retried once it changes: not a failed sync.
    Ok(exit::OK)
}

/// What sync masks: records and the full-text index always (unless
/// `--no-redact`); the evidence too in a shared archive, and in the embedded
/// one when `redact_evidence = true`.
fn sync_redaction(
    data_dir: &Path,
    explicit: Option<&str>,
    flags: &super::redact::RedactFlags,
) -> anyhow::Result<SyncOptions> {
    use trajhost::redaction::Sink;
    let (location, _) = archive_location(data_dir, explicit)?;
    let sink = match location {
        Location::Postgres(_) => Sink::SharedArchive,
        Location::Sqlite(_) => Sink::EmbeddedArchive,
    };
    let redaction = flags.redactor(data_dir, sink)?;
    let redact_evidence = sink == Sink::SharedArchive || Config::load(data_dir)?.redact.redact_evidence;
    Ok(SyncOptions { redaction, redact_evidence, ..SyncOptions::default() })
}

fn describe_sync(r: &SyncReport, archive: &str) -> String {
    format!(
        "synced {} home(s) into {archive} in {:.1} s: {} session(s) added, {} updated, {} unchanged, {} failed, \
         {} unreadable file(s) ({} not retried); {} record(s) added; {} file(s) stat'ed, {} read, {} parsed",
        r.homes,
        r.seconds,
        r.sessions_added,
        r.sessions_updated,
        r.sessions_unchanged,
        r.sessions_failed,
        r.files_failed,
        r.failures_skipped,
        r.records_added,
        r.files_stated,
        r.files_read,
        human_bytes(r.bytes_parsed),
    )
}

fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

/// Searching needs no codec: it runs without the wasm runtime, so that a
/// search costs the query and not an engine's start.
pub fn run_search(data_dir: &Path, explicit: Option<&str>, args: &SearchArgs) -> anyhow::Result<u8> {
    if let Some(kind) = &args.kind
        && !KINDS.contains(&kind.as_str())
    {
        anyhow::bail!("--kind {kind}: not an indexed kind (one of {})", KINDS.join(", "));
    }
    let since_ms = match &args.since {
        Some(date) => Some(
            trajhost::time::unix_ms_from_rfc3339(date)
                .ok_or_else(|| anyhow::anyhow!("--since {date}: not a date (YYYY-MM-DD or RFC 3339)"))?,
        ),
        None => None,
    };
    let store = existing_archive_in(data_dir, explicit)?.ok_or_else(|| no_archive(data_dir, explicit))?;
    let cwd = args
        .cwd
        .as_ref()
        .map(|c| std::fs::canonicalize(c).unwrap_or_else(|_| c.clone()).to_string_lossy().into_owned());
    let query = SearchQuery {
        text: args.query.clone(),
        harness: args.harness.clone(),
        cwd,
        since_ms,
        kind: args.kind.clone(),
        limit: args.limit,
    };
    let mut hits = store.search(&query)?;
    // Sync masks what it indexes; an archive synced before (or with --no-redact) may still hold secrets.
    let mut redactions = trajhost::redaction::Counts::default();
    if let Some(redactor) = args.redact.redactor(data_dir, trajhost::redaction::Sink::Search)? {
        for hit in &mut hits {
            hit.snippet = trajhost::redaction::redact_snippet(
                &redactor,
                &hit.snippet,
                &hit.text,
                [MARK_OPEN, MARK_CLOSE],
                &mut redactions,
            );
            if let Some(title) = &hit.title
                && let std::borrow::Cow::Owned(masked) = redactor.redact_text(title, &mut redactions)
            {
                hit.title = Some(masked);
            }
        }
    }
    super::redact::report(&redactions);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &hits)?;
        writeln!(out)?;
        return Ok(if hits.is_empty() { exit::NOT_FOUND } else { exit::OK });
    }
    let terminal = std::io::stdout().is_terminal();
    let (open, close) = if terminal { ("\x1b[1;31m", "\x1b[0m") } else { ("[", "]") };
    for hit in &hits {
        writeln!(
            out,
            "{} {}  #{} {}  {}{}",
            hit.harness,
            safe(&hit.native_id),
            hit.seq,
            hit.kind,
            hit.ts.as_deref().map(safe).unwrap_or_else(|| "-".into()),
            hit.cwd.as_deref().map(|c| format!("  {}", safe(c))).unwrap_or_default()
        )?;
        let snippet = safe(&hit.snippet.replace('\n', " ")).replace(MARK_OPEN, open).replace(MARK_CLOSE, close);
        writeln!(out, "    {snippet}")?;
    }
    if hits.is_empty() {
        eprintln!("no matches for {:?} in {}", args.query, store.location());
        return Ok(exit::NOT_FOUND);
    }
    Ok(exit::OK)
}

/// Text from someone's session, safe to print on a terminal
/// ([`super::terminal`]), except the snippet markers, which the caller
/// replaces.
pub fn safe(text: &str) -> String {
    super::terminal::escape(text, |c| c.to_string() == MARK_OPEN || c.to_string() == MARK_CLOSE).into_owned()
}

pub fn run_watch(ctx: &Context, args: &WatchArgs) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let mut store = open_archive(&ctx.data_dir, ctx.archive.as_deref())?;
    if let Some(archive) = args.homes.iter().find(|h| trajhost::packed::is_archive(h)) {
        anyhow::bail!("{}: an archive does not change; `trajhost sync --home` it instead", archive.display());
    }
    let options = WatchOptions {
        sync: SyncOptions {
            homes: homes(&args.homes),
            harness: args.harness.clone(),
            ..sync_redaction(&ctx.data_dir, ctx.archive.as_deref(), &args.redact)?
        },
        debounce: std::time::Duration::from_millis(args.debounce_ms),
        ..WatchOptions::default()
    };
    let stop = AtomicBool::new(false);
    let json = args.json;
    let location = store.location();
    trajhost::archive::watch::watch(&catalog, &mut *store, &options, &stop, &mut |report, plan: &WatchPlan| {
        let mut out = std::io::stdout().lock();
        let line = if json {
            let mut value = serde_json::to_value(report).unwrap_or_default();
            value["watching"] = serde_json::json!({"stores": plan.stores, "parents": plan.parents});
            value.to_string()
        } else {
            format!("{} (watching {} store(s))", describe_sync(report, &location), plan.stores.len())
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    })?;
    Ok(exit::OK)
}

/// `sessions --archived`: the archive's sessions, newest first.
pub fn list_archived(
    ctx: &Context,
    harness: Option<&str>,
    cwd: Option<&Path>,
    home: Option<&Path>,
    json: bool,
) -> anyhow::Result<u8> {
    let store = existing_archive(ctx)?.ok_or_else(|| no_archive(&ctx.data_dir, ctx.archive.as_deref()))?;
    let filter = SessionFilter {
        harness: harness.map(String::from),
        cwd: cwd.map(|c| std::fs::canonicalize(c).unwrap_or_else(|_| c.to_path_buf()).to_string_lossy().into_owned()),
        home: home.map(|h| std::fs::canonicalize(h).unwrap_or_else(|_| h.to_path_buf())),
        limit: None,
    };
    let sessions = store.sessions(&filter)?;
    let mut out = std::io::stdout().lock();
    if json {
        let items: Vec<serde_json::Value> = sessions
            .iter()
            .map(|s| {
                let mut value = serde_json::to_value(s).unwrap_or_default();
                value["source_exists"] = (source_state(&*store, s) == "present").into();
                value
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &items)?;
        writeln!(out)?;
        return Ok(exit::OK);
    }
    if sessions.is_empty() {
        eprintln!("no archived sessions in {}", store.location());
        return Ok(exit::OK);
    }
    writeln!(out, "{:<12} {:<38} {:<20} {:>7} {:<8} CWD", "HARNESS", "ID", "UPDATED", "RECORDS", "SOURCE")?;
    for s in &sessions {
        writeln!(
            out,
            "{:<12} {:<38} {:<20} {:>7} {:<8} {}",
            s.harness,
            safe(&s.native_id),
            s.updated_at.as_deref().map(|t| safe(&t[..t.len().min(19)])).unwrap_or_else(|| "-".into()),
            s.records,
            source_state(&*store, s),
            s.cwd.as_deref().map(safe).unwrap_or_else(|| "-".into()),
        )?;
    }
    Ok(exit::OK)
}

/// `read ID` / `convert ID`: the archive's session for an id (not a path),
/// without a discovery pass; `None` when the archive does not hold it.
pub fn resolve_archived(
    ctx: &Context,
    catalog: &Catalog<'_>,
    target: &str,
    harness: Option<&str>,
    home: Option<&Path>,
) -> anyhow::Result<Option<archive::Resolved>> {
    if Path::new(target).exists() || target.contains('/') {
        return Ok(None);
    }
    let Some(store) = existing_archive(ctx)? else { return Ok(None) };
    Ok(archive::resolve(catalog, &*store, target, harness, home)?)
}
