//! Homes and session paths as given on the command line: a directory, or an
//! archive (`--home x.tgz`, `x.tgz#.claude/projects/…/s.jsonl`) opened into
//! a private temp dir that lives as long as the command.

use std::path::{Path, PathBuf};

use trajhost::catalog::Catalog;
use trajhost::packed::{self, PackedHome};

use super::{Context, default_home};

/// `--harness` and `--home`: how a session named on the command line is
/// looked up (read, view, export, convert, continue).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Lookup {
    /// The session's harness, when a path or id is ambiguous (export --all: only this harness).
    #[arg(long)]
    pub harness: Option<String>,
    /// Where to look for an id: a home directory or an archive of one (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

/// `--codec`: the codec that reads the session (read, view, export).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ReadingCodec {
    /// Use this codec (HARNESS@VERSION) instead of the one the session's native version selects.
    #[arg(long = "codec", value_name = "HARNESS@VERSION")]
    pub codec: Option<String>,
}

/// `HARNESS[@VERSION]`: the harness a session goes to (`convert --to`,
/// `continue --in`), and the native version to write for, if named.
#[derive(Clone, Debug)]
pub struct TargetHarness {
    pub harness: String,
    pub version: Option<String>,
}

impl std::str::FromStr for TargetHarness {
    type Err = String;

    fn from_str(text: &str) -> Result<TargetHarness, String> {
        let (harness, version) = match text.split_once('@') {
            Some((harness, version)) if !version.is_empty() => (harness, Some(version.to_string())),
            Some((harness, _)) => (harness, None),
            None => (text, None),
        };
        if harness.is_empty() {
            return Err(format!("{text:?} names no harness: give HARNESS or HARNESS@VERSION"));
        }
        Ok(TargetHarness { harness: harness.to_string(), version })
    }
}

impl Lookup {
    /// `--home`, opened.
    pub fn open_home(&self, ctx: &Context, catalog: &Catalog<'_>) -> anyhow::Result<Home> {
        open_home(ctx, catalog, self.home.as_deref())
    }

    /// The session `given` names under `home` (opened from this lookup),
    /// read with `codec` if one is forced.
    pub fn resolve(
        &self,
        ctx: &Context,
        catalog: &Catalog<'_>,
        home: &Home,
        given: &str,
        codec: &ReadingCodec,
    ) -> anyhow::Result<Session> {
        resolve_session(
            ctx,
            catalog,
            home,
            self.home.as_deref(),
            given,
            self.harness.as_deref(),
            codec.codec.as_deref(),
        )
    }
}

/// A home to look in.
pub struct Home {
    pub dir: PathBuf,
    /// Set when the home is an archive: keeps its private dir alive.
    pub packed: Option<PackedHome>,
}

impl Home {
    /// The home as the archive store knows it (`None`: not given).
    pub fn store_key(&self, given: Option<&Path>) -> Option<PathBuf> {
        match &self.packed {
            Some(packed) => Some(packed.key()),
            None => given.map(Path::to_path_buf),
        }
    }
}

/// `--home`: a directory as it is, an archive opened; $HOME when not given.
pub fn open_home(ctx: &Context, catalog: &Catalog<'_>, given: Option<&Path>) -> anyhow::Result<Home> {
    let dir = given.map(Path::to_path_buf).unwrap_or_else(default_home);
    if packed::is_archive(&dir) {
        let packed = open_archive(ctx, catalog, &dir)?;
        return Ok(Home { dir: packed.home().to_path_buf(), packed: Some(packed) });
    }
    Ok(Home { dir, packed: None })
}

/// A session target: `archive#member` opens the archive and names the
/// member's path inside it; anything else is returned as it is.
pub fn open_target(ctx: &Context, catalog: &Catalog<'_>, target: &str) -> anyhow::Result<(String, Option<PackedHome>)> {
    let Some((archive, member)) = packed::split_member(target) else { return Ok((target.to_string(), None)) };
    let packed = open_archive(ctx, catalog, &archive)?;
    // `store.db#session` after the member names one session of a database inside the archive.
    let (file, fragment) = match member.split_once('#') {
        Some((file, fragment)) if !packed.member(&member).exists() => (file.to_string(), Some(fragment.to_string())),
        _ => (member.clone(), None),
    };
    let path = packed.member(&file);
    if !path.exists() {
        anyhow::bail!("{}: no member {}", archive.display(), super::terminal::safe_field(&file));
    }
    let mut target = path.display().to_string();
    if let Some(fragment) = fragment {
        target = format!("{target}#{fragment}");
    }
    Ok((target, Some(packed)))
}

fn open_archive(ctx: &Context, catalog: &Catalog<'_>, archive: &Path) -> anyhow::Result<PackedHome> {
    let packed = packed::open(archive, &packed::home_markers(catalog), &ctx.unpack_limits)?;
    let skipped = packed.unpacked().skipped().len();
    if skipped > 0 {
        eprintln!(
            "{}: {skipped} member(s) not unpacked (links are not followed; -v lists them)",
            super::terminal::safe_text(&archive.display().to_string())
        );
    }
    Ok(packed)
}

/// `sync --home`: the homes given, archives among them opened.
pub struct Homes {
    pub dirs: Vec<PathBuf>,
    /// The archive store's name for each opened archive's home.
    pub keys: std::collections::HashMap<PathBuf, PathBuf>,
    /// Keeps the archives' private dirs alive.
    pub packed: Vec<PackedHome>,
}

pub fn open_homes(ctx: &Context, catalog: &Catalog<'_>, given: &[PathBuf]) -> anyhow::Result<Homes> {
    let given = if given.is_empty() { vec![default_home()] } else { given.to_vec() };
    let mut homes = Homes { dirs: Vec::new(), keys: Default::default(), packed: Vec::new() };
    for home in given {
        if packed::is_archive(&home) {
            let packed = open_archive(ctx, catalog, &home)?;
            homes.dirs.push(packed.home().to_path_buf());
            homes.keys.insert(packed.home().to_path_buf(), packed.key());
            homes.packed.push(packed);
        } else {
            homes.dirs.push(home);
        }
    }
    Ok(homes)
}

/// An id or prefix among an archive's sessions, loose ones included; `None`
/// when the home is not an archive or holds no such session (the usual
/// resolution then says what is wrong).
pub fn resolve_in_archive(
    catalog: &Catalog<'_>,
    home: &Home,
    target: &str,
    harness: Option<&str>,
) -> anyhow::Result<Option<trajhost::inventory::FoundSession>> {
    let Some(packed) = &home.packed else { return Ok(None) };
    if Path::new(target).exists() {
        return Ok(None);
    }
    let inventory = packed::discover(catalog, packed, harness, None)?;
    let matches = trajhost::inventory::matching_id(&inventory.sessions, target);
    Ok(match matches.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    })
}

/// A session named on the command line (a path, an id or a unique prefix,
/// `archive#member`), resolved as `read` resolves it: from the archive's
/// index first (read from the kept evidence when its source is gone), then
/// among an archive home's sessions, then by discovery under the home. Holds
/// what must outlive the read (an unpacked archive, a restored home).
pub struct Session {
    pub found: trajhost::inventory::FoundSession,
    _packed: Option<PackedHome>,
    _archived: Option<trajhost::archive::Resolved>,
}

/// Resolves `given` under `home` (`home_arg` is `--home` as given, the
/// archive store's key for it). `codec` (`--codec`) skips the archive.
fn resolve_session(
    ctx: &Context,
    catalog: &Catalog<'_>,
    home: &Home,
    home_arg: Option<&Path>,
    given: &str,
    harness: Option<&str>,
    codec: Option<&str>,
) -> anyhow::Result<Session> {
    let (target, packed) = open_target(ctx, catalog, given)?;
    let archived = match codec {
        None => super::archive::resolve_archived(ctx, catalog, &target, harness, home.store_key(home_arg).as_deref())?,
        Some(_) => None,
    };
    let found = match &archived {
        Some(resolved) => resolved.found.clone(),
        None => match resolve_in_archive(catalog, home, &target, harness)? {
            Some(found) if codec.is_none() => found,
            _ => {
                let lookup = trajhost::inventory::Lookup { home: Some(&home.dir), harness, codec };
                trajhost::inventory::resolve_with(catalog, &target, &lookup)?
            }
        },
    };
    if codec.is_none() {
        // A native version no installed codec reads: a registry may have one.
        super::plugin::oci::hint_for_session(ctx, catalog, &found);
    }
    Ok(Session { found, _packed: packed, _archived: archived })
}
