//! `trajhost sessions`

use std::io::Write;
use std::path::PathBuf;

use trajhost::inventory::{self, HarnessDiagnostic, Inventory, SessionQuery};
use trajhost::registry::remote::{Need, Want};
use trajhost::uncovered;

use super::terminal::{SafeWriter, safe_field, safe_text};
use super::{Context, diagnostic_json, host_exit_code, severity_name, worst_exit_code};

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
    /// One JSON array on stdout instead of a table; discovery diagnostics
    /// then go to stderr as JSON lines.
    #[arg(long)]
    json: bool,
    /// List the archive's sessions (from its index, no discovery): also those whose source is gone.
    /// With --home, only those synced from it.
    #[arg(long)]
    archived: bool,
}

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    if args.archived {
        // An archive given as the home is known to the archive store by its own path.
        let store_home = match args.home.as_deref() {
            Some(given) if trajhost::packed::is_archive(given) => {
                super::given::open_home(ctx, &ctx.catalog()?, Some(given))?.store_key(Some(given))
            }
            other => other.map(std::path::Path::to_path_buf),
        };
        return super::archive::list_archived(
            ctx,
            args.harness.as_deref(),
            args.cwd.as_deref(),
            store_home.as_deref(),
            args.json,
        );
    }
    let catalog = ctx.catalog()?;
    let home = super::given::open_home(ctx, &catalog, args.home.as_deref())?;
    let query = SessionQuery { home: home.dir.clone(), harness: args.harness.clone(), cwd: args.cwd.clone() };
    let inventory = match &home.packed {
        Some(packed) => trajhost::packed::discover(&catalog, packed, args.harness.as_deref(), args.cwd.as_deref())?,
        None => inventory::discover(&catalog, &query)?,
    };
    let uncovered = uncovered::find(&inventory.home, &catalog.harnesses(), args.harness.as_deref());
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &inventory.sessions)?;
        writeln!(out)?;
        out.flush()?;
        for line in json_diagnostics(&inventory) {
            eprintln!("{line}");
        }
        for s in &uncovered {
            let mut value = serde_json::to_value(s)?;
            value["kind"] = "no-codec".into();
            eprintln!("{value}");
        }
    } else {
        let mut out = SafeWriter::new(out);
        if inventory.sessions.is_empty() && uncovered.is_empty() {
            eprintln!("no sessions under {}", query.home.display());
        } else {
            writeln!(out, "{:<12} {:<38} {:<20} {:<20} {:<10} CWD", "HARNESS", "ID", "STARTED", "UPDATED", "VERSION")?;
            for s in &inventory.sessions {
                let session = &s.session;
                writeln!(
                    out,
                    "{:<12} {:<38} {:<20} {:<20} {:<10} {}{}",
                    s.harness,
                    safe_field(&session.native_id),
                    session.started_at.as_deref().map(short_time).unwrap_or("-"),
                    session.updated_at.as_deref().map(short_time).unwrap_or("-"),
                    safe_field(session.native_version.as_deref().unwrap_or("-")),
                    safe_field(session.cwd.as_deref().unwrap_or("-")),
                    row_notes(s),
                )?;
            }
            for s in &uncovered {
                writeln!(
                    out,
                    "{:<12} {:<38} {:<20} {:<20} {:<10} (no codec installed: {})",
                    s.harness,
                    safe_field(&s.native_id),
                    "-",
                    "-",
                    "-",
                    s.plugin_file
                )?;
            }
        }
        // After the table, on stderr: stdout stays the table alone.
        out.flush()?;
        for d in &inventory.diagnostics {
            eprintln!("{}", safe_text(&describe(&inventory, d)));
        }
        for (harness, error) in &inventory.failures {
            eprintln!("error: {harness}: discovery failed: {}", safe_text(&error.to_string()));
        }
        let mut per_harness: std::collections::BTreeMap<&str, (usize, &str)> = Default::default();
        for s in &uncovered {
            per_harness.entry(&s.harness).or_insert((0, &s.plugin_file)).0 += 1;
        }
        for (harness, (count, file)) in per_harness {
            eprintln!(
                "note: {count} {harness} session(s) found, but no {harness} codec is installed: it ships as the plugin file {file}; install it with `trajhost plugin install {file}` to read them"
            );
        }
    }
    // Native versions no installed codec reads: a configured registry may have a codec.
    let wants: Vec<Want> = inventory
        .sessions
        .iter()
        .filter(|s| super::plugin::oci::uncovered(&catalog, &s.harness, s.session.native_version.as_deref()))
        .map(|s| Want {
            harness: s.harness.clone(),
            version: s.session.native_version.clone().unwrap_or_default(),
            need: Need::Read,
        })
        .collect();
    super::plugin::oci::print_hints(ctx, &catalog, &wants, args.json);
    Ok(worst_exit_code(inventory.failures.iter().map(|(_, e)| e)))
}

/// What follows a row's cwd: the session it continues, other copies of it,
/// and why it is not portable.
fn row_notes(s: &inventory::FoundSession) -> String {
    let mut notes = match &s.continues {
        Some(earlier) => format!("  (continues: {earlier}; read --follow for the whole conversation)"),
        None => String::new(),
    };
    notes.push_str(&match s.copies.len() {
        0 => String::new(),
        1 => "  (+1 copy in another home)".to_string(),
        n => format!("  (+{n} copies in other homes)"),
    });
    if !s.not_portable.is_empty() {
        notes.push_str(&format!("  (not portable: {})", s.not_portable.join("; ")));
    }
    notes
}

/// `warning: codex: sessions/2025/x.jsonl: not-a-rollout no session_meta ×1 (codex@0.2.0)`.
fn describe(inventory: &Inventory, d: &HarnessDiagnostic) -> String {
    let diagnostic = &d.diagnostic;
    let file = diagnostic
        .file
        .as_deref()
        .map(|f| {
            let at = diagnostic.offset.map(|o| format!(" at byte {o}")).unwrap_or_default();
            format!(" {}{at}:", inventory.home.join(f).display())
        })
        .unwrap_or_default();
    format!(
        "{}: {}:{file} {} {} ×{} ({})",
        severity_name(diagnostic.severity),
        d.harness,
        diagnostic.code,
        diagnostic.detail,
        diagnostic.count,
        d.codec
    )
}

/// One JSON object per line: `{"kind":"diagnostic",…}` per codec
/// diagnostic, `{"kind":"discovery-failure",…}` per codec whose discover
/// failed.
fn json_diagnostics(inventory: &Inventory) -> Vec<String> {
    let mut lines = Vec::new();
    for d in &inventory.diagnostics {
        let mut value = diagnostic_json(&d.diagnostic);
        value["kind"] = "diagnostic".into();
        value["harness"] = d.harness.clone().into();
        value["codec"] = d.codec.clone().into();
        value["path"] = serde_json::json!(d.diagnostic.file.as_deref().map(|f| inventory.home.join(f)));
        lines.push(value.to_string());
    }
    for (harness, error) in &inventory.failures {
        let value = serde_json::json!({
            "kind": "discovery-failure", "harness": harness, "error": error.to_string(), "exit_code": host_exit_code(error),
        });
        lines.push(value.to_string());
    }
    lines
}

/// `2026-11-30T04:00:01.123Z` → `2026-11-30T04:00:01Z`-ish, at most 20 chars.
fn short_time(ts: &str) -> &str {
    &ts[..ts.len().min(19)]
}
