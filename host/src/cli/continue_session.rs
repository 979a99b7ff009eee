//! `trajhost continue SESSION --in HARNESS`: convert, prepare into the target
//! harness's home, and start its interactive resume in the session's folder
//! (`--print`: only print the command). One step for what `convert` +
//! `prepare` + the printed command do.

use std::io::Write;
use std::path::PathBuf;

use trajhost::capabilities::target::TargetChoice;
use trajhost::convert;

use super::terminal::SafeWriter;
use super::{Context, default_home, exit};

#[derive(clap::Args)]
pub struct Args {
    /// A session file, id (or unique prefix), or `ARCHIVE#MEMBER`, resolved as `read` resolves it.
    session: String,
    /// The harness to continue in; `HARNESS@VERSION` targets that version of it.
    #[arg(long = "in", value_name = "HARNESS[@VERSION]")]
    target: super::given::TargetHarness,
    #[command(flatten)]
    lookup: super::given::Lookup,
    /// The home of the harness that continues it (default: $HOME).
    #[arg(long, value_name = "DIR")]
    target_home: Option<PathBuf>,
    /// The folder to continue in (default: the session's recorded cwd when it exists here, else the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    #[command(flatten)]
    model: super::convert::ModelChoice,
    /// Continue a session that is not portable anyway (docs/portability.md); what is dropped is listed.
    #[arg(long)]
    lossy: bool,
    #[command(flatten)]
    version: super::convert::TargetVersion,
    /// Keep the export here (default: a temporary directory, removed afterwards).
    #[arg(long, value_name = "DIR")]
    keep_export: Option<PathBuf>,
    /// Only print the command that resumes it; do not start the harness.
    #[arg(long)]
    print: bool,
    /// Print what convert and prepare report, and the command, as JSON (implies --print).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    redact: super::redact::HandoffRedact,
}

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let home = args.lookup.open_home(ctx, &catalog)?;
    let session = args.lookup.resolve(ctx, &catalog, &home, &args.session, &Default::default())?;
    let continued = continue_into(
        ctx,
        &catalog,
        &session.found,
        &Target {
            harness: &args.target.harness,
            version: args.target.version.clone(),
            home: args.target_home.clone().unwrap_or_else(default_home),
            cwd: args.cwd.clone(),
            choice: args.model.choice(args.version.allow_untested),
            lossy: args.lossy,
            target_version: args.version.target_version.clone(),
            probe_cli: !args.version.no_probe,
            keep_export: args.keep_export.clone(),
            redaction: args.redact.redactor(&ctx.data_dir)?,
        },
    )?;
    let Continued { manifest, installed, cwd, cwd_from, notes, interactive, .. } = &continued;
    let export = &continued.export;
    if args.json {
        let mut report = serde_json::json!({
            "convert": manifest,
            "prepare": installed.json(),
            "cwd": cwd,
            "cwd_from": cwd_from,
            "notes": notes,
            "export": args.keep_export.as_ref().map(|_| export),
            "command": interactive.as_ref().map(|(argv, line)| serde_json::json!({"argv": argv, "line": line})),
            "headless_command": installed.plan.resume_command,
        });
        report["verified"] = serde_json::json!(installed.verdict.verified);
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(exit::OK);
    }

    let mut err = SafeWriter::new(std::io::stderr().lock());
    for note in notes {
        writeln!(err, "note: {note}")?;
    }
    writeln!(
        err,
        "continued {} {} in {} as {} ({}; {})",
        manifest.source.harness,
        manifest.source.native_id,
        installed.codec.harness,
        installed.plan.native_id,
        match manifest.fidelity.tier {
            convert::Tier::ByteLossless => "byte-lossless",
            convert::Tier::ValueLossless => "value-lossless",
            convert::Tier::Semantic => "semantic",
        },
        if installed.verdict.verified {
            "verified".to_string()
        } else {
            format!("not verified: {}", installed.verdict.reason)
        }
    )?;
    for (what, found) in manifest.fidelity.losses_by_what() {
        let count = found.iter().map(|l| l.count).max().unwrap_or_default();
        writeln!(err, "  not carried: {what} ×{count}")?;
    }
    if let Some(line) = trajhost::redaction::summary(&manifest.redactions) {
        writeln!(err, "{line}")?;
    }
    if let Some(kept) = &args.keep_export {
        writeln!(err, "export kept in {}", kept.display())?;
    }
    let Some((argv, line)) = interactive.clone() else {
        // No interactive form (OpenClaw): the codec's own command.
        let mut out = SafeWriter::new(std::io::stdout().lock());
        match &installed.plan.resume_command {
            Some(command) => writeln!(out, "{command}")?,
            None => writeln!(out, "installed; {} has no resume command trajhost knows", installed.codec.harness)?,
        }
        return Ok(exit::OK);
    };
    if args.print {
        writeln!(SafeWriter::new(std::io::stdout().lock()), "{line}")?;
        return Ok(exit::OK);
    }
    drop(err);
    launch(&argv, cwd, &installed.home, &line)
}

/// Where and how to continue a session.
pub struct Target<'a> {
    pub harness: &'a str,
    /// `--in HARNESS@VERSION`: written for that version.
    pub version: Option<String>,
    pub home: PathBuf,
    /// `--cwd`.
    pub cwd: Option<PathBuf>,
    pub choice: TargetChoice,
    pub lossy: bool,
    /// `--target-version`.
    pub target_version: Option<String>,
    pub probe_cli: bool,
    pub keep_export: Option<PathBuf>,
    /// `--redact`.
    pub redaction: Option<trajhost::redaction::Redactor>,
}

/// A session converted and installed into the target's home.
pub struct Continued {
    pub manifest: convert::ExportManifest,
    pub installed: super::convert::Installed,
    /// Where it continues, and why there.
    pub cwd: PathBuf,
    pub cwd_from: &'static str,
    pub notes: Vec<String>,
    /// The interactive resume (argv, shell line), when the harness has one.
    pub interactive: Option<(Vec<String>, String)>,
    pub export: PathBuf,
    /// The export's temporary directory, unless it is kept.
    _temp: tempfile::TempDir,
}

/// Converts `found` for the target and installs it into the target's home:
/// what `continue` and the terminal UI's `c` do before starting the harness.
pub fn continue_into(
    ctx: &Context,
    catalog: &trajhost::catalog::Catalog<'_>,
    found: &trajhost::inventory::FoundSession,
    target: &Target<'_>,
) -> anyhow::Result<Continued> {
    let mut notes = Vec::new();
    let (cwd, cwd_from) = match (&target.cwd, found.session.cwd.as_deref()) {
        (Some(cwd), _) => (std::path::absolute(cwd)?, "--cwd"),
        (None, Some(recorded)) if std::path::Path::new(recorded).is_dir() => (PathBuf::from(recorded), "recorded"),
        (None, recorded) => {
            let here = std::env::current_dir()?;
            notes.push(match recorded {
                Some(r) => format!("the session's folder {r} does not exist here; continuing in {}", here.display()),
                None => format!("the session records no folder; continuing in {}", here.display()),
            });
            (here, "current directory")
        }
    };
    let temp = tempfile::Builder::new().prefix("trajhost-continue-").tempdir()?;
    let export = target.keep_export.clone().unwrap_or_else(|| temp.path().join("export"));
    let options = convert::ConvertOptions {
        cwd: Some(cwd.to_string_lossy().into_owned()),
        choice: TargetChoice { allow_untested: false, ..target.choice.clone() },
        lossy: target.lossy,
        target_version: target.version.clone(),
        writer: None,
        redaction: target.redaction.clone(),
    };
    let manifest = convert::convert(catalog, found, target.harness, &export, &options)?;
    let request = convert::PrepareRequest {
        choice: target.choice.clone(),
        target_version: target.target_version.clone(),
        probe_cli: target.probe_cli,
        writer: None,
        redaction: None,
        cwd: None,
    };
    let installed = super::convert::install_export(ctx, catalog, &export, &target.home, &request, false)?;
    let interactive = installed.interactive_command(&cwd);
    Ok(Continued { manifest, installed, cwd, cwd_from, notes, interactive, export, _temp: temp })
}

/// Replaces this process with the harness's interactive resume, in `cwd`.
pub fn launch(argv: &[String], cwd: &std::path::Path, home: &std::path::Path, line: &str) -> anyhow::Result<u8> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(&argv[0]);
    command.args(&argv[1..]).current_dir(cwd);
    if std::fs::canonicalize(default_home()).ok().as_deref() != Some(home) {
        command.env("HOME", home);
    }
    let error = command.exec();
    anyhow::bail!("cannot start {}: {error}. The session is installed; resume it with:\n  {line}", argv[0])
}
