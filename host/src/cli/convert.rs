//! `trajhost convert` and `trajhost prepare`

use std::path::PathBuf;

use trajhost::catalog::Catalog;
use trajhost::convert::{self, ExportManifest, Tier};
use trajhost::inventory;
use trajhost::plan;
use trajhost::wit::latest::codec::Operation;

use super::{Context, default_home, exit};

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// A session file, or a session id (or unique prefix) under --home.
    target: String,
    /// The harness to convert to (e.g. codex, claude-code).
    #[arg(long, value_name = "HARNESS")]
    to: String,
    /// The export directory to create (default: ./trajhost-export-<harness>-<id>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The working directory the session should belong to in the target.
    #[arg(long, value_name = "DIR")]
    cwd: Option<String>,
    /// The source harness, when ambiguous.
    #[arg(long)]
    harness: Option<String>,
    /// Where to look for an id (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Print the export manifest as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct PrepareArgs {
    /// An export directory written by `trajhost convert`.
    export: PathBuf,
    /// The home to install into (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Show the plan without changing anything.
    #[arg(long)]
    dry_run: bool,
    #[arg(long)]
    json: bool,
}

pub fn run_convert(ctx: &Context, args: &ConvertArgs) -> anyhow::Result<u8> {
    let catalog = Catalog::open(&ctx.runtime, &ctx.registry)?;
    let home = args.home.clone().unwrap_or_else(default_home);
    let found = inventory::resolve(&catalog, &args.target, &home, args.harness.as_deref())?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("trajhost-export-{}-{}", args.to, found.session.native_id)));
    let manifest = convert::convert(&catalog, &found, &args.to, &out, args.cwd.clone())?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&manifest)?);
    } else {
        print_report(&manifest, &out);
    }
    Ok(exit::OK)
}

fn print_report(m: &ExportManifest, out: &std::path::Path) {
    println!(
        "converted {} {} ({}) → {} {} ({})",
        m.source.harness, m.source.native_id, m.source.codec, m.target.harness, m.target.native_id, m.target.codec
    );
    println!("export    {}", out.display());
    let tier = match m.fidelity.tier {
        Tier::ByteLossless => "byte-lossless",
        Tier::ValueLossless => "value-lossless",
        Tier::Semantic => "semantic",
    };
    println!("fidelity  {tier}");
    if m.fidelity.not_carried.is_empty() {
        println!("          everything carried over");
    }
    for loss in &m.fidelity.not_carried {
        println!("          not carried: {} ×{} ({})", loss.what, loss.count, loss.found_by);
    }
    println!("next      trajhost prepare {} --home <target home>", out.display());
}

pub fn run_prepare(ctx: &Context, args: &PrepareArgs) -> anyhow::Result<u8> {
    let catalog = Catalog::open(&ctx.runtime, &ctx.registry)?;
    let home = args.home.clone().unwrap_or_else(default_home);
    let (manifest, artifacts) = convert::load_export(&args.export)?;
    let (codec, plan) = convert::plan(&catalog, &manifest, &artifacts, &args.export, &home)?;
    let home = std::fs::canonicalize(&home)?;
    let applied = if args.dry_run { plan::validate(&plan, &home)? } else { plan::execute(&plan, &home)? };
    if args.json {
        let operations: Vec<serde_json::Value> = plan
            .operations
            .iter()
            .map(|op| match op {
                Operation::CreateFile(f) => serde_json::json!({"op": "create-file", "path": f.path, "bytes": f.bytes.len()}),
                Operation::InsertRows(i) => {
                    serde_json::json!({"op": "insert-rows", "database": i.database, "table": i.table, "rows": i.rows.len()})
                }
                Operation::CopyArtifact(c) => serde_json::json!({"op": "copy-artifact", "artifact": c.artifact, "path": c.path}),
                Operation::CreateDatabase(d) => serde_json::json!({
                    "op": "create-database", "path": d.path,
                    "tables": d.tables.iter().map(|t| serde_json::json!({"table": t.table, "rows": t.rows.len()})).collect::<Vec<_>>(),
                }),
                Operation::AddJsonEntry(j) => serde_json::json!({"op": "add-json-entry", "path": j.path, "pointer": j.pointer, "key": j.key}),
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "codec": codec.id(),
                "native_id": plan.native_id,
                "home": home,
                "dry_run": args.dry_run,
                "operations": operations,
                "resume_command": plan.resume_command,
            }))?
        );
    } else {
        let verb = if args.dry_run { "would create" } else { "created" };
        for file in &applied.created_files {
            println!("{verb} {}", file.display());
        }
        let verb = if args.dry_run { "would insert" } else { "inserted" };
        for (db, table, rows) in &applied.inserted_rows {
            println!("{verb} {rows} row(s) into {table} in {}", db.display());
        }
        if let Some(command) = &plan.resume_command {
            println!("resume with:\n  {command}");
        }
    }
    Ok(exit::OK)
}
