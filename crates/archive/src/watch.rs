//! `trajhost watch`: file-system notifications over the stores the codecs
//! declare, debounced into incremental syncs.
//!
//! Only the stores are watched (the fixed directories the `session-globs`
//! start with: `.claude/projects`, `.codex/sessions`, `.hermes`), never a
//! whole home: agent homes hold plugins, caches and worktrees whose churn
//! would drown the sessions (and stalled other tools' daemons for minutes).
//! A store that does not exist yet is found by a non-recursive watch on its
//! nearest existing parent.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use super::store::ArchiveStore;
use super::sync::{SyncOptions, SyncReport, glob_root, sync};
use crate::Result;
use trajhost_inventory as inventory;
use trajhost_registry::catalog::Catalog;
use trajhost_runtime::error::HostError;

/// How the watcher waits.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub sync: SyncOptions,
    /// Quiet time after the last event before a sync.
    pub debounce: Duration,
    /// The longest a burst of events delays a sync.
    pub max_delay: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            sync: SyncOptions::default(),
            debounce: Duration::from_millis(300),
            max_delay: Duration::from_secs(3),
        }
    }
}

/// What is watched, and how.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchPlan {
    /// Existing store directories, watched recursively.
    pub stores: BTreeSet<PathBuf>,
    /// Watched non-recursively: the nearest existing parents of stores that
    /// do not exist yet, and the directories a glob names files directly in
    /// (Aider's history in a workspace under the home, or in the home itself).
    pub parents: BTreeSet<PathBuf>,
}

/// The store directories of every codec under `homes`.
pub fn plan(catalog: &Catalog<'_>, homes: &[PathBuf], harness: Option<&str>) -> WatchPlan {
    let mut plan = WatchPlan::default();
    for home in homes {
        let Ok(home) = std::fs::canonicalize(home) else { continue };
        for record in catalog.effective().filter(|c| harness.is_none_or(|h| h == c.harness)) {
            for glob in &record.session_globs {
                for (root, recursive) in store_roots(&home, glob) {
                    if !recursive {
                        if root.is_dir() {
                            plan.parents.insert(root);
                        }
                    } else if root.is_dir() {
                        plan.stores.insert(root);
                    } else {
                        let mut parent = root.parent().map(Path::to_path_buf);
                        while let Some(p) = parent {
                            if p.is_dir() {
                                plan.parents.insert(p);
                                break;
                            }
                            if p == home {
                                break;
                            }
                            parent = p.parent().map(Path::to_path_buf);
                        }
                    }
                }
            }
        }
    }
    // A parent that is itself inside a watched store adds nothing.
    let stores = plan.stores.clone();
    plan.parents.retain(|p| !stores.iter().any(|s| p.starts_with(s)));
    plan
}

/// The directories a glob's files live under, each with whether it is a
/// store to watch recursively: the glob's fixed leading part, or, when it
/// starts with a wildcard segment (`.claude-*/projects/…`), each existing
/// match of that segment with the fixed part after it. Where the files lie
/// directly in the home or in a matched directory (`.aider.chat.history.md`,
/// `*/.aider.chat.history.md`), that directory is watched on its own, never
/// the whole tree below it.
fn store_roots(home: &Path, glob: &str) -> Vec<(PathBuf, bool)> {
    let segments: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    if segments.len() == 1 {
        return vec![(home.to_path_buf(), false)];
    }
    let root = glob_root(glob);
    if !root.as_os_str().is_empty() {
        return vec![(home.join(root), true)];
    }
    let Some((first, rest)) = segments.split_first() else { return Vec::new() };
    let fixed: PathBuf = rest.iter().take_while(|s| !s.contains('*')).take(rest.len().saturating_sub(1)).collect();
    let recursive = rest.len() > 1;
    let Ok(entries) = std::fs::read_dir(home) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| e.file_name().to_str().is_some_and(|n| inventory::segment_matches(first, n)))
        .map(|e| (e.path().join(&fixed), recursive))
        .collect()
}

/// Syncs once, then again after every debounced burst of changes in the
/// stores, until `stop` is set. `on_sync` sees each sync's report.
pub fn watch(
    catalog: &Catalog<'_>,
    store: &mut dyn ArchiveStore,
    options: &WatchOptions,
    stop: &AtomicBool,
    on_sync: &mut dyn FnMut(&SyncReport, &WatchPlan),
) -> Result<()> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx).map_err(|e| HostError::io("inotify", e))?;
    let mut watched = WatchPlan::default();
    let replan = |watcher: &mut notify::RecommendedWatcher, watched: &mut WatchPlan| {
        let next = plan(catalog, &options.sync.homes, options.sync.harness.as_deref());
        for gone in watched.stores.difference(&next.stores).chain(watched.parents.difference(&next.parents)) {
            let _ = watcher.unwatch(gone);
        }
        for dir in next.stores.difference(&watched.stores) {
            if let Err(e) = watcher.watch(dir, RecursiveMode::Recursive) {
                tracing::warn!(dir = %dir.display(), "cannot watch: {e}");
            }
        }
        for dir in next.parents.difference(&watched.parents) {
            if let Err(e) = watcher.watch(dir, RecursiveMode::NonRecursive) {
                tracing::warn!(dir = %dir.display(), "cannot watch: {e}");
            }
        }
        tracing::info!(stores = next.stores.len(), parents = next.parents.len(), "watching");
        *watched = next;
    };
    replan(&mut watcher, &mut watched);
    let report = sync(catalog, store, &options.sync, &mut |_| {})?;
    on_sync(&report, &watched);
    while !stop.load(Ordering::Relaxed) {
        let first = match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(event) => event,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        if !relevant(&first) {
            continue;
        }
        // Debounce: wait for a quiet moment, but not forever.
        let burst = Instant::now();
        let mut last = Instant::now();
        while burst.elapsed() < options.max_delay && last.elapsed() < options.debounce {
            match rx.recv_timeout(options.debounce.saturating_sub(last.elapsed())) {
                Ok(event) if relevant(&event) => last = Instant::now(),
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        replan(&mut watcher, &mut watched);
        match sync(catalog, store, &options.sync, &mut |_| {}) {
            Ok(report) => on_sync(&report, &watched),
            Err(error) => tracing::warn!("sync failed: {error}"),
        }
    }
    Ok(())
}

/// Reads (our own sync opening files) are not changes.
fn relevant(event: &notify::Result<notify::Event>) -> bool {
    match event {
        Ok(event) => !matches!(event.kind, EventKind::Access(_)),
        Err(error) => {
            tracing::warn!("watch: {error}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_directly_in_a_directory_watch_that_directory_alone() {
        let home = tempfile::tempdir().unwrap();
        for dir in [".codex/sessions", "project"] {
            std::fs::create_dir_all(home.path().join(dir)).unwrap();
        }
        let h = home.path();
        assert_eq!(store_roots(h, ".aider.chat.history.md"), [(h.to_path_buf(), false)]);
        let mut workspaces = store_roots(h, "*/.aider.chat.history.md");
        workspaces.sort();
        assert_eq!(workspaces, [(h.join(".codex"), false), (h.join("project"), false)]);
        assert_eq!(store_roots(h, ".codex/sessions/*/*.jsonl"), [(h.join(".codex/sessions"), true)]);
        assert_eq!(store_roots(h, ".cod*/sessions/*/*.jsonl"), [(h.join(".codex/sessions"), true)]);
    }
}
