//! Sessions of harnesses that trajhost knows about but has no codec for in
//! this data dir: a codec that ships only as a plugin file (Cursor) is not
//! embedded, so until it is installed `sessions` still shows where its
//! sessions are and names the plugin file to install.
//!
//! Only the store layout is known here (a directory walk of fixed depth, one
//! stat per entry); reading needs the codec.

use std::path::{Path, PathBuf};

use crate::builtin::PLUGIN_FILE_ONLY;

/// Where a harness without an embedded codec keeps its sessions, relative to
/// a home: `*` is one path segment, the segment in `{id}` is the session id.
struct KnownStore {
    harness: &'static str,
    patterns: &'static [&'static str],
}

const KNOWN_STORES: &[KnownStore] = &[KnownStore {
    harness: "cursor",
    patterns: &[
        ".cursor/chats/*/{id}/store.db",
        ".cursor/acp-sessions/{id}/store.db",
        ".cursor/projects/*/agent-transcripts/{id}.jsonl",
        ".cursor/projects/*/agent-transcripts/*/{id}.jsonl",
    ],
}];

/// One session found where a harness without an installed codec keeps them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UncoveredSession {
    pub harness: String,
    pub native_id: String,
    pub path: PathBuf,
    /// The plugin file that reads it.
    pub plugin_file: String,
}

/// Sessions under `home` of the known harnesses that `installed` (the
/// catalog's harnesses) does not cover, each id once.
pub fn find(home: &Path, installed: &[String], harness: Option<&str>) -> Vec<UncoveredSession> {
    let mut found: Vec<UncoveredSession> = Vec::new();
    for store in KNOWN_STORES {
        if installed.iter().any(|h| h == store.harness) || harness.is_some_and(|h| h != store.harness) {
            continue;
        }
        let Some((_, plugin_file)) = PLUGIN_FILE_ONLY.iter().find(|(h, _)| *h == store.harness) else {
            continue;
        };
        for pattern in store.patterns {
            let segments: Vec<&str> = pattern.split('/').collect();
            walk(home, &segments, None, &mut |id, path| {
                if !found.iter().any(|s| s.harness == store.harness && s.native_id == id) {
                    found.push(UncoveredSession {
                        harness: store.harness.into(),
                        native_id: id.to_string(),
                        path,
                        plugin_file: (*plugin_file).into(),
                    });
                }
            });
        }
    }
    found.sort_by(|a, b| (&a.harness, &a.native_id).cmp(&(&b.harness, &b.native_id)));
    found
}

/// Matches `segments` below `dir`; calls `hit(id, path)` for each file.
fn walk(dir: &Path, segments: &[&str], id: Option<&str>, hit: &mut dyn FnMut(&str, PathBuf)) {
    let Some((segment, rest)) = segments.split_first() else { return };
    let last = rest.is_empty();
    let literal = !segment.contains('*') && !segment.contains("{id}");
    if literal {
        let path = dir.join(segment);
        if last {
            if path.is_file()
                && let Some(id) = id
            {
                hit(id, path);
            }
        } else if path.is_dir() {
            walk(&path, rest, id, hit);
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let captured = match segment.split_once("{id}") {
            Some((prefix, suffix)) => name
                .strip_prefix(prefix)
                .and_then(|n| n.strip_suffix(suffix))
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            None => None,
        };
        if segment.contains("{id}") && captured.is_none() {
            continue;
        }
        let id = captured.as_deref().or(id);
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if last {
            if kind.is_file()
                && let Some(id) = id
            {
                hit(id, path);
            }
        } else if kind.is_dir() {
            walk(&path, rest, id, hit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_layout_once_and_only_without_a_codec() {
        let home = tempfile::tempdir().unwrap();
        let put = |rel: &str| {
            let p = home.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        };
        put(".cursor/chats/f6a64ec9/aaaa-1/store.db");
        put(".cursor/acp-sessions/aaaa-1/store.db");
        put(".cursor/acp-sessions/bbbb-2/store.db");
        put(".cursor/projects/tmp-project/agent-transcripts/cccc-3.jsonl");
        put(".cursor/projects/tmp-project/agent-transcripts/dddd-4/dddd-4.jsonl");
        put(".cursor/chats/f6a64ec9/eeee-5/meta.json"); // no store: not a session
        assert!(PLUGIN_FILE_ONLY.contains(&("cursor", "cursor-2026.10.01.wasm")), "{PLUGIN_FILE_ONLY:?}");
        let found = find(home.path(), &[], None);
        let ids: Vec<&str> = found.iter().map(|s| s.native_id.as_str()).collect();
        assert_eq!(ids, ["aaaa-1", "bbbb-2", "cccc-3", "dddd-4"]);
        assert!(found[0].path.ends_with(".cursor/chats/f6a64ec9/aaaa-1/store.db"));
        assert!(found.iter().all(|s| s.plugin_file.starts_with("cursor-") && s.plugin_file.ends_with(".wasm")));
        assert!(find(home.path(), &["cursor".into()], None).is_empty());
        assert!(find(home.path(), &[], Some("codex")).is_empty());
    }
}
