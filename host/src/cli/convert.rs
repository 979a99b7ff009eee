//! `trajhost convert` and `trajhost prepare`

use std::io::Write;
use std::path::PathBuf;

use trajhost::HostError;
use trajhost::capabilities::target::TargetChoice;
use trajhost::convert::{self, ExportManifest, Tier};
use trajhost::install::{self, InstallOp, RecoveryOutcome};
use trajhost::inventory::FoundSession;

use super::terminal::SafeWriter;
use super::{Context, default_home, exit};

/// `--model` and `--provider`: what the session uses in the target
/// (convert, prepare, continue).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ModelChoice {
    /// The model the session should use in the target (default: the one chosen at convert, else the target's own;
    /// for targets that record one per session).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// The provider the session should use in the target; a target without a provider selector refuses it.
    #[arg(long, value_name = "PROVIDER")]
    pub provider: Option<String>,
}

impl ModelChoice {
    pub fn choice(&self, allow_untested: bool) -> TargetChoice {
        TargetChoice { model: self.model.clone(), provider: self.provider.clone(), allow_untested }
    }
}

/// Which version of the target harness an install is for (prepare, continue).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TargetVersion {
    /// Install even if the target runs a harness version the codec was not tested with. The install is then
    /// reported as not verified.
    #[arg(long)]
    pub allow_untested: bool,
    /// The version of the target harness that will resume the session (default: the version `convert --to H@V`
    /// recorded, else the newest session in the target home, else the harness's CLI on PATH).
    #[arg(long, value_name = "VERSION")]
    pub target_version: Option<String>,
    /// Do not run the target harness's CLI (`<cli> --version`) to learn its version.
    #[arg(long)]
    pub no_probe: bool,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// A session file, or a session id (or unique prefix) under --home.
    target: String,
    /// The harness to convert to (e.g. codex, claude-code); `HARNESS@VERSION` writes for that native version of
    /// it (the codec whose writer covers it; `prepare` then targets that version).
    #[arg(long, value_name = "HARNESS[@VERSION]")]
    to: super::given::TargetHarness,
    /// The writing codec to use (`HARNESS@CODEC_VERSION`, as `plugin list` shows), whatever the target's version.
    #[arg(long, value_name = "CODEC")]
    codec: Option<String>,
    /// The export directory to create (default: ./trajhost-export-<harness>-<id>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The working directory the session should belong to in the target.
    #[arg(long, value_name = "DIR")]
    cwd: Option<String>,
    #[command(flatten)]
    lookup: super::given::Lookup,
    #[command(flatten)]
    model: ModelChoice,
    /// Convert a session that is not portable (see docs/portability.md) anyway; the report lists what is dropped.
    #[arg(long)]
    lossy: bool,
    /// Print the export manifest as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    redact: super::redact::HandoffRedact,
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
    /// The working directory the session resumes in, instead of the one the export was written for (Aider keeps
    /// its history in the workspace: `--cwd` names the workspace inside the target home).
    #[arg(long, value_name = "DIR")]
    cwd: Option<String>,
    #[command(flatten)]
    model: ModelChoice,
    #[command(flatten)]
    version: TargetVersion,
    /// The writing codec to use (`HARNESS@CODEC_VERSION`), whatever the target's version; the install is then
    /// verified only if the ledger lists that codec with the target's version.
    #[arg(long, value_name = "CODEC")]
    codec: Option<String>,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    redact: super::redact::HandoffRedact,
}

pub fn run_convert(ctx: &Context, args: &ConvertArgs) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let home = args.lookup.open_home(ctx, &catalog)?;
    let session = args.lookup.resolve(ctx, &catalog, &home, &args.target, &Default::default())?;
    let found = session.found.clone();
    let to = args.to.harness.as_str();
    let out =
        args.out.clone().unwrap_or_else(|| PathBuf::from(format!("trajhost-export-{to}-{}", found.session.native_id)));
    let options = convert::ConvertOptions {
        cwd: args.cwd.clone(),
        choice: args.model.choice(false),
        lossy: args.lossy,
        target_version: args.to.version.clone(),
        writer: args.codec.clone(),
        redaction: args.redact.redactor(&ctx.data_dir)?,
    };
    let manifest = match convert::convert(&catalog, &found, to, &out, &options) {
        Ok(manifest) => manifest,
        Err(error) => return Err(explain_convert_error(error, args, &found)),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&manifest)?);
    } else {
        print_report(&manifest, &out)?;
        super::redact::report(&manifest.redactions);
    }
    Ok(exit::OK)
}

/// A codec that refuses to write without a working directory names its
/// own option (`write-options.cwd`); the user's is `--cwd DIR`.
fn explain_convert_error(error: HostError, args: &ConvertArgs, found: &FoundSession) -> anyhow::Error {
    let cwd_unknown = args.cwd.is_none() && found.session.cwd.as_deref().is_none_or(str::is_empty);
    match &error {
        HostError::Codec { plugin, op: trajhost::Operation::Write, message }
            if cwd_unknown && message.contains("cwd") =>
        {
            anyhow::anyhow!(
                "{plugin} needs the working directory the session belongs to, and {} {} records none: pass --cwd DIR",
                found.harness,
                found.session.native_id
            )
        }
        _ => error.into(),
    }
}

fn print_report(m: &ExportManifest, out: &std::path::Path) -> std::io::Result<()> {
    // Ids and paths come from the session: escaped for the terminal.
    let mut w = SafeWriter::new(std::io::stdout().lock());
    writeln!(
        w,
        "converted {} {} ({}) → {} {} ({})",
        m.source.harness, m.source.native_id, m.source.codec, m.target.harness, m.target.native_id, m.target.codec
    )?;
    writeln!(w, "export    {}", out.display())?;
    let tier = match m.fidelity.tier {
        Tier::ByteLossless => "byte-lossless",
        Tier::ValueLossless => "value-lossless",
        Tier::Semantic => "semantic",
    };
    writeln!(w, "fidelity  {tier}")?;
    for cause in &m.not_portable {
        writeln!(w, "          dropped (--lossy): {cause}")?;
    }
    if m.fidelity.not_carried.is_empty() && m.not_portable.is_empty() {
        writeln!(w, "          everything carried over")?;
    }
    for (what, found) in m.fidelity.losses_by_what() {
        let found: Vec<String> = found.iter().map(|l| format!("×{} {}", l.count, l.found_by)).collect();
        writeln!(w, "          not carried: {what} ({})", found.join(", "))?;
    }
    writeln!(w, "next      trajhost prepare {} --home <target home>", out.display())?;
    Ok(())
}

pub fn run_prepare(ctx: &Context, args: &PrepareArgs) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let home = args.home.clone().unwrap_or_else(default_home);
    let request = convert::PrepareRequest {
        choice: args.model.choice(args.version.allow_untested),
        target_version: args.version.target_version.clone(),
        probe_cli: !args.version.no_probe,
        writer: args.codec.clone(),
        redaction: args.redact.redactor(&ctx.data_dir)?,
        cwd: args.cwd.clone(),
    };
    let installed = install_export(ctx, &catalog, &args.export, &home, &request, args.dry_run)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&installed.json())?);
    } else {
        installed.print(&mut SafeWriter::new(std::io::stdout().lock()))?;
    }
    Ok(exit::OK)
}

/// A prepare that ran (or a dry run), with what it decided.
pub struct Installed {
    pub codec: trajhost::registry::CodecRecord,
    pub plan: install::InstallPlan,
    pub choice: TargetChoice,
    pub untested: Option<trajhost::capabilities::target::Untested>,
    pub verdict: trajhost::ledger::Verdict,
    pub target_version: trajhost::target_version::TargetVersion,
    pub rewritten_from: Option<String>,
    pub applied: install::Applied,
    /// The target home, canonical.
    pub home: PathBuf,
    pub dry_run: bool,
    /// The working directory the session was written for.
    pub cwd: Option<String>,
}

/// Plans an export's install into `home` (a directory) and applies it, or
/// only validates it with `dry_run`.
pub fn install_export(
    ctx: &Context,
    catalog: &trajhost::catalog::Catalog<'_>,
    export: &std::path::Path,
    home: &std::path::Path,
    request: &convert::PrepareRequest,
    dry_run: bool,
) -> anyhow::Result<Installed> {
    if !home.is_dir() {
        anyhow::bail!(
            "target home {} {}; create it first or pass --home DIR",
            home.display(),
            if home.exists() { "is not a directory" } else { "does not exist" }
        );
    }
    let prepared = convert::prepare(catalog, export, home, request)?;
    let convert::PlannedInstall { codec, plan, choice, untested } = prepared.planned;
    let home = install::resolve_home(home)?;
    let plan = convert::install_plan(plan, &prepared.export_dir, &prepared.artifacts)?;
    let applied = if dry_run {
        install::validate(&plan, &home)?
    } else {
        install::execute(&plan, &home, &install::journal_dir(ctx.registry.data_dir()))?
    };
    // A registry's codec verified (or writing) for this version: say so.
    super::plugin::oci::hint_for_target(
        ctx,
        catalog,
        &codec,
        prepared.target_version.version.as_deref(),
        prepared.verdict.verified,
    );
    Ok(Installed {
        codec,
        plan,
        choice,
        untested,
        verdict: prepared.verdict,
        target_version: prepared.target_version,
        rewritten_from: prepared.rewritten_from,
        applied,
        home,
        dry_run,
        cwd: prepared.cwd,
    })
}

impl Installed {
    /// The command a person types to resume the session interactively, run
    /// in `cwd` (HOME set when the target home is not the user's).
    pub fn interactive_command(&self, cwd: &std::path::Path) -> Option<(Vec<String>, String)> {
        let argv = trajhost::resume::interactive_for_plan(
            &self.codec.harness,
            &self.plan.native_id,
            self.plan.resume_command.as_deref(),
        )?;
        let own_home = std::fs::canonicalize(default_home()).ok();
        let home = (own_home.as_deref() != Some(self.home.as_path())).then_some(self.home.as_path());
        let line = trajhost::resume::shell_line(&argv, cwd, home);
        Some((argv, line))
    }

    fn written_cwd(&self) -> PathBuf {
        self.cwd.as_deref().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."))
    }

    pub fn json(&self) -> serde_json::Value {
        let operations: Vec<serde_json::Value> = self
            .plan
            .operations
            .iter()
            .map(|op| match op {
                InstallOp::CreateFile { path, bytes } => serde_json::json!({"op": "create-file", "path": path, "bytes": bytes.len()}),
                InstallOp::CopyFile { source, path } => serde_json::json!({"op": "copy-artifact", "path": path, "source": source}),
                InstallOp::InsertRows { database, table, rows, .. } => {
                    serde_json::json!({"op": "insert-rows", "database": database, "table": table, "rows": rows.len()})
                }
                InstallOp::CreateDatabase { path, tables, .. } => serde_json::json!({
                    "op": "create-database",
                    "path": path,
                    "tables": tables.iter().map(|t| serde_json::json!({"table": t.table, "rows": t.rows.len()})).collect::<Vec<_>>(),
                }),
                InstallOp::AddJsonEntry { path, pointer, key, .. } => {
                    serde_json::json!({"op": "add-json-entry", "path": path, "pointer": pointer, "key": key})
                }
                InstallOp::AppendFile { path, bytes, expect_length, expect_sha256 } => serde_json::json!({
                    "op": "append-file",
                    "path": path,
                    "bytes": bytes.len(),
                    "expect_length": expect_length,
                    "expect_sha256": expect_sha256,
                }),
            })
            .collect();
        let tv = &self.target_version;
        serde_json::json!({
            "codec": self.codec.id(),
            "native_id": self.plan.native_id,
            "home": self.home,
            "dry_run": self.dry_run,
            "operations": operations,
            "applied": self.applied,
            "resume_command": self.plan.resume_command,
            "interactive_command": self.interactive_command(&self.written_cwd()).map(|(_, line)| line),
            "model": self.choice.model,
            "provider": self.choice.provider,
            "target_version": {
                "version": tv.version,
                "from": tv.from,
                "layout": tv.layout,
                "newest_session": tv.newest_session,
            },
            "rewritten_from": self.rewritten_from,
            "verified": self.verdict.verified,
            "verified_reason": self.verdict.reason,
            "untested": self.untested,
        })
    }

    pub fn print(&self, w: &mut impl Write) -> std::io::Result<()> {
        let would = |done: &'static str, planned: &'static str| if self.dry_run { planned } else { done };
        let applied = &self.applied;
        for file in &applied.created_files {
            writeln!(w, "{} {}", would("created", "would create"), file.display())?;
        }
        for db in &applied.created_databases {
            let rows: usize = db.rows.iter().map(|(_, n)| n).sum();
            writeln!(w, "{} database {} ({rows} row(s))", would("created", "would create"), db.path.display())?;
        }
        for (db, table, rows) in &applied.inserted_rows {
            writeln!(w, "{} {rows} row(s) into {table} in {}", would("inserted", "would insert"), db.display())?;
        }
        for file in &applied.appended_files {
            writeln!(
                w,
                "{} {} byte(s) to {} (its {} byte(s) unchanged before them)",
                would("appended", "would append"),
                file.appended,
                file.path.display(),
                file.original_length
            )?;
        }
        for entry in &applied.json_entries {
            let place = match &entry.key {
                Some(key) => format!("{key:?} at {:?}", entry.pointer),
                None => format!("an element at {:?}", entry.pointer),
            };
            if entry.added {
                writeln!(w, "{} {place} in {}", would("added", "would add"), entry.path.display())?;
            } else {
                writeln!(w, "already present: {place} in {}", entry.path.display())?;
            }
        }
        match self.interactive_command(&self.written_cwd()) {
            Some((_, line)) => {
                writeln!(w, "resume with:\n  {line}")?;
                if let Some(command) = &self.plan.resume_command {
                    writeln!(w, "headless:\n  {command}")?;
                }
            }
            None => {
                if let Some(command) = &self.plan.resume_command {
                    writeln!(w, "resume with:\n  {command}")?;
                }
            }
        }
        writeln!(w, "target    {} {}", self.codec.harness, self.target_version.describe())?;
        match &self.rewritten_from {
            Some(from) => writeln!(
                w,
                "writer    {} (the export was written by {from}; written again for this version)",
                self.codec.id()
            )?,
            None => writeln!(w, "writer    {}", self.codec.id())?,
        }
        let status = if self.verdict.verified { "verified" } else { "not verified" };
        writeln!(w, "{status}: {}", self.verdict.reason)
    }
}

/// Completes or undoes installs a kill interrupted (run before every
/// command); says so on stderr, one line each.
pub fn recover_installs(data_dir: &std::path::Path) {
    match install::recover(&install::journal_dir(data_dir)) {
        Ok(recovered) => {
            for r in recovered {
                let what = match r.outcome {
                    RecoveryOutcome::RolledBack => "undone (it was interrupted before anything was visible)",
                    RecoveryOutcome::RolledForward => "completed",
                    RecoveryOutcome::Retrying => "still incomplete; the next command retries",
                };
                let problems =
                    if r.problems.is_empty() { String::new() } else { format!(": {}", r.problems.join("; ")) };
                eprintln!(
                    "trajhost: an interrupted install of {} into {} was {what}{problems}",
                    r.native_id,
                    r.home.display()
                );
            }
        }
        Err(error) => eprintln!("trajhost: warning: cannot recover interrupted installs: {error}"),
    }
}
