//! `trajhost plugin …`

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use trajhost::catalog::Catalog;
use trajhost::inventory;
use trajhost::registry::{CodecSource, Installed, VerifyStatus};

use super::{Context, exit};

#[derive(clap::Subcommand)]
pub enum Command {
    /// Validate a codec component and add it to the registry.
    Install {
        file: PathBuf,
        /// Replace an installed codec of the same harness and version.
        #[arg(long)]
        force: bool,
    },
    /// List built-in and installed codecs.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove an installed codec.
    Remove {
        #[arg(value_name = "HARNESS@VERSION")]
        codec: String,
    },
    /// Re-hash every installed codec and report any that changed.
    Verify {
        #[arg(long)]
        json: bool,
    },
    /// Run a codec over fixture homes and report records, diagnostics,
    /// instructions (fuel) and peak memory.
    Test(TestArgs),
}

#[derive(clap::Args)]
pub struct TestArgs {
    file: PathBuf,
    /// Directories to use as homes (each is discovered, then every session read).
    #[arg(required = true)]
    fixtures: Vec<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, command: &Command) -> anyhow::Result<u8> {
    match command {
        Command::Install { file, force } => {
            let (verb, record) = match ctx.registry.install(&ctx.runtime, file, *force)? {
                Installed::New(r) => ("installed", r),
                Installed::AlreadyPresent(r) => ("already installed", r),
                Installed::Replaced(r) => ("replaced", r),
            };
            println!(
                "{verb} {} (native {}, api {}, sha256 {})",
                record.id(),
                record.native_versions,
                record.api,
                &record.sha256[..16]
            );
            Ok(exit::OK)
        }
        Command::List { json } => list(ctx, *json),
        Command::Remove { codec } => {
            let Some((harness, version)) = codec.split_once('@') else {
                anyhow::bail!("expected HARNESS@VERSION, got {codec:?}");
            };
            let removed = ctx.registry.remove(harness, version)?;
            println!("removed {}", removed.id());
            Ok(exit::OK)
        }
        Command::Verify { json } => {
            let results = ctx.registry.verify()?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            } else if results.is_empty() {
                println!("no installed codecs");
            } else {
                for r in &results {
                    match &r.status {
                        VerifyStatus::Ok => println!("ok        {}", r.codec),
                        VerifyStatus::Tampered { found } => {
                            println!("TAMPERED  {} ({} now hashes to {found})", r.codec, r.path.display())
                        }
                        VerifyStatus::Missing => println!("MISSING   {} ({})", r.codec, r.path.display()),
                    }
                }
            }
            let bad = results.iter().any(|r| r.status != VerifyStatus::Ok);
            Ok(if bad { exit::TAMPERED } else { exit::OK })
        }
        Command::Test(args) => test(ctx, args),
    }
}

fn list(ctx: &Context, json: bool) -> anyhow::Result<u8> {
    let catalog: Catalog<'_> = ctx.catalog()?;
    let mut out = std::io::stdout().lock();
    if json {
        let rows: Vec<serde_json::Value> = catalog
            .entries()
            .iter()
            .map(|e| {
                let mut value = serde_json::to_value(&e.record).expect("records serialize");
                value["shadowed_by"] = serde_json::json!(e.shadowed_by);
                value
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(exit::OK);
    }
    writeln!(out, "{:<24} {:<22} {:<10} {:<6} {}", "CODEC", "NATIVE VERSIONS", "SOURCE", "API", "NOTE")?;
    for e in catalog.entries() {
        let source = match &e.record.source {
            CodecSource::Builtin => "built-in",
            CodecSource::Installed { .. } => "installed",
        };
        let note = e.shadowed_by.as_ref().map(|s| format!("shadowed by installed {s}")).unwrap_or_default();
        writeln!(out, "{:<24} {:<22} {:<10} {:<6} {}", e.record.id(), e.record.native_versions, source, e.record.api, note)?;
    }
    Ok(exit::OK)
}

#[derive(serde::Serialize, Default)]
struct SessionReport {
    fixture: PathBuf,
    session: String,
    records: u64,
    kinds: BTreeMap<String, u64>,
    diagnostics: Vec<String>,
    fuel: Option<u64>,
    peak_memory: usize,
    error: Option<String>,
}

fn test(ctx: &Context, args: &TestArgs) -> anyhow::Result<u8> {
    let name = args.file.display().to_string();
    let bytes = std::fs::read(&args.file).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let component = ctx.runtime.compile(&bytes, &name)?;
    let loaded = ctx.runtime.prepare(&component, &name)?;
    let info = loaded.instantiate(&ctx.runtime)?.info()?;
    let codec_id = format!("{}@{}", info.harness, info.codec_version);
    let mut reports = Vec::new();
    // The exit code of the worst failure (a trap or limit is 4).
    let mut failure_code = exit::OK;
    let mut failed = |e: &trajhost::HostError| {
        failure_code = failure_code.max(super::host_exit_code(e));
        e.to_string()
    };
    for fixture in &args.fixtures {
        let mut discovering = loaded.instantiate(&ctx.runtime)?;
        discovering.set_name(codec_id.clone());
        let discovery = match discovering.discover(fixture) {
            Ok(d) => d,
            Err(e) => {
                reports.push(SessionReport { fixture: fixture.clone(), error: Some(failed(&e)), ..Default::default() });
                continue;
            }
        };
        let usage = discovering.usage();
        reports.push(SessionReport {
            fixture: fixture.clone(),
            session: format!("(discover: {} sessions)", discovery.sessions.len()),
            diagnostics: discovery.diagnostics.iter().map(|d| format!("{} {} ×{}", d.code, d.detail, d.count)).collect(),
            fuel: usage.fuel,
            peak_memory: usage.peak_memory,
            ..Default::default()
        });
        for session in discovery.sessions {
            let mut report = SessionReport { fixture: fixture.clone(), session: session.native_id.clone(), ..Default::default() };
            let mut instance = loaded.instantiate(&ctx.runtime)?;
            instance.set_name(codec_id.clone());
            match instance.read(fixture, &session.locator, inventory::default_read_options()) {
                Ok(mut stream) => {
                    loop {
                        match stream.next_batch() {
                            Ok(Some(batch)) => {
                                for line in batch.records.lines() {
                                    report.records += 1;
                                    let kind = serde_json::from_str::<serde_json::Value>(line)
                                        .ok()
                                        .and_then(|v| v["kind"].as_str().map(String::from))
                                        .unwrap_or_else(|| "(not canonical JSON)".into());
                                    *report.kinds.entry(kind).or_default() += 1;
                                }
                                report.diagnostics.extend(batch.diagnostics.iter().map(|d| format!("{} {} ×{}", d.code, d.detail, d.count)));
                            }
                            Ok(None) => break,
                            Err(e) => {
                                report.error = Some(failed(&e));
                                break;
                            }
                        }
                    }
                    let usage = stream.usage();
                    report.fuel = usage.fuel;
                    report.peak_memory = usage.peak_memory;
                }
                Err(e) => report.error = Some(failed(&e)),
            }
            reports.push(report);
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        println!("codec {codec_id} ({name})");
        for r in &reports {
            println!(
                "{}  {}  records={} fuel={} peak_memory={} KiB",
                r.fixture.display(),
                r.session,
                r.records,
                r.fuel.map(|f| f.to_string()).unwrap_or_else(|| "-".into()),
                r.peak_memory >> 10
            );
            if !r.kinds.is_empty() {
                println!("    kinds: {}", r.kinds.iter().map(|(k, n)| format!("{k}={n}")).collect::<Vec<_>>().join(" "));
            }
            for d in &r.diagnostics {
                println!("    diagnostic: {d}");
            }
            if let Some(e) = &r.error {
                println!("    ERROR: {e}");
            }
        }
    }
    Ok(failure_code)
}
