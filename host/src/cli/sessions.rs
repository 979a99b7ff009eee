//! `trajhost sessions`

use std::io::Write;
use std::path::PathBuf;

use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};

use super::{Context, default_home, exit};

#[derive(clap::Args)]
pub struct Args {
    /// Only this harness (e.g. claude-code).
    #[arg(long)]
    harness: Option<String>,
    /// Where to look (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Only sessions whose recorded cwd is DIR or lies under it.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// One JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    let catalog = Catalog::open(&ctx.runtime, &ctx.registry)?;
    let query = SessionQuery {
        home: args.home.clone().unwrap_or_else(default_home),
        harness: args.harness.clone(),
        cwd: args.cwd.clone(),
    };
    let inventory = inventory::discover(&catalog, &query)?;
    for (harness, error) in &inventory.failures {
        eprintln!("warning: {harness}: {error}");
    }
    for d in &inventory.diagnostics {
        eprintln!("note: {}: {} {} ×{}", d.harness, d.diagnostic.code, d.diagnostic.detail, d.diagnostic.count);
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &inventory.sessions)?;
        writeln!(out)?;
    } else if inventory.sessions.is_empty() {
        eprintln!("no sessions under {}", query.home.display());
    } else {
        writeln!(out, "{:<12} {:<38} {:<20} {:<20} {:<10} {}", "HARNESS", "ID", "STARTED", "UPDATED", "VERSION", "CWD")?;
        for s in &inventory.sessions {
            let session = &s.session;
            writeln!(
                out,
                "{:<12} {:<38} {:<20} {:<20} {:<10} {}",
                s.harness,
                session.native_id,
                session.started_at.as_deref().map(short_time).unwrap_or("-"),
                session.updated_at.as_deref().map(short_time).unwrap_or("-"),
                session.native_version.as_deref().unwrap_or("-"),
                session.cwd.as_deref().unwrap_or("-"),
            )?;
        }
    }
    Ok(if inventory.failures.is_empty() { exit::OK } else { exit::ERROR })
}

/// `2026-11-30T04:00:01.123Z` → `2026-11-30T04:00:01Z`-ish, at most 20 chars.
fn short_time(ts: &str) -> &str {
    &ts[..ts.len().min(19)]
}
