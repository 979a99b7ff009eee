//! Arbitrary bytes as a session, for the `read_session` fuzz target and the
//! replay of its findings in `cargo test` (docs/fuzzing.md).

use std::path::PathBuf;

use trajhost_inventory::{self as inventory, SessionQuery};
use trajhost_registry::catalog::Catalog;

/// Where each harness's codec looks: the file its first session glob names.
pub struct SessionFuzzer<'c> {
    catalog: &'c Catalog<'c>,
    /// (harness, that glob, the file it names with `*` filled in).
    targets: Vec<(String, String, PathBuf)>,
}

/// What one input came to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub harness: String,
    pub sessions: usize,
    pub batches: usize,
    /// Discovery, open or read errors (traps and limits among them): reported, not findings.
    pub errors: usize,
}

impl<'c> SessionFuzzer<'c> {
    pub fn new(catalog: &'c Catalog<'c>) -> Self {
        let mut targets = Vec::new();
        for harness in catalog.harnesses() {
            let Some(codec) = catalog.for_harness(&harness).into_iter().next() else { continue };
            let Some(glob) = codec.session_globs.iter().find(|g| !g.contains('$')) else { continue };
            // `*` and `**` become one plain name: the file lies where the codec looks.
            let path: PathBuf = glob.split('/').map(|part| part.replace("**", "fuzz").replace('*', "fuzz")).collect();
            targets.push((harness, glob.clone(), path));
        }
        SessionFuzzer { catalog, targets }
    }

    pub fn harnesses(&self) -> impl Iterator<Item = &str> {
        self.targets.iter().map(|(h, _, _)| h.as_str())
    }

    /// An input for harness number `pick` from a real home: the first
    /// byte, then the first file of `home` that the harness's glob matches.
    pub fn seed_from(&self, pick: u8, home: &std::path::Path) -> Option<Vec<u8>> {
        let (_, glob, _) = self.targets.get(pick as usize)?;
        let rel = crate::sync::expand_glob(home, glob).into_iter().next()?;
        let bytes = std::fs::read(home.join(rel)).ok()?;
        Some([&[pick][..], &bytes].concat())
    }

    /// The first byte picks the harness; the rest is written where its codec
    /// looks, in a fresh home; then discovery, and every batch of every session.
    pub fn run(&self, input: &[u8]) -> Outcome {
        let Some((&pick, bytes)) = input.split_first() else { return Outcome::default() };
        let (harness, _, rel) = &self.targets[pick as usize % self.targets.len()];
        let mut outcome = Outcome { harness: harness.clone(), ..Outcome::default() };
        let Ok(home) = tempfile::tempdir() else { return outcome };
        let file = home.path().join(rel);
        if file.parent().is_some_and(|p| std::fs::create_dir_all(p).is_err()) || std::fs::write(&file, bytes).is_err() {
            return outcome;
        }
        let query = SessionQuery { home: home.path().to_path_buf(), harness: Some(harness.clone()), cwd: None };
        let found = match inventory::discover(self.catalog, &query) {
            Ok(found) => found,
            Err(_) => {
                outcome.errors += 1;
                return outcome;
            }
        };
        outcome.errors += found.failures.len();
        for session in &found.sessions {
            outcome.sessions += 1;
            let Ok((_, mut stream)) = inventory::open(self.catalog, session, None, inventory::default_read_options())
            else {
                outcome.errors += 1;
                continue;
            };
            loop {
                match stream.next_batch() {
                    Ok(Some(_)) => outcome.batches += 1,
                    Ok(None) => break,
                    Err(_) => {
                        outcome.errors += 1;
                        break;
                    }
                }
            }
        }
        outcome
    }
}
