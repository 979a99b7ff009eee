//! Finding sessions: discovery across every harness's codecs, filtering by
//! harness and cwd, and resolving a path or an id to one session.
//!
//! Several versions of one harness's codec may be installed side by side,
//! each looking in its own folders. Discovery and path mapping therefore use
//! every version's `discover` and `session-globs`; a session found by more
//! than one version is listed once, attributed to the codec `read` would
//! choose for its native version ([`Catalog::select`]).

pub mod digest;
pub mod homes;
pub mod packed;
pub mod redaction;
pub mod target_version;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use trajhost_capabilities::wit::latest::codec::{ReadOptions, SessionRef, Sniffed};
use trajhost_capabilities::wit::latest::types::Diagnostic;
use trajhost_registry::CodecRecord;
use trajhost_registry::catalog::Catalog;
use trajhost_runtime::error::{HostError, Result};
use trajhost_runtime::{Mount, SessionStream};

/// What `sessions` looks for.
#[derive(Debug, Clone, Default)]
pub struct SessionQuery {
    pub home: PathBuf,
    pub harness: Option<String>,
    /// Keep sessions whose cwd is this path or lies under it.
    pub cwd: Option<PathBuf>,
}

/// One session found under a home.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FoundSession {
    pub harness: String,
    /// The codec whose `discover` (or `inspect`) reported the session.
    pub discovered_by: String,
    /// The codec `read` uses for it: the one its native version selects, or
    /// `--codec`. `None` when no installed codec covers its native version.
    pub codec: Option<String>,
    pub home: PathBuf,
    #[serde(flatten)]
    pub session: SessionSummary,
    /// Other copies of this session (the same harness, native id and file
    /// name under another home of the harness: `.codex-work/…` beside
    /// `.codex/…`, a second profile). The listed one is the largest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub copies: Vec<PathBuf>,
    /// Why the session cannot be continued in another harness as it is (the
    /// codec's `not-portable` discovery diagnostics): `convert` needs `--lossy`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_portable: Vec<String>,
    /// The native id of the session this one continues (a resumed
    /// conversation the harness keeps as a new session: Claude Code 1.0's
    /// forked resume files, a `continued-in` record), from the codec's
    /// `continues` / `continued-in` discovery diagnostics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continues: Option<String>,
    /// For an archived session whose store is gone: the recorded SQLite
    /// answers its codec reads instead (the archive's evidence).
    #[serde(skip)]
    pub replay: Option<std::sync::Arc<trajhost_capabilities::evidence::Replay>>,
}

/// A `session-ref` in host form.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SessionSummary {
    pub native_id: String,
    pub locator: String,
    pub path: PathBuf,
    pub cwd: Option<String>,
    pub started_at: Option<String>,
    pub updated_at: Option<String>,
    pub size: u64,
    pub native_version: Option<String>,
    pub title: Option<String>,
}

impl SessionSummary {
    fn new(catalog: &Catalog<'_>, home: &Path, session: SessionRef) -> SessionSummary {
        SessionSummary {
            path: catalog.runtime().home_mounts().host_path(home, &session.locator),
            native_id: session.native_id,
            locator: session.locator,
            cwd: session.cwd,
            started_at: session.started_at,
            updated_at: session.updated_at,
            size: session.size,
            native_version: session.native_version,
            title: session.title,
        }
    }
}

/// The file part of a locator: `store.db#session` names a session inside
/// `store.db`.
fn locator_file(locator: &str) -> &str {
    locator.split_once('#').map_or(locator, |(file, _)| file)
}

/// A codec's complaint during discovery, usually about one file (`file` is
/// relative to the home).
#[derive(Debug, Clone)]
pub struct HarnessDiagnostic {
    pub harness: String,
    /// The codec (`harness@version`) that reported it.
    pub codec: String,
    pub diagnostic: Diagnostic,
}

/// Everything discovery found, plus what went wrong per harness.
#[derive(Debug, Default)]
pub struct Inventory {
    /// The canonical home the sessions were looked for under.
    pub home: PathBuf,
    pub sessions: Vec<FoundSession>,
    pub diagnostics: Vec<HarnessDiagnostic>,
    /// A codec whose `discover` failed, by harness; the error names the
    /// codec. The other codecs and harnesses still ran.
    pub failures: Vec<(String, HostError)>,
}

/// Runs every codec version of every harness (or of `query.harness`) over
/// the home.
pub fn discover(catalog: &Catalog<'_>, query: &SessionQuery) -> Result<Inventory> {
    let home = std::fs::canonicalize(&query.home).map_err(|e| HostError::io(&query.home, e))?;
    let mut inventory = Inventory { home: home.clone(), ..Inventory::default() };
    let harnesses: Vec<String> = match &query.harness {
        Some(h) => {
            if catalog.for_harness(h).is_empty() {
                return Err(HostError::NoCodec(trajhost_registry::catalog::no_codec_message(catalog, h)));
            }
            vec![h.clone()]
        }
        None => catalog.harnesses(),
    };
    for harness in harnesses {
        discover_harness(catalog, &harness, &home, &mut inventory);
    }
    merge_copies(&mut inventory.sessions);
    if let Some(cwd) = &query.cwd {
        inventory.sessions.retain(|s| s.session.cwd.as_deref().is_some_and(|c| is_within(Path::new(c), cwd)));
    }
    inventory.sessions.sort_by(|a, b| {
        b.session.updated_at.cmp(&a.session.updated_at).then_with(|| a.session.native_id.cmp(&b.session.native_id))
    });
    Ok(inventory)
}

/// One harness: every version's `discover`, then one entry per locator.
fn discover_harness(catalog: &Catalog<'_>, harness: &str, home: &Path, inventory: &mut Inventory) {
    // Newest first, so the first report of a locator is the newest codec's.
    let codecs = catalog.for_harness(harness);
    let mut reports: Vec<(String, Vec<(&CodecRecord, SessionRef)>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut diagnostics: Vec<HarnessDiagnostic> = Vec::new();
    let mounts = catalog.runtime().home_mounts().for_home(home);
    for codec in &codecs {
        // A codec none of whose stores is under the home would find
        // nothing: it is not run (nor compiled, on a first run).
        if !store_present(home, &mounts, codec) {
            tracing::debug!("{}: no store under {}; not run", codec.id(), home.display());
            continue;
        }
        let discovery = match catalog.instantiate(codec).and_then(|mut instance| instance.discover(home)) {
            Ok(discovery) => discovery,
            Err(error) => {
                inventory.failures.push((harness.to_string(), error));
                continue;
            }
        };
        for session in discovery.sessions {
            let slot = *index.entry(session.locator.clone()).or_insert_with(|| {
                reports.push((session.locator.clone(), Vec::new()));
                reports.len() - 1
            });
            reports[slot].1.push((*codec, session));
        }
        for diagnostic in discovery.diagnostics {
            let duplicate = diagnostics.iter().any(|d| {
                d.diagnostic.code == diagnostic.code
                    && d.diagnostic.file == diagnostic.file
                    && d.diagnostic.detail == diagnostic.detail
            });
            if !duplicate {
                diagnostics.push(HarnessDiagnostic { harness: harness.to_string(), codec: codec.id(), diagnostic });
            }
        }
    }
    // (codec, file) of every report, before the reports are consumed.
    let reported: Vec<(String, String)> = reports
        .iter()
        .flat_map(|(locator, found)| {
            found.iter().map(move |(codec, _)| (codec.id(), locator_file(locator).to_string()))
        })
        .collect();
    for (_, mut found) in reports {
        let (newest, primary) = &found[0];
        let native_version = primary.native_version.clone();
        let placed_by: Vec<&CodecRecord> = found.iter().map(|(codec, _)| *codec).collect();
        let chosen = catalog.select_placed(harness, native_version.as_deref(), &placed_by).ok().map(CodecRecord::id);
        // Prefer the chosen codec's own account of the session.
        let pick = chosen.as_ref().and_then(|c| found.iter().position(|(codec, _)| codec.id() == *c)).unwrap_or(0);
        let discovered_by = if pick == 0 { newest.id() } else { found[pick].0.id() };
        let (_, session) = found.swap_remove(pick);
        inventory.sessions.push(FoundSession {
            harness: harness.to_string(),
            discovered_by,
            codec: chosen,
            home: home.to_path_buf(),
            session: SessionSummary::new(catalog, home, session),
            copies: Vec::new(),
            not_portable: Vec::new(),
            continues: None,
            replay: None,
        });
    }
    link_continuations(harness, &mut inventory.sessions, &mut diagnostics);
    // `not-portable` about a listed session marks the session instead.
    diagnostics.retain(|d| {
        if d.diagnostic.code != "not-portable" {
            return true;
        }
        let Some(file) = d.diagnostic.file.as_deref() else { return true };
        let mut marked = false;
        for s in inventory.sessions.iter_mut().filter(|s| s.harness == harness && s.session.locator == file) {
            if !s.not_portable.contains(&d.diagnostic.detail) {
                s.not_portable.push(d.diagnostic.detail.clone());
            }
            marked = true;
        }
        !marked
    });
    // A file one version cannot place while another lists it is no news;
    // what a codec says about a file it listed itself stays.
    diagnostics.retain(|d| match d.diagnostic.file.as_deref() {
        Some(file) => {
            let listed = reported.iter().any(|(_, f)| f == file);
            !listed || reported.iter().any(|(codec, f)| f == file && *codec == d.codec)
        }
        None => true,
    });
    inventory.diagnostics.extend(diagnostics);
}

/// Whether any of `codec`'s `session-globs` can match under `home`: the
/// glob's leading segments up to its last one without a wildcard name an
/// existing path (`.claude/projects` of `.claude/projects/*/*.jsonl`,
/// `.claude-*/projects` of `.claude-*/projects/*/*.jsonl`), mounts included.
/// A codec that declares no globs is always run.
pub fn store_present(home: &Path, mounts: &[Mount], codec: &CodecRecord) -> bool {
    codec.session_globs.is_empty() || codec.session_globs.iter().any(|glob| glob_store_exists(home, mounts, glob))
}

fn glob_store_exists(home: &Path, mounts: &[Mount], glob: &str) -> bool {
    let segments: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let fixed = segments.iter().rposition(|s| !s.contains('*')).map_or(0, |i| i + 1);
    path_exists(home, &segments[..fixed], mounts)
}

/// One stat per literal segment, one listing per wildcard segment.
fn path_exists(dir: &Path, segments: &[&str], mounts: &[Mount]) -> bool {
    let Some((first, rest)) = segments.split_first() else { return dir.exists() };
    if mounts.iter().any(|m| segment_matches(first, &m.name) && path_exists(&m.target, rest, &[])) {
        return true;
    }
    if !first.contains('*') {
        return path_exists(&dir.join(first), rest, &[]);
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().any(|entry| {
        entry.file_name().to_str().is_some_and(|name| segment_matches(first, name))
            && path_exists(&entry.path(), rest, &[])
    })
}

/// Folds the copies of one session into its largest copy. A copy is
/// another locator of the same harness with the same native id and the same
/// file name (and `#fragment`): what copying a home, or a session folder,
/// from one home of a harness to another leaves behind.
fn merge_copies(sessions: &mut Vec<FoundSession>) {
    fn key(s: &FoundSession) -> (String, String, String) {
        let name = s.session.locator.rsplit('/').next().unwrap_or(&s.session.locator).to_string();
        (s.harness.clone(), s.session.native_id.clone(), name)
    }
    let mut groups: HashMap<(String, String, String), Vec<usize>> = HashMap::new();
    for (i, session) in sessions.iter().enumerate() {
        groups.entry(key(session)).or_default().push(i);
    }
    let mut drop = vec![false; sessions.len()];
    for members in groups.values().filter(|m| m.len() > 1) {
        // Largest first; the locator breaks ties so the pick is stable.
        let mut members = members.clone();
        members.sort_by(|&a, &b| {
            sessions[b]
                .session
                .size
                .cmp(&sessions[a].session.size)
                .then_with(|| sessions[a].session.locator.cmp(&sessions[b].session.locator))
        });
        // A home that is a link to another is the same directory: no copy.
        let real = |i: usize| std::fs::canonicalize(locator_file(&sessions[i].session.path.to_string_lossy())).ok();
        let kept = real(members[0]);
        let copies: Vec<PathBuf> = members[1..]
            .iter()
            .filter(|&&i| kept.is_none() || real(i) != kept)
            .map(|&i| sessions[i].session.path.clone())
            .collect();
        for &i in &members[1..] {
            drop[i] = true;
        }
        sessions[members[0]].copies = copies;
    }
    let mut index = 0;
    sessions.retain(|_| {
        index += 1;
        !drop[index - 1]
    });
}

/// True when `path` is `root` or lies under it, on a path-component
/// boundary (`/w/agent/sub` is within `/w/agent`; `/w/agent-dev` is not).
pub fn is_within(path: &Path, root: &Path) -> bool {
    let (path, root) = (normal_components(path), normal_components(root));
    path.len() >= root.len() && path[..root.len()] == root[..]
}

fn normal_components(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

/// How to find one session.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lookup<'a> {
    /// Where an id is looked for.
    pub home: Option<&'a Path>,
    /// Only this harness.
    pub harness: Option<&'a str>,
    /// Use this codec (`harness@version`) for `inspect` and `read`, whatever
    /// the native version says.
    pub codec: Option<&'a str>,
}

/// Resolves `target` (a path to a session file, or a native id or unique
/// prefix of one) to a session.
pub fn resolve(catalog: &Catalog<'_>, target: &str, home: &Path, harness: Option<&str>) -> Result<FoundSession> {
    resolve_with(catalog, target, &Lookup { home: Some(home), harness, codec: None })
}

/// The sessions whose native id is `target`, else those it is a prefix of.
pub fn matching_id<'s>(sessions: &'s [FoundSession], target: &str) -> Vec<&'s FoundSession> {
    let exact: Vec<&FoundSession> = sessions.iter().filter(|s| s.session.native_id == target).collect();
    if exact.is_empty() { sessions.iter().filter(|s| s.session.native_id.starts_with(target)).collect() } else { exact }
}

/// [`resolve`] with every option.
pub fn resolve_with(catalog: &Catalog<'_>, target: &str, lookup: &Lookup<'_>) -> Result<FoundSession> {
    let forced = match lookup.codec {
        Some(wanted) => Some(catalog.select(
            lookup.harness.unwrap_or(wanted.split('@').next().unwrap_or(wanted)),
            None,
            Some(wanted),
        )?),
        None => None,
    };
    let harness = forced.map(|c| c.harness.as_str()).or(lookup.harness);
    let as_path = Path::new(target);
    if as_path.exists() {
        return resolve_path(catalog, as_path, harness, forced, None);
    }
    // `store.db#session` names one session inside a multi-session store, as
    // `sessions` prints it.
    if let Some((file, fragment)) = target.rsplit_once('#')
        && Path::new(file).is_file()
        && !fragment.is_empty()
    {
        return resolve_path(catalog, Path::new(file), harness, forced, Some(fragment));
    }
    let home = lookup.home.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    if let Some(found) = resolve_by_file_name(catalog, &home, target, harness, forced) {
        return Ok(found);
    }
    let inventory =
        discover(catalog, &SessionQuery { home: home.clone(), harness: harness.map(String::from), cwd: None })?;
    let matches = matching_id(&inventory.sessions, target);
    match matches.as_slice() {
        [one] => {
            let mut found = (*one).clone();
            if let Some(codec) = forced {
                found.codec = Some(codec.id());
            }
            Ok(found)
        }
        [] => {
            // A harness whose codec is a plugin file not installed here.
            let uncovered = trajhost_registry::uncovered::find(&inventory.home, &catalog.harnesses(), harness);
            if let Some(s) = uncovered.iter().find(|s| s.native_id.starts_with(target)) {
                return Err(HostError::NoCodec(format!(
                    "{} is a {} session, and no {} codec is installed: it ships as the plugin file {} (trajhost plugin install {})",
                    s.path.display(),
                    s.harness,
                    s.harness,
                    s.plugin_file,
                    s.plugin_file
                )));
            }
            let mut message = format!(
                "no session {target:?} under {} ({} sessions found; `trajhost sessions --home {}` lists them)",
                home.display(),
                inventory.sessions.len(),
                home.display()
            );
            // A codec that failed may have held it: say which, and why.
            for (harness, error) in &inventory.failures {
                message.push_str(&format!("\n  {harness}: discovery failed: {error}"));
            }
            Err(HostError::SessionNotFound(message))
        }
        many => Err(HostError::SessionNotFound(format!(
            "{target:?} matches {} sessions ({}); give more of the id or --harness",
            many.len(),
            many.iter().map(|s| format!("{}:{}", s.harness, s.session.native_id)).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The fast path of an id: most harnesses name a session's file (or its
/// folder) after its id, so the store paths under `home` that contain
/// `target` are listed (one directory listing per wildcard segment of the
/// codecs' `session-globs`, no file opened), and when exactly one does, that
/// file alone is asked about. Taken only when the session it holds has
/// `target` as its id (or, for a prefix of 8 characters or more, begins
/// with it); anything else (no path, several, another id, an error) falls
/// back to a full discovery, which also covers stores that do not name
/// sessions by id (SQLite databases) and homes moved out of `home`.
fn resolve_by_file_name(
    catalog: &Catalog<'_>,
    home: &Path,
    target: &str,
    harness: Option<&str>,
    forced: Option<&CodecRecord>,
) -> Option<FoundSession> {
    const SHORTEST_PREFIX: usize = 8;
    if target.len() < SHORTEST_PREFIX || !target.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return None;
    }
    let home = std::fs::canonicalize(home).ok()?;
    let mut paths: Vec<PathBuf> = Vec::new();
    for h in catalog.harnesses() {
        if harness.is_some_and(|wanted| wanted != h) {
            continue;
        }
        for codec in catalog.for_harness(&h) {
            for glob in &codec.session_globs {
                let segments: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
                paths_containing(&home, &segments, target, false, &mut paths);
                if paths.len() > 1 {
                    paths.sort();
                    paths.dedup();
                    if paths.len() > 1 {
                        return None;
                    }
                }
            }
        }
    }
    let [path] = paths.as_slice() else { return None };
    let found = resolve_path(catalog, path, harness, forced, None).ok()?;
    let id = found.session.native_id.as_str();
    (id == target || id.starts_with(target)).then(|| {
        tracing::debug!("{target}: resolved from its file name, {}", path.display());
        found
    })
}

/// The files under `dir` that match `segments` and whose path below `dir`
/// contains `target` (`seen`: an earlier segment did).
fn paths_containing(dir: &Path, segments: &[&str], target: &str, seen: bool, out: &mut Vec<PathBuf>) {
    let Some((first, rest)) = segments.split_first() else {
        if seen && dir.is_file() {
            out.push(dir.to_path_buf());
        }
        return;
    };
    if !first.contains('*') {
        paths_containing(&dir.join(first), rest, target, seen || first.contains(target), out);
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !segment_matches(first, name) {
            continue;
        }
        let seen = seen || name.contains(target);
        // The last segment names files: only those with the id are looked at.
        if rest.is_empty() && !seen {
            continue;
        }
        paths_containing(&entry.path(), rest, target, seen, out);
        if out.len() > 1 {
            return;
        }
    }
}

/// Where a file lies relative to one codec's session globs.
struct GlobMatch<'c> {
    codec: &'c CodecRecord,
    home: PathBuf,
    locator: String,
}

/// Maps a session file to (harness, home, locator) with the `session-globs`
/// of every codec version, then asks a codec about it.
fn resolve_path(
    catalog: &Catalog<'_>,
    path: &Path,
    harness: Option<&str>,
    forced: Option<&CodecRecord>,
    fragment: Option<&str>,
) -> Result<FoundSession> {
    let path = std::fs::canonicalize(path).map_err(|e| HostError::io(path, e))?;
    let components = normal_components(&path);
    // Every version's globs: a forced codec still finds the home through
    // the layout of the version that keeps such files.
    let mut codecs: Vec<&CodecRecord> = Vec::new();
    for h in catalog.harnesses() {
        if harness.is_none_or(|wanted| wanted == h) {
            codecs.extend(catalog.for_harness(&h));
        }
    }
    if let Some(codec) = forced {
        codecs.retain(|c| c.id() != codec.id());
        codecs.insert(0, codec);
    }
    let matches: Vec<GlobMatch<'_>> = codecs.iter().filter_map(|codec| glob_match(codec, &components)).collect();
    let mut harnesses: Vec<&str> = matches.iter().map(|m| m.codec.harness.as_str()).collect();
    harnesses.dedup();
    if harnesses.len() > 1 {
        return Err(HostError::SessionNotFound(format!(
            "{}: could belong to {}; pass --harness",
            path.display(),
            harnesses.join(" or ")
        )));
    }
    let with_fragment = |locator: String| match fragment {
        Some(fragment) => format!("{locator}#{fragment}"),
        None => locator,
    };
    if let (Some(codec), Some(m)) = (forced, matches.first()) {
        return inspect_loose(catalog, codec, &path, &m.home, &with_fragment(m.locator.clone()), forced, None);
    }
    if !matches.is_empty() {
        // Newest matching version first (the catalog lists them so); an
        // older one may still place a file the newest does not.
        let mut first_error = None;
        for m in &matches {
            match inspect(catalog, m.codec, &m.home, &with_fragment(m.locator.clone()), forced) {
                Ok(found) => return Ok(found),
                Err(error) => {
                    tracing::debug!("{} cannot inspect {}: {error}", m.codec.id(), path.display());
                    first_error.get_or_insert(error);
                }
            }
        }
        return Err(first_error.expect("at least one match"));
    }
    // Outside every codec's layout: grant the file's directory, and let the
    // content say whose it is.
    let home = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let locator = with_fragment(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    if let Some(codec) = forced {
        return inspect_loose(catalog, codec, &path, &home, &locator, forced, None);
    }
    let head = read_head(&path)?;
    let (codec, sniffed) = match harness {
        Some(h) => {
            let codecs = catalog.sniffers(h);
            let newest = *codecs.first().ok_or_else(|| HostError::NoCodec(format!("no codec for harness {h:?}")))?;
            // The codec that recognizes the content reads it (the newest
            // when none does); a sniffed native version picks the version.
            let mut pick = (newest, None);
            for codec in codecs {
                match catalog.instantiate(codec).and_then(|mut i| i.sniff(&path.to_string_lossy(), &head)) {
                    Ok(Some(sniffed)) => {
                        pick = (codec, Some(sniffed));
                        break;
                    }
                    Ok(None) => {}
                    Err(error) => tracing::warn!("{}: {error}", path.display()),
                }
            }
            pick
        }
        None => sniff(catalog, &path, &head)?,
    };
    // A shadowed codec that recognized it hands it to the one in effect with its id.
    let codec = catalog.effective().find(|c| c.id() == codec.id()).unwrap_or(codec);
    let codec = match sniffed.as_ref().and_then(|s| s.native_version.as_deref()) {
        Some(version) => catalog.select_placed(&codec.harness, Some(version), &[codec]).unwrap_or(codec),
        None => codec,
    };
    inspect_loose(catalog, codec, &path, &home, &locator, forced, sniffed.as_ref())
}

/// A codec says a listed session continues another with an info diagnostic
/// on its file, `continues` (detail: the earlier session's native id), or
/// on the earlier one's file, `continued-in` (detail: the later session's
/// id). Either marks the later session's `continues` and is not reported.
fn link_continuations(harness: &str, sessions: &mut [FoundSession], diagnostics: &mut Vec<HarnessDiagnostic>) {
    diagnostics.retain(|d| {
        let code = d.diagnostic.code.as_str();
        if code != "continues" && code != "continued-in" {
            return true;
        }
        let Some(file) = d.diagnostic.file.as_deref() else { return true };
        let Some(on) = sessions.iter().position(|s| s.harness == harness && s.session.locator == file) else {
            return true;
        };
        let (later, earlier) = if code == "continues" {
            (Some(on), d.diagnostic.detail.clone())
        } else {
            let later =
                sessions.iter().position(|s| s.harness == harness && s.session.native_id == d.diagnostic.detail);
            (later, sessions[on].session.native_id.clone())
        };
        match later {
            Some(later) if sessions[later].session.native_id != earlier => {
                sessions[later].continues = Some(earlier);
                false
            }
            _ => true,
        }
    });
}

/// The whole conversation `found` belongs to, oldest session first: the
/// sessions it continues, itself, and the newest line of sessions that
/// continue it (`read --follow`). Found by a discovery of its harness in its
/// home.
pub fn conversation(catalog: &Catalog<'_>, found: &FoundSession) -> Result<Vec<FoundSession>> {
    let query = SessionQuery { home: found.home.clone(), harness: Some(found.harness.clone()), cwd: None };
    let sessions = discover(catalog, &query)?.sessions;
    let by_id = |id: &str| sessions.iter().find(|s| s.session.native_id == id);
    let mut chain = vec![by_id(&found.session.native_id).cloned().unwrap_or_else(|| found.clone())];
    while let Some(earlier) = chain[0].continues.as_deref().and_then(by_id) {
        if chain.iter().any(|s| s.session.native_id == earlier.session.native_id) {
            break; // a loop in the links
        }
        chain.insert(0, earlier.clone());
    }
    loop {
        let last = &chain[chain.len() - 1].session.native_id;
        // `sessions` is newest first: the newest continuation wins.
        let Some(later) = sessions.iter().find(|s| s.continues.as_deref() == Some(last.as_str())) else { break };
        if chain.iter().any(|s| s.session.native_id == later.session.native_id) {
            break;
        }
        chain.push(later.clone());
    }
    Ok(chain)
}

/// At most this much of a file is shown to `sniff`.
pub const SNIFF_HEAD_BYTES: u64 = 64 << 10;

fn read_head(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| HostError::io(path, e))?;
    let mut head = Vec::with_capacity(SNIFF_HEAD_BYTES as usize);
    file.take(SNIFF_HEAD_BYTES).read_to_end(&mut head).map_err(|e| HostError::io(path, e))?;
    Ok(head)
}

/// Asks the codecs of every harness whether the file is their format.
fn sniff<'c>(catalog: &'c Catalog<'_>, path: &Path, head: &[u8]) -> Result<(&'c CodecRecord, Option<Sniffed>)> {
    let path_text = path.to_string_lossy();
    let mut claims: Vec<(&CodecRecord, Sniffed)> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for harness in catalog.harnesses() {
        // Newest first; a codec for an older layout may know a file the
        // newest does not. The first claim speaks for the harness.
        for codec in catalog.sniffers(&harness) {
            match catalog.instantiate(codec).and_then(|mut instance| instance.sniff(&path_text, head)) {
                Ok(Some(sniffed)) => {
                    claims.push((codec, sniffed));
                    break;
                }
                Ok(None) => {}
                // One broken codec must not stop the others from recognizing it.
                Err(error) => failures.push(error.to_string()),
            }
        }
    }
    match claims.len() {
        1 => {
            let (codec, sniffed) = claims.remove(0);
            tracing::debug!("{} recognizes {}", codec.id(), path.display());
            Ok((codec, Some(sniffed)))
        }
        0 => {
            let mut message = format!(
                "{}: not where any codec keeps sessions, and no codec recognizes its content; pass --harness to read it anyway",
                path.display()
            );
            for failure in failures {
                message.push_str(&format!("\n  {failure}"));
            }
            Err(HostError::SessionNotFound(message))
        }
        _ => Err(HostError::SessionNotFound(format!(
            "{}: its content could belong to {}; pass --harness",
            path.display(),
            claims.iter().map(|(c, _)| c.harness.as_str()).collect::<Vec<_>>().join(" or ")
        ))),
    }
}

/// The home and locator of `components` under one of `codec`'s globs.
fn glob_match<'c>(codec: &'c CodecRecord, components: &[String]) -> Option<GlobMatch<'c>> {
    for glob in &codec.session_globs {
        let pattern: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
        if pattern.is_empty() || pattern.len() > components.len() {
            continue;
        }
        let tail = &components[components.len() - pattern.len()..];
        if pattern.iter().zip(tail).all(|(p, c)| segment_matches(p, c)) {
            let home: PathBuf = std::iter::once("/".to_string())
                .chain(components[..components.len() - pattern.len()].iter().cloned())
                .collect();
            return Some(GlobMatch { codec, home, locator: tail.join("/") });
        }
    }
    None
}

/// Asks `codec` about the session at `locator`, and attributes it to the
/// codec its native version selects (or the forced one).
fn inspect(
    catalog: &Catalog<'_>,
    codec: &CodecRecord,
    home: &Path,
    locator: &str,
    forced: Option<&CodecRecord>,
) -> Result<FoundSession> {
    let session = catalog.instantiate(codec)?.inspect(home, locator)?;
    Ok(attribute(catalog, codec, home, session, forced))
}

fn attribute(
    catalog: &Catalog<'_>,
    reporter: &CodecRecord,
    home: &Path,
    session: SessionRef,
    forced: Option<&CodecRecord>,
) -> FoundSession {
    let chosen = match forced {
        Some(codec) => Some(codec.id()),
        None => catalog
            .select_placed(&reporter.harness, session.native_version.as_deref(), &[reporter])
            .ok()
            .map(CodecRecord::id),
    };
    FoundSession {
        harness: reporter.harness.clone(),
        discovered_by: reporter.id(),
        codec: chosen,
        session: SessionSummary::new(catalog, home, session),
        home: home.to_path_buf(),
        copies: Vec::new(),
        not_portable: Vec::new(),
        continues: None,
        replay: None,
    }
}

/// A file outside every layout, granted through its directory (or one a
/// forced codec is asked about, in another version's layout). What
/// `sniff` saw in the content fills in what `inspect` could not know from
/// the name (the native version picks the codec that reads it). A codec that
/// places sessions only by their layout (0.1 codecs) cannot place the file
/// at all; the host then describes it from the file and the sniff, and lets
/// `read` judge its content.
fn inspect_loose(
    catalog: &Catalog<'_>,
    codec: &CodecRecord,
    path: &Path,
    home: &Path,
    locator: &str,
    forced: Option<&CodecRecord>,
    sniffed: Option<&Sniffed>,
) -> Result<FoundSession> {
    let mut session = match catalog.instantiate(codec)?.inspect(home, locator) {
        Ok(session) => session,
        Err(HostError::Codec { message, .. }) => {
            tracing::debug!("{} cannot place {} ({message}); describing the file itself", codec.id(), path.display());
            let size = std::fs::metadata(path).map_err(|e| HostError::io(path, e))?.len();
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            SessionRef {
                native_id: locator.split_once('#').map_or(stem, |(_, fragment)| fragment.to_string()),
                locator: locator.to_string(),
                cwd: None,
                started_at: None,
                updated_at: None,
                size,
                native_version: None,
                title: None,
            }
        }
        Err(error) => return Err(error),
    };
    if let Some(sniffed) = sniffed {
        if session.native_version.is_none() {
            session.native_version = sniffed.native_version.clone();
        }
        // The content's id beats one made from a file name.
        if let Some(id) = &sniffed.native_id
            && !locator.contains('#')
        {
            session.native_id = id.clone();
        }
    }
    Ok(attribute(catalog, codec, home, session, forced))
}

/// `*` matches any run of characters within one segment.
pub fn segment_matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// Opens a session for reading with the codec its native version calls for
/// (or `codec_override`).
pub fn open(
    catalog: &Catalog<'_>,
    found: &FoundSession,
    codec_override: Option<&str>,
    options: ReadOptions,
) -> Result<(CodecRecord, SessionStream)> {
    let wanted = codec_override.or(found.codec.as_deref());
    let (codec, note) = catalog.select_for_reading(
        &found.harness,
        found.session.native_version.as_deref(),
        wanted,
        &[found.discovered_by.as_str()],
    )?;
    if let Some(note) = note {
        tracing::warn!("{}: {note}", found.session.path.display());
    }
    let codec = codec.clone();
    let mut instance = catalog.instantiate(&codec)?;
    if let Some(replay) = &found.replay {
        instance.set_replay(replay.clone());
    }
    let stream = instance.read(&found.home, &found.session.locator, options)?;
    Ok((codec, stream))
}

/// Batch caps that keep memory flat while crossing the boundary rarely.
pub fn default_read_options() -> ReadOptions {
    ReadOptions { max_batch_records: 2048, max_batch_bytes: 4 << 20 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_filter_respects_path_boundaries() {
        assert!(is_within(Path::new("/w/agent"), Path::new("/w/agent")));
        assert!(is_within(Path::new("/w/agent/sub"), Path::new("/w/agent")));
        assert!(is_within(Path::new("/w/agent/sub"), Path::new("/w/agent/")));
        assert!(!is_within(Path::new("/w/agent-dev"), Path::new("/w/agent")));
        assert!(!is_within(Path::new("/w"), Path::new("/w/agent")));
    }

    #[test]
    fn glob_segments() {
        assert!(segment_matches("*.jsonl", "abc.jsonl"));
        assert!(segment_matches("rollout-*.jsonl", "rollout-2026-x.jsonl"));
        assert!(!segment_matches("*.jsonl", "abc.json"));
        assert!(segment_matches(".claude", ".claude"));
        assert!(segment_matches("*", "anything"));
        assert!(!segment_matches("a*b*c", "ac"));
    }

    #[test]
    fn locator_files() {
        assert_eq!(locator_file("a/store.db#ses_1"), "a/store.db");
        assert_eq!(locator_file("a/b.jsonl"), "a/b.jsonl");
    }
}
