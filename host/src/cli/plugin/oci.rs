//! `trajhost plugin install oci://…`, `publish`, `sign`, `keygen`, `trust`,
//! `update`, and the registry hint other commands print.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;

use trajhost::catalog::Catalog;
use trajhost::inventory::{self, SessionQuery};
use trajhost::registry::Installed;
use trajhost::registry::remote::{Hint, Need, Remote, Want};
use trajhost_oci::keys::{PublicKey, SecretKey};
use trajhost_oci::trust::{TrustStore, Verification};

use crate::cli::terminal::safe_text;
use crate::cli::{Context, default_home, exit};

#[derive(clap::Args)]
pub struct PublishArgs {
    /// The codec component.
    #[arg(value_name = "FILE.wasm")]
    file: PathBuf,
    /// Where: oci://REGISTRY/REPOSITORY[:TAG] (tag default: the codec version).
    #[arg(value_name = "oci://REF")]
    reference: String,
    /// Sign it with this secret key (`plugin keygen`); unsigned otherwise.
    #[arg(long, value_name = "KEY")]
    key: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct SignArgs {
    #[arg(value_name = "oci://REF")]
    reference: String,
    /// The secret key (`plugin keygen`).
    #[arg(long, value_name = "KEY")]
    key: PathBuf,
}

#[derive(clap::Args)]
pub struct KeygenArgs {
    /// The secret key's file (PATH.pub gets the public key); never overwritten.
    path: PathBuf,
    /// A comment in the public key file (e.g. the publisher's name).
    #[arg(long)]
    comment: Option<String>,
}

#[derive(clap::Subcommand)]
pub enum TrustCommand {
    /// Accept codecs signed by this public key (a `plugin keygen` PATH.pub).
    Add {
        name: String,
        #[arg(value_name = "KEY.pub")]
        key: PathBuf,
    },
    /// The trusted publishers (the built-in codecs' one first).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Stop trusting a publisher (by name or key id).
    Remove { name: String },
}

#[derive(clap::Args)]
pub struct UpdateArgs {
    /// Only this harness.
    harness: Option<String>,
    /// Only list what is newer; install nothing.
    #[arg(long)]
    dry_run: bool,
    /// Where to look for sessions whose versions decide what is installed (default: $HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Install even unsigned codecs and codecs of untrusted publishers.
    #[arg(long)]
    allow_unsigned: bool,
    #[arg(long)]
    json: bool,
}

fn remote(ctx: &Context) -> anyhow::Result<Remote> {
    Ok(Remote::load(&ctx.data_dir, ctx.runtime.limits().max_component_bytes as u64)?)
}

pub fn install(ctx: &Context, reference: &str, force: bool, allow_unsigned: bool) -> anyhow::Result<u8> {
    let remote = remote(ctx)?;
    let done = remote.install(&ctx.registry, &ctx.runtime, reference, allow_unsigned, force)?;
    let (verb, record) = match done.installed {
        Installed::New(r) => ("installed", r),
        Installed::AlreadyPresent(r) => ("already installed", r),
        Installed::Replaced(r) => ("replaced", r),
    };
    if !matches!(done.verification, Verification::Signed { .. }) {
        eprintln!("warning: {reference} is {}; installed because of --allow-unsigned", done.verification.describe());
    }
    println!(
        "{verb} {} (native {}, api {}, sha256 {}) from {}, {}",
        record.id(),
        record.native_versions,
        record.api,
        &record.sha256[..16],
        done.pinned,
        done.verification.describe()
    );
    Ok(exit::OK)
}

pub fn publish(ctx: &Context, args: &PublishArgs) -> anyhow::Result<u8> {
    let remote = remote(ctx)?;
    let catalog = ctx.catalog()?;
    let builtin =
        |record: &trajhost::registry::CodecRecord| trajhost::registry::remote::is_builtin_bytes(&catalog, record);
    let published = remote.publish(&ctx.runtime, &args.file, &args.reference, args.key.as_deref(), &builtin)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&published)?);
    } else {
        println!("published {} to {}", published.codec, published.pushed.reference);
        println!("digest    {}", published.pushed.pinned);
        match &published.signed {
            Some(signed) => println!("signed    by {} (signatures: {})", signed.key_id, signed.signatures),
            None => eprintln!(
                "warning: not signed (no --key): `plugin install` refuses it unless --allow-unsigned; sign it with `trajhost plugin sign {} --key KEY`",
                published.pushed.reference
            ),
        }
    }
    Ok(exit::OK)
}

pub fn sign(ctx: &Context, args: &SignArgs) -> anyhow::Result<u8> {
    let signed = remote(ctx)?.sign(&args.reference, &args.key)?;
    println!("signed {} ({}) by {}", args.reference, signed.manifest_digest, signed.key_id);
    Ok(exit::OK)
}

pub fn keygen(args: &KeygenArgs) -> anyhow::Result<u8> {
    let key = SecretKey::generate()?;
    let public = key.write_pair(&args.path, args.comment.as_deref())?;
    println!("wrote {} (secret key, mode 0600: keep it private) and {}", args.path.display(), public.display());
    println!("key id {}", key.public().id());
    println!("users trust it with: trajhost plugin trust add NAME {}", public.display());
    Ok(exit::OK)
}

pub fn trust(ctx: &Context, command: &TrustCommand) -> anyhow::Result<u8> {
    let mut store = TrustStore::load(&ctx.data_dir)?;
    match command {
        TrustCommand::Add { name, key } => {
            let key = PublicKey::read(key)?;
            let added = store.add(name, &key, &trajhost::time::now_rfc3339())?;
            println!("trusted {} ({})", added.name, added.key_id);
        }
        TrustCommand::List { json } => {
            let publishers = store.publishers();
            if *json {
                println!("{}", serde_json::to_string_pretty(&publishers)?);
            } else {
                println!("{:<24} {:<26} ADDED", "PUBLISHER", "KEY");
                for p in publishers {
                    println!("{:<24} {:<26} {}", safe_text(&p.name), p.key_id, p.added);
                }
            }
        }
        TrustCommand::Remove { name } => {
            let removed = store.remove(name)?;
            println!("removed {} ({})", removed.name, removed.key_id);
        }
    }
    Ok(exit::OK)
}

pub fn update(ctx: &Context, args: &UpdateArgs) -> anyhow::Result<u8> {
    let remote = remote(ctx)?;
    let catalog = ctx.catalog()?;
    let installed = ctx.registry.installed()?;
    let from_registries = installed.iter().any(|r| r.origin.is_some());
    if !remote.configured() && !from_registries {
        anyhow::bail!(
            "no registry to look in: name one in {} (`[plugins] registries = [\"oci://REGISTRY/NAMESPACE\"]`; docs/plugins.md), or install a codec by reference first",
            trajhost::archive::config::config_path(&ctx.data_dir).display()
        );
    }
    let harnesses: Vec<String> = match &args.harness {
        Some(h) => vec![h.clone()],
        None => {
            let mut all: BTreeSet<String> = catalog.harnesses().into_iter().collect();
            all.extend(installed.iter().map(|r| r.harness.clone()));
            all.into_iter().collect()
        }
    };
    // The native versions of this machine's sessions decide what is installed.
    let home = args.home.clone().unwrap_or_else(default_home);
    let query = SessionQuery { home: home.clone(), harness: args.harness.clone(), cwd: None };
    let mut here: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // (A harness no codec here knows has no sessions to find.)
    let known = args.harness.as_ref().is_none_or(|h| catalog.harnesses().contains(h));
    if home.is_dir() && known {
        for s in inventory::discover(&catalog, &query)?.sessions {
            if let Some(v) = s.session.native_version {
                here.entry(s.harness).or_default().insert(v);
            }
        }
    }
    let plan = remote.update_plan(&catalog, &installed, &harnesses, &here)?;
    let mut report = Vec::new();
    let mut failed = false;
    for candidate in &plan.candidates {
        let action = if candidate.covers_here.is_empty() {
            "available".to_string()
        } else if args.dry_run {
            "would install".to_string()
        } else {
            match remote.install(&ctx.registry, &ctx.runtime, &candidate.reference, args.allow_unsigned, false) {
                Ok(done) => format!("installed, {}", done.verification.describe()),
                Err(error) => {
                    failed = true;
                    format!("not installed: {error}")
                }
            }
        };
        report.push((candidate, action));
    }
    if args.json {
        let rows: Vec<serde_json::Value> = report
            .iter()
            .map(|(c, action)| {
                serde_json::json!({
                    "harness": c.harness, "codec_version": c.codec_version, "reference": c.reference,
                    "native_versions": c.annotations.native_versions, "writes_for": c.annotations.writes_for,
                    "covers_here": c.covers_here, "action": action,
                })
            })
            .collect();
        let errors: Vec<serde_json::Value> =
            plan.errors.iter().map(|(r, e)| serde_json::json!({"repository": r, "error": e})).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "candidates": rows, "repositories": plan.repositories, "errors": errors,
            }))?
        );
    } else {
        let mut out = std::io::stdout().lock();
        if report.is_empty() {
            writeln!(out, "no newer codecs in {} repositories", plan.repositories.len())?;
        }
        for (c, action) in &report {
            let here = if c.covers_here.is_empty() {
                "no session here of a version it reads".to_string()
            } else {
                format!("reads {} found here", c.covers_here.join(", "))
            };
            writeln!(
                out,
                "{}@{}  {}  (reads {}; {here}): {}",
                c.harness,
                c.codec_version,
                c.reference,
                c.annotations.native_versions,
                safe_text(action)
            )?;
            if c.covers_here.is_empty() {
                writeln!(out, "    install it with: trajhost plugin install {}", c.reference)?;
            }
        }
    }
    for (repository, error) in &plan.errors {
        eprintln!("error: {repository}: {}", safe_text(error));
    }
    let all_failed = !plan.errors.is_empty() && plan.errors.len() == plan.repositories.len();
    Ok(if failed || all_failed { exit::ERROR } else { exit::OK })
}

/// The native version `harness` sessions of `version` have no installed
/// codec for.
pub fn uncovered(catalog: &Catalog<'_>, harness: &str, version: Option<&str>) -> bool {
    let Some(v) = version.and_then(trajhost::catalog::parse_native_version) else { return false };
    let codecs = catalog.for_harness(harness);
    !codecs.is_empty() && !codecs.iter().any(|c| c.covers(&v))
}

/// Looks up and prints (stderr) the hints for `wants`: one line each, or a
/// JSON line with `json`. Silent when no registry is configured.
pub fn print_hints(ctx: &Context, catalog: &Catalog<'_>, wants: &[Want], json: bool) {
    if wants.is_empty() {
        return;
    }
    let Ok(remote) = Remote::load(&ctx.data_dir, ctx.runtime.limits().max_component_bytes as u64) else { return };
    for hint in remote.hints(catalog, wants) {
        eprintln!("{}", describe_hint(&hint, wants, json));
    }
}

fn describe_hint(hint: &Hint, wants: &[Want], json: bool) -> String {
    let need = wants.iter().find(|w| w.harness == hint.harness && w.version == hint.native_version).map(|w| w.need);
    if json {
        let mut value = serde_json::to_value(hint).unwrap_or_default();
        value["kind"] = "hint".into();
        return value.to_string();
    }
    let what = match need {
        Some(Need::Write { covered: true }) => "no installed codec is verified for it",
        Some(Need::Write { covered: false }) => "no installed codec writes for it",
        _ => "no installed codec reads it",
    };
    safe_text(&format!(
        "hint: {} {}: {what}; {} has {} ({}): {}",
        hint.harness, hint.native_version, hint.reference, hint.codec, hint.because, hint.command
    ))
    .into_owned()
}

/// The hint for a session `read`, `view` or `continue` resolved.
pub fn hint_for_session(ctx: &Context, catalog: &Catalog<'_>, found: &inventory::FoundSession) {
    let version = found.session.native_version.as_deref();
    if uncovered(catalog, &found.harness, version) {
        let want =
            Want { harness: found.harness.clone(), version: version.unwrap_or_default().to_string(), need: Need::Read };
        print_hints(ctx, catalog, &[want], false);
    }
}

/// The hint after `prepare` wrote for a target version it could not verify.
pub fn hint_for_target(
    ctx: &Context,
    catalog: &Catalog<'_>,
    writer: &trajhost::registry::CodecRecord,
    version: Option<&str>,
    verified: bool,
) {
    let Some(version) = version else { return };
    if verified {
        return;
    }
    let covered = trajhost::catalog::parse_native_version(version).is_some_and(|v| writer.writes_version(&v));
    let want = Want { harness: writer.harness.clone(), version: version.to_string(), need: Need::Write { covered } };
    print_hints(ctx, catalog, &[want], false);
}
