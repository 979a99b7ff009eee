//! Finding sessions: discovery across every harness's codec, filtering by
//! harness and cwd, and resolving a path or an id to one session.

use std::path::{Component, Path, PathBuf};

use crate::catalog::Catalog;
use crate::error::{HostError, Result};
use crate::registry::CodecRecord;
use crate::runtime::SessionStream;
use crate::wit::latest::codec::{ReadOptions, SessionRef};
use crate::wit::latest::types::Diagnostic;

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
    /// The codec that discovered it.
    pub discovered_by: String,
    pub home: PathBuf,
    #[serde(flatten)]
    pub session: SessionSummary,
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
    fn new(home: &Path, session: SessionRef) -> SessionSummary {
        SessionSummary {
            path: home.join(&session.locator),
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

/// A codec's complaint during discovery.
#[derive(Debug, Clone)]
pub struct HarnessDiagnostic {
    pub harness: String,
    pub diagnostic: Diagnostic,
}

/// Everything discovery found, plus what went wrong per harness.
#[derive(Debug, Default)]
pub struct Inventory {
    pub sessions: Vec<FoundSession>,
    pub diagnostics: Vec<HarnessDiagnostic>,
    /// A harness whose codec failed; the others still ran.
    pub failures: Vec<(String, HostError)>,
}

/// Runs every harness's newest codec over the home.
pub fn discover(catalog: &Catalog<'_>, query: &SessionQuery) -> Result<Inventory> {
    let home = std::fs::canonicalize(&query.home).map_err(|e| HostError::io(&query.home, e))?;
    let mut inventory = Inventory::default();
    let harnesses: Vec<String> = match &query.harness {
        Some(h) => {
            if catalog.for_harness(h).is_empty() {
                return Err(HostError::NoCodec(format!("no codec for harness {h:?} (known: {})", catalog.harnesses().join(", "))));
            }
            vec![h.clone()]
        }
        None => catalog.harnesses(),
    };
    for harness in harnesses {
        let codec = catalog.for_harness(&harness)[0];
        match catalog.instantiate(codec).and_then(|mut instance| instance.discover(&home)) {
            Ok(discovery) => {
                for session in discovery.sessions {
                    let summary = SessionSummary::new(&home, session);
                    if let Some(cwd) = &query.cwd {
                        if !summary.cwd.as_deref().is_some_and(|c| is_within(Path::new(c), cwd)) {
                            continue;
                        }
                    }
                    inventory.sessions.push(FoundSession {
                        harness: harness.clone(),
                        discovered_by: codec.id(),
                        home: home.clone(),
                        session: summary,
                    });
                }
                inventory.diagnostics.extend(
                    discovery.diagnostics.into_iter().map(|diagnostic| HarnessDiagnostic { harness: harness.clone(), diagnostic }),
                );
            }
            Err(error) => inventory.failures.push((harness.clone(), error)),
        }
    }
    inventory.sessions.sort_by(|a, b| {
        b.session.updated_at.cmp(&a.session.updated_at).then_with(|| a.session.native_id.cmp(&b.session.native_id))
    });
    Ok(inventory)
}

/// True when `path` is `root` or lies under it, on a path-component
/// boundary (`/w/agent/sub` is within `/w/agent`; `/w/agent-dev` is not).
pub fn is_within(path: &Path, root: &Path) -> bool {
    let normalize = |p: &Path| -> Vec<String> {
        p.components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let (path, root) = (normalize(path), normalize(root));
    path.len() >= root.len() && path[..root.len()] == root[..]
}

/// Resolves `target` (a path to a session file, or a native id or unique
/// prefix of one) to a session.
pub fn resolve(catalog: &Catalog<'_>, target: &str, home: &Path, harness: Option<&str>) -> Result<FoundSession> {
    let as_path = Path::new(target);
    if as_path.exists() {
        return resolve_path(catalog, as_path, harness, None);
    }
    // `store.db#session` names one session inside a multi-session store, as
    // `sessions` prints it.
    if let Some((file, fragment)) = target.rsplit_once('#') {
        if Path::new(file).is_file() && !fragment.is_empty() {
            return resolve_path(catalog, Path::new(file), harness, Some(fragment));
        }
    }
    let inventory = discover(catalog, &SessionQuery { home: home.to_path_buf(), harness: harness.map(String::from), cwd: None })?;
    let exact: Vec<&FoundSession> = inventory.sessions.iter().filter(|s| s.session.native_id == target).collect();
    let matches = if exact.is_empty() {
        inventory.sessions.iter().filter(|s| s.session.native_id.starts_with(target)).collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(HostError::SessionNotFound(format!(
            "no session {target:?} under {} ({} sessions found; `trajhost sessions --home {}` lists them)",
            home.display(),
            inventory.sessions.len(),
            home.display()
        ))),
        many => Err(HostError::SessionNotFound(format!(
            "{target:?} matches {} sessions ({}); give more of the id or --harness",
            many.len(),
            many.iter().map(|s| format!("{}:{}", s.harness, s.session.native_id)).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Maps a session file to (harness, home, locator) with the codecs'
/// `session-globs`, then asks that codec about it.
fn resolve_path(catalog: &Catalog<'_>, path: &Path, harness: Option<&str>, fragment: Option<&str>) -> Result<FoundSession> {
    let path = std::fs::canonicalize(path).map_err(|e| HostError::io(path, e))?;
    let components: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let mut candidates: Vec<(&CodecRecord, PathBuf, String)> = Vec::new();
    for harness_id in catalog.harnesses() {
        if harness.is_some_and(|h| h != harness_id) {
            continue;
        }
        let codec = catalog.for_harness(&harness_id)[0];
        for glob in &codec.session_globs {
            let pattern: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
            if pattern.is_empty() || pattern.len() > components.len() {
                continue;
            }
            let tail = &components[components.len() - pattern.len()..];
            if pattern.iter().zip(tail).all(|(p, c)| segment_matches(p, c)) {
                let home: PathBuf = std::iter::once("/".to_string()).chain(components[..components.len() - pattern.len()].iter().cloned()).collect();
                candidates.push((codec, home, tail.join("/")));
                break;
            }
        }
    }
    if candidates.is_empty() {
        if let Some(h) = harness {
            // Outside the usual layout: grant the file's directory.
            let codec = catalog.for_harness(h).first().copied().ok_or_else(|| HostError::NoCodec(format!("no codec for harness {h:?}")))?;
            let home = path.parent().unwrap_or(Path::new("/")).to_path_buf();
            let locator = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            candidates.push((codec, home, locator));
        }
    }
    match candidates.len() {
        0 => Err(HostError::SessionNotFound(format!(
            "{}: not where any codec keeps sessions; pass --harness to read it anyway",
            path.display()
        ))),
        1 => {
            let (codec, home, mut locator) = candidates.remove(0);
            if let Some(fragment) = fragment {
                locator = format!("{locator}#{fragment}");
            }
            let session = catalog.instantiate(codec)?.inspect(&home, &locator)?;
            Ok(FoundSession {
                harness: codec.harness.clone(),
                discovered_by: codec.id(),
                session: SessionSummary::new(&home, session),
                home,
            })
        }
        _ => Err(HostError::SessionNotFound(format!(
            "{}: could belong to {}; pass --harness",
            path.display(),
            candidates.iter().map(|(c, _, _)| c.harness.as_str()).collect::<Vec<_>>().join(" or ")
        ))),
    }
}

/// `*` matches any run of characters within one segment.
fn segment_matches(pattern: &str, text: &str) -> bool {
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

/// Opens a session for reading with the codec its native version calls for.
pub fn open(catalog: &Catalog<'_>, found: &FoundSession, codec_override: Option<&str>, options: ReadOptions) -> Result<(CodecRecord, SessionStream)> {
    let codec = catalog.select(&found.harness, found.session.native_version.as_deref(), codec_override)?.clone();
    let stream = catalog.instantiate(&codec)?.read(&found.home, &found.session.locator, options)?;
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
}
