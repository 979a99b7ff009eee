//! A scratch place for the tests: the private dirs go in `parent`, and
//! nothing may appear in `outside`.

use std::path::{Path, PathBuf};

pub use trajhost_unpack::testkit::*;

/// A scratch place: `parent` receives the private dirs, `outside` must stay empty.
pub struct Scratch {
    pub root: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("parent")).unwrap();
        std::fs::create_dir(root.path().join("outside")).unwrap();
        Scratch { root }
    }
    pub fn parent(&self) -> PathBuf {
        self.root.path().join("parent")
    }
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.root.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
    /// Every path under the scratch root except the archives written there
    /// and the (removed) private dirs.
    pub fn stray_files(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        walk(self.root.path(), &mut found);
        found.retain(|p| {
            let top = p.strip_prefix(self.root.path()).unwrap();
            let depth = top.components().count();
            let first = top.components().next().unwrap().as_os_str().to_str().unwrap().to_string();
            // The two dirs themselves and the archives written at the top are expected.
            let expected = depth == 1 && (first == "parent" || first == "outside" || p.is_file());
            !expected
        });
        found
    }
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        found.push(path.clone());
        if path.is_dir() && !path.is_symlink() {
            walk(&path, found);
        }
    }
}
