//! `trajhost plugin …`

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use trajhost::HostError;
use trajhost::catalog::Catalog;
use trajhost::conformance::expect::{self, ExpectationsFile, TextWatch, Unmet};
use trajhost::conformance::{self, Check, Failure};
use trajhost::inventory;
use trajhost::registry::{CodecSource, Installed, VerifyStatus};
use trajhost::scaffold::{self, SdkSource};

use super::terminal::SafeWriter;
use super::{Context, exit};

pub mod oci;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Validate a codec component and add it to the registry: a file, or
    /// `oci://REGISTRY/REPOSITORY:TAG` (or `@sha256:…`) pulled from a registry,
    /// signature checked against the trusted publishers.
    Install {
        #[arg(value_name = "FILE.wasm|oci://REF")]
        source: String,
        /// Replace an installed codec of the same harness and version.
        #[arg(long)]
        force: bool,
        /// Install from a registry even when the artifact is unsigned or signed by no trusted publisher.
        #[arg(long)]
        allow_unsigned: bool,
    },
    /// Push a codec to an OCI registry (the CNCF wasm artifact layout, its info as annotations),
    /// signed with --key.
    Publish(oci::PublishArgs),
    /// Sign a codec already in a registry (pushed by `publish`, `wkg` or `oras`).
    Sign(oci::SignArgs),
    /// Write a publisher key pair: PATH (secret, mode 0600) and PATH.pub.
    Keygen(oci::KeygenArgs),
    /// Manage the publishers whose signatures `install` and `update` accept.
    #[command(subcommand)]
    Trust(oci::TrustCommand),
    /// Look for codecs newer than those installed in the registries of DATA_DIR/config.toml (and
    /// those installed codecs came from); install the ones covering versions of sessions found here.
    Update(oci::UpdateArgs),
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
    /// Run a codec over fixture homes: report records, diagnostics,
    /// instructions (fuel) and peak memory, run the conformance checks, and
    /// check an expectations file. Exit 1 when a check or expectation fails,
    /// 4 when the codec traps or hits a limit.
    Test(TestArgs),
    /// Create a codec crate that builds on its own, outside this repository,
    /// and passes `plugin test` unchanged.
    New(NewArgs),
}

#[derive(clap::Args)]
pub struct NewArgs {
    /// The harness id (lowercase letters, digits, `-`); the crate is NAME-codec.
    name: String,
    /// Where to create the crate (default: ./NAME-codec). Must not exist or be empty.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Take the SDK from this directory (default: this trajhost's checkout, sdk/codec).
    #[arg(long, value_name = "DIR", conflicts_with = "sdk_git")]
    sdk_path: Option<PathBuf>,
    /// Take the SDK from this git repository instead.
    #[arg(long, value_name = "URL")]
    sdk_git: Option<String>,
}

#[derive(clap::Args)]
pub struct TestArgs {
    file: PathBuf,
    /// Directories to use as homes (each is discovered, then every session read).
    #[arg(required = true)]
    fixtures: Vec<PathBuf>,
    /// An expectations file (TOML: record counts per kind, texts that must
    /// appear, diagnostics allowed, session count; see sdk/README.md).
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, command: &Command) -> anyhow::Result<u8> {
    match command {
        Command::Install { source, force, allow_unsigned } if source.starts_with(trajhost_oci::reference::SCHEME) => {
            oci::install(ctx, source, *force, *allow_unsigned)
        }
        Command::Install { source, force, .. } => {
            let file = PathBuf::from(source);
            let (verb, record) = match ctx.registry.install(&ctx.runtime, &file, *force)? {
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
        Command::New(args) => new(args),
        Command::Publish(args) => oci::publish(ctx, args),
        Command::Sign(args) => oci::sign(ctx, args),
        Command::Keygen(args) => oci::keygen(args),
        Command::Trust(command) => oci::trust(ctx, command),
        Command::Update(args) => oci::update(ctx, args),
    }
}

fn new(args: &NewArgs) -> anyhow::Result<u8> {
    let sdk = match (&args.sdk_path, &args.sdk_git) {
        (Some(path), _) => SdkSource::Path(std::path::absolute(path)?),
        (None, Some(url)) => SdkSource::Git { url: url.clone() },
        (None, None) => SdkSource::this_checkout().ok_or_else(|| {
            anyhow::anyhow!("this trajhost was built from a checkout that is gone, so it cannot point at its SDK; pass --sdk-path DIR or --sdk-git URL")
        })?,
    };
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(format!("{}-codec", args.name)));
    let made = scaffold::create(&scaffold::Options {
        name: args.name.clone(),
        dir: std::path::absolute(&dir)?,
        sdk: sdk.clone(),
    })?;
    println!("created {} in {}", made.crate_name, made.dir.display());
    println!("SDK dependency: {}", sdk.describe());
    println!("next:");
    println!("  cd {}", made.dir.display());
    println!("  rustup target add wasm32-wasip2   # once");
    println!("  cargo build --target wasm32-wasip2 --release");
    println!("  cargo test-native");
    println!("  trajhost plugin test target/{} {} --expect expect.toml", made.wasm.display(), made.fixture.display());
    println!("  trajhost plugin install target/{}", made.wasm.display());
    Ok(exit::OK)
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
                value["writer_range"] =
                    serde_json::json!((!e.record.writes.is_empty()).then(|| e.record.writer_range()));
                value["verified"] = serde_json::json!(verified(&e.record));
                value
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(exit::OK);
    }
    writeln!(
        out,
        "{:<28} {:<24} {:<24} {:<10} {:<6} {:<28} {:<22} {:<22} NOTE",
        "CODEC", "READS VERSIONS", "WRITES VERSIONS", "SOURCE", "API", "READS", "VERIFIED SOURCE", "VERIFIED TARGET"
    )?;
    for e in catalog.entries() {
        let source = match &e.record.source {
            CodecSource::Builtin => "built-in",
            CodecSource::Installed { .. } => "installed",
        };
        let mut note = e.shadowed_by.as_ref().map(|s| format!("shadowed by installed {s}")).unwrap_or_default();
        if let Some(origin) = &e.record.origin {
            let from = format!("from {} ({})", origin.reference, origin.signature);
            note = if note.is_empty() { from } else { format!("{note}; {from}") };
        }
        let writes = if e.record.writes.is_empty() { "-" } else { e.record.writer_range() };
        let verified = verified(&e.record);
        let list = |versions: &[&str]| if versions.is_empty() { "-".to_string() } else { versions.join(",") };
        writeln!(
            out,
            "{:<28} {:<24} {:<24} {:<10} {:<6} {:<28} {:<22} {:<22} {}",
            e.record.id(),
            e.record.native_versions,
            writes,
            source,
            e.record.api,
            e.record.reads.join(", "),
            list(&verified.source),
            list(&verified.target),
            note
        )?;
    }
    Ok(exit::OK)
}

/// The native versions the ledger lists for a codec (none for an installed
/// codec: the ledger speaks of this build's built-ins).
#[derive(serde::Serialize)]
struct Verified {
    source: Vec<&'static str>,
    target: Vec<&'static str>,
}

fn verified(record: &trajhost::registry::CodecRecord) -> Verified {
    use trajhost::ledger::{Role, verified_versions};
    if !matches!(record.source, CodecSource::Builtin) {
        return Verified { source: Vec::new(), target: Vec::new() };
    }
    Verified {
        source: verified_versions(&record.id(), Role::Source),
        target: verified_versions(&record.id(), Role::Target),
    }
}

fn describe_diagnostic(d: &trajhost::wit::latest::types::Diagnostic) -> String {
    format!("{} {} ×{}", d.code, d.detail, d.count)
}

/// Traps and limits (exit 4), by the mapping every command uses.
fn is_sandbox_error(error: &HostError) -> bool {
    super::host_exit_code(error) == exit::SANDBOX
}

#[derive(serde::Serialize)]
struct SessionReport {
    native_id: String,
    locator: String,
    native_version: Option<String>,
    records: u64,
    kinds: BTreeMap<String, u64>,
    diagnostics: Vec<String>,
    fuel: Option<u64>,
    peak_memory: usize,
    error: Option<String>,
}

#[derive(serde::Serialize)]
struct FixtureReport {
    fixture: PathBuf,
    discovered: usize,
    diagnostics: Vec<String>,
    fuel: Option<u64>,
    peak_memory: usize,
    error: Option<String>,
    sessions: Vec<SessionReport>,
}

#[derive(serde::Serialize)]
struct TestReport {
    codec: String,
    file: String,
    checks: Vec<&'static str>,
    fixtures: Vec<FixtureReport>,
    failures: Vec<Failure>,
    unmet: Vec<Unmet>,
    passed: bool,
}

fn test(ctx: &Context, args: &TestArgs) -> anyhow::Result<u8> {
    let name = args.file.display().to_string();
    let bytes = std::fs::read(&args.file).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let expectations = match &args.expect {
        Some(path) => {
            let file = ExpectationsFile::load(path)?;
            file.check_fixtures_exist(&args.fixtures)?;
            Some(file)
        }
        None => None,
    };
    let component = ctx.runtime.compile(&bytes, &name)?;
    let loaded = ctx.runtime.prepare(&component, &name)?;
    let info = loaded.instantiate(&ctx.runtime)?.info()?;
    let codec_id = format!("{}@{}", info.harness, info.codec_version);

    let mut report = TestReport {
        codec: codec_id.clone(),
        file: name.clone(),
        checks: Check::ALL.iter().map(|c| c.name()).collect(),
        fixtures: Vec::new(),
        failures: Vec::new(),
        unmet: Vec::new(),
        passed: false,
    };
    let (mut sandboxed, mut errored) = (false, false);
    let mut logs = Vec::new();
    for fixture in &args.fixtures {
        let wanted = expectations.as_ref().map(|e| e.for_fixture(fixture)).unwrap_or_default();
        let mut texts = TextWatch::new(&wanted);
        let run = conformance::check_fixture(
            &ctx.runtime,
            &loaded,
            &info,
            fixture,
            inventory::default_read_options(),
            &mut |record| texts.observe(record),
        )?;
        if expectations.is_some() {
            report.unmet.extend(expect::evaluate(&wanted, &run, &texts));
        }
        for error in run.errors() {
            sandboxed |= is_sandbox_error(error);
            errored = true;
        }
        report.failures.extend(run.all_failures().cloned());
        if !run.discover_log.is_empty() {
            logs.push((fixture.display().to_string(), run.discover_log.clone()));
        }
        for s in &run.sessions {
            if !s.log.is_empty() {
                logs.push((format!("{} {}", fixture.display(), s.locator), s.log.clone()));
            }
        }
        report.fixtures.push(FixtureReport {
            fixture: fixture.clone(),
            discovered: run.discovered,
            diagnostics: run.discover_diagnostics.iter().map(describe_diagnostic).collect(),
            fuel: run.discover_usage.fuel,
            peak_memory: run.discover_usage.peak_memory,
            error: run.discover_error.as_ref().map(|e| e.to_string()),
            sessions: run
                .sessions
                .iter()
                .map(|s| SessionReport {
                    native_id: s.native_id.clone(),
                    locator: s.locator.clone(),
                    native_version: s.native_version.clone(),
                    records: s.records,
                    kinds: s.kinds.clone(),
                    diagnostics: s.diagnostics.iter().map(describe_diagnostic).collect(),
                    fuel: s.usage.fuel,
                    peak_memory: s.usage.peak_memory,
                    error: s.error.as_ref().map(|e| e.to_string()),
                })
                .collect(),
        });
    }
    report.passed = !errored && report.failures.is_empty() && report.unmet.is_empty();

    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report, &logs)?;
    }
    let failed_checks: Vec<&str> = {
        let mut names: Vec<&str> = report.failures.iter().map(|f| f.check.name()).collect();
        names.dedup();
        names.sort();
        names.dedup();
        names
    };
    if !failed_checks.is_empty() {
        eprintln!("error: {codec_id} fails conformance checks: {}", failed_checks.join(", "));
    }
    if !report.unmet.is_empty() {
        let mut names: Vec<&str> = report.unmet.iter().map(|u| u.expectation.as_str()).collect();
        names.sort();
        names.dedup();
        eprintln!("error: {codec_id} does not meet expectations: {}", names.join(", "));
    }
    if errored {
        let (sessions, fixtures) = report.fixtures.iter().fold((0, 0), |(s, f), r| {
            (s + r.sessions.iter().filter(|x| x.error.is_some()).count(), f + usize::from(r.error.is_some()))
        });
        eprintln!(
            "error: {codec_id} stopped with an error in {sessions} sessions and {fixtures} fixtures (see ERROR above)"
        );
    }
    Ok(if sandboxed {
        exit::SANDBOX
    } else if report.passed {
        exit::OK
    } else {
        exit::ERROR
    })
}

fn print_report(report: &TestReport, logs: &[(String, String)]) -> std::io::Result<()> {
    // Fixture text, ids and codec logs come from outside: escaped for the terminal.
    let mut w = SafeWriter::new(std::io::stdout().lock());
    let fuel = |f: Option<u64>| f.map(|f| f.to_string()).unwrap_or_else(|| "-".into());
    writeln!(w, "codec {} ({})", report.codec, report.file)?;
    for f in &report.fixtures {
        writeln!(
            w,
            "{}  (discover: {} sessions)  fuel={} peak_memory={} KiB",
            f.fixture.display(),
            f.discovered,
            fuel(f.fuel),
            f.peak_memory >> 10
        )?;
        for d in &f.diagnostics {
            writeln!(w, "    diagnostic: {d}")?;
        }
        if let Some(e) = &f.error {
            writeln!(w, "    ERROR: {e}")?;
        }
        for s in &f.sessions {
            writeln!(
                w,
                "{}  {}  records={} fuel={} peak_memory={} KiB",
                f.fixture.display(),
                s.native_id,
                s.records,
                fuel(s.fuel),
                s.peak_memory >> 10
            )?;
            if !s.kinds.is_empty() {
                writeln!(
                    w,
                    "    kinds: {}",
                    s.kinds.iter().map(|(k, n)| format!("{k}={n}")).collect::<Vec<_>>().join(" ")
                )?;
            }
            for d in &s.diagnostics {
                writeln!(w, "    diagnostic: {d}")?;
            }
            if let Some(e) = &s.error {
                writeln!(w, "    ERROR: {e}")?;
            }
        }
    }
    for (place, log) in logs {
        writeln!(w, "codec log ({place}):")?;
        for line in log.lines() {
            writeln!(w, "    {line}")?;
        }
    }
    let failed: Vec<Check> = report.failures.iter().map(|f| f.check).collect();
    let passed: Vec<&str> = Check::ALL.iter().filter(|c| !failed.contains(c)).map(|c| c.name()).collect();
    let (sessions, unchecked) = report
        .fixtures
        .iter()
        .flat_map(|f| &f.sessions)
        .fold((0, 0), |(n, u), s| (n + 1, u + usize::from(s.error.is_some())));
    let errored = report.fixtures.iter().filter(|f| f.error.is_some()).count();
    let mut passed_line =
        format!("checks passed: {}", if passed.is_empty() { "none".into() } else { passed.join(", ") });
    if unchecked > 0 || errored > 0 {
        passed_line.push_str(&format!(
            " (not checked: {unchecked} of {sessions} sessions and {errored} fixtures stopped with an error)"
        ));
    }
    writeln!(w, "{passed_line}")?;
    for failure in &report.failures {
        writeln!(w, "FAIL {failure}")?;
    }
    for unmet in &report.unmet {
        writeln!(w, "UNMET {unmet}")?;
    }
    Ok(())
}
