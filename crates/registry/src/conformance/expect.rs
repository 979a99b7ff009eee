//! Expectations files for `trajhost plugin test --expect FILE`: what a codec
//! must produce from its fixtures, beyond the conformance checks. TOML; the
//! top level holds for every fixture, `[fixtures."PATH"]` for one (PATH is
//! relative to the expectations file). `sdk/README.md` documents the format.
//!
//! ```toml
//! sessions = 1                          # sessions discover finds, per fixture
//! allowed-diagnostics = ["malformed-line"] # any other warning or error fails
//! texts = ["hello"]                     # must appear in user/assistant/tool text
//!
//! [kinds]                               # records per kind, summed over a fixture's sessions
//! meta = 1                              # exactly
//! assistant = { min = 1 }               # at least (`max` works too)
//!
//! [fixtures."fixtures/two-sessions"]    # overrides `sessions` and `kinds` entries,
//! sessions = 2                          # adds to `texts` and `allowed-diagnostics`
//! kinds = { user = 4 }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use trajhost_canonical::{Body, Record};
use trajhost_capabilities::wit::latest::types::Severity;

use super::FixtureRun;

/// The kinds `kinds` may name: every canonical record kind.
pub const KINDS: &[&str] =
    &["meta", "system", "user", "assistant", "reasoning", "tool_call", "tool_result", "observation", "compaction"];

/// An expectations file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ExpectError {
    #[error("{path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("{path}: not a valid expectations file: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: unknown record kind {kind:?} in {place} (kinds: {known})", known = KINDS.join(", "))]
    UnknownKind { path: PathBuf, kind: String, place: String },
    #[error("{path}: expectations for fixture {fixture:?} ({resolved}), which is not among the fixtures tested")]
    UnusedFixture { path: PathBuf, fixture: String, resolved: String },
}

/// A count a kind must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum Count {
    Exactly(u64),
    Range(Bounds),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
}

impl Count {
    fn holds(self, found: u64) -> bool {
        match self {
            Count::Exactly(n) => found == n,
            Count::Range(b) => b.min.is_none_or(|m| found >= m) && b.max.is_none_or(|m| found <= m),
        }
    }

    fn describe(self) -> String {
        match self {
            Count::Exactly(n) => format!("exactly {n}"),
            Count::Range(Bounds { min: Some(a), max: Some(b) }) => format!("between {a} and {b}"),
            Count::Range(Bounds { min: Some(a), max: None }) => format!("at least {a}"),
            Count::Range(Bounds { min: None, max: Some(b) }) => format!("at most {b}"),
            Count::Range(Bounds { min: None, max: None }) => "any number".into(),
        }
    }
}

/// Expectations for one fixture (or, at the top level, for all).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Expectations {
    pub sessions: Option<u64>,
    #[serde(default)]
    pub kinds: BTreeMap<String, Count>,
    #[serde(default)]
    pub texts: Vec<String>,
    #[serde(default)]
    pub allowed_diagnostics: Vec<String>,
}

impl Expectations {
    /// `self` with `specific` laid over it.
    fn merged(&self, specific: &Expectations) -> Expectations {
        let mut out = self.clone();
        if specific.sessions.is_some() {
            out.sessions = specific.sessions;
        }
        out.kinds.extend(specific.kinds.iter().map(|(k, v)| (k.clone(), *v)));
        for text in &specific.texts {
            if !out.texts.contains(text) {
                out.texts.push(text.clone());
            }
        }
        for code in &specific.allowed_diagnostics {
            if !out.allowed_diagnostics.contains(code) {
                out.allowed_diagnostics.push(code.clone());
            }
        }
        out
    }
}

/// The file's shape: the fields of [`Expectations`] plus `fixtures`
/// (spelled out: serde refuses `deny_unknown_fields` with `flatten`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    sessions: Option<u64>,
    #[serde(default)]
    kinds: BTreeMap<String, Count>,
    #[serde(default)]
    texts: Vec<String>,
    #[serde(default)]
    allowed_diagnostics: Vec<String>,
    #[serde(default)]
    fixtures: BTreeMap<String, Expectations>,
}

/// A parsed expectations file.
#[derive(Debug)]
pub struct ExpectationsFile {
    path: PathBuf,
    global: Expectations,
    /// Per-fixture tables, by key as written and by resolved path.
    fixtures: Vec<(String, PathBuf, Expectations)>,
}

impl ExpectationsFile {
    pub fn load(path: &Path) -> Result<ExpectationsFile, ExpectError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ExpectError::Read { path: path.to_path_buf(), message: e.to_string() })?;
        ExpectationsFile::parse(path, &text)
    }

    /// Parses `text`; `path` names the file in errors and anchors the
    /// fixture keys.
    pub fn parse(path: &Path, text: &str) -> Result<ExpectationsFile, ExpectError> {
        let file: File = toml::from_str(text)
            .map_err(|e| ExpectError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        let global = Expectations {
            sessions: file.sessions,
            kinds: file.kinds,
            texts: file.texts,
            allowed_diagnostics: file.allowed_diagnostics,
        };
        let check_kinds = |e: &Expectations, place: &str| -> Result<(), ExpectError> {
            match e.kinds.keys().find(|k| !KINDS.contains(&k.as_str())) {
                Some(kind) => {
                    Err(ExpectError::UnknownKind { path: path.to_path_buf(), kind: kind.clone(), place: place.into() })
                }
                None => Ok(()),
            }
        };
        check_kinds(&global, "[kinds]")?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut fixtures = Vec::new();
        for (key, expectations) in file.fixtures {
            check_kinds(&expectations, &format!("[fixtures.{key:?}]"))?;
            let resolved = normalize(&base.join(&key));
            fixtures.push((key, resolved, expectations));
        }
        Ok(ExpectationsFile { path: path.to_path_buf(), global, fixtures })
    }

    /// Fails when a `[fixtures."…"]` table names none of `tested`, so that a
    /// mistyped path does not silently test nothing.
    pub fn check_fixtures_exist(&self, tested: &[PathBuf]) -> Result<(), ExpectError> {
        let tested: Vec<PathBuf> = tested.iter().map(|p| normalize(p)).collect();
        for (key, resolved, _) in &self.fixtures {
            if !tested.contains(resolved) {
                return Err(ExpectError::UnusedFixture {
                    path: self.path.clone(),
                    fixture: key.clone(),
                    resolved: resolved.display().to_string(),
                });
            }
        }
        Ok(())
    }

    /// What holds for `fixture`: the top level, with its table laid over.
    pub fn for_fixture(&self, fixture: &Path) -> Expectations {
        let fixture = normalize(fixture);
        match self.fixtures.iter().find(|(_, resolved, _)| *resolved == fixture) {
            Some((_, _, specific)) => self.global.merged(specific),
            None => self.global.clone(),
        }
    }
}

/// An absolute, canonical path when the file exists; else made absolute.
fn normalize(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unmet {
    pub fixture: PathBuf,
    /// `sessions`, `kinds.user`, `texts`, `allowed-diagnostics`.
    pub expectation: String,
    pub detail: String,
}

impl std::fmt::Display for Unmet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "expectation {} not met for {}: {}", self.expectation, self.fixture.display(), self.detail)
    }
}

/// Watches the records of one fixture for the texts it must contain.
#[derive(Debug)]
pub struct TextWatch {
    wanted: Vec<(String, bool)>,
}

impl TextWatch {
    pub fn new(expectations: &Expectations) -> TextWatch {
        TextWatch { wanted: expectations.texts.iter().map(|t| (t.clone(), false)).collect() }
    }

    pub fn observe(&mut self, record: &Record) {
        if self.wanted.iter().all(|(_, found)| *found) {
            return;
        }
        let arguments;
        let text: &str = match &record.body {
            Body::User { text, .. } => text,
            Body::Assistant(a) => &a.text,
            Body::ToolResult { content, .. } => content,
            Body::ToolCall { arguments: value, .. } => {
                arguments = match value {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                &arguments
            }
            _ => return,
        };
        for (wanted, found) in &mut self.wanted {
            if !*found && text.contains(wanted.as_str()) {
                *found = true;
            }
        }
    }
}

/// The expectations that `run` (with its texts watched by `texts`) misses.
pub fn evaluate(expectations: &Expectations, run: &FixtureRun, texts: &TextWatch) -> Vec<Unmet> {
    let mut unmet = Vec::new();
    let mut miss = |expectation: String, detail: String| {
        unmet.push(Unmet { fixture: run.home.clone(), expectation, detail });
    };
    if let Some(sessions) = expectations.sessions
        && run.discovered as u64 != sessions
    {
        miss("sessions".into(), format!("expected {sessions} sessions, discover found {}", run.discovered));
    }
    let mut found: BTreeMap<&str, u64> = BTreeMap::new();
    for session in &run.sessions {
        for (kind, n) in &session.kinds {
            *found.entry(kind.as_str()).or_default() += n;
        }
    }
    for (kind, count) in &expectations.kinds {
        let n = found.get(kind.as_str()).copied().unwrap_or(0);
        if !count.holds(n) {
            miss(format!("kinds.{kind}"), format!("expected {} `{kind}` records, found {n}", count.describe()));
        }
    }
    for (text, seen) in &texts.wanted {
        if !seen {
            miss("texts".into(), format!("no user, assistant or tool text contains {text:?}"));
        }
    }
    let diagnostics = run.discover_diagnostics.iter().chain(run.sessions.iter().flat_map(|s| s.diagnostics.iter()));
    let mut refused: BTreeMap<&str, u64> = BTreeMap::new();
    for d in diagnostics {
        if matches!(d.severity, Severity::Warning | Severity::Error)
            && !expectations.allowed_diagnostics.contains(&d.code)
        {
            *refused.entry(d.code.as_str()).or_default() += u64::from(d.count.max(1));
        }
    }
    for (code, n) in refused {
        miss("allowed-diagnostics".into(), format!("diagnostic {code:?} (×{n}) is a warning or error and not allowed"));
    }
    unmet
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ExpectationsFile, ExpectError> {
        ExpectationsFile::parse(Path::new("/x/expect.toml"), text)
    }

    #[test]
    fn counts_are_exact_or_bounded() {
        let file = parse("[kinds]\nuser = 2\nassistant = { min = 1 }\ntool_call = { max = 3 }\n").unwrap();
        let e = file.for_fixture(Path::new("/x/home"));
        assert!(e.kinds["user"].holds(2) && !e.kinds["user"].holds(3));
        assert!(e.kinds["assistant"].holds(5) && !e.kinds["assistant"].holds(0));
        assert!(e.kinds["tool_call"].holds(0) && !e.kinds["tool_call"].holds(4));
    }

    #[test]
    fn a_fixture_table_overrides_and_extends_the_top_level() {
        let file = parse(
            "sessions = 1\ntexts = [\"a\"]\n[kinds]\nuser = 1\nmeta = 1\n[fixtures.home]\nsessions = 2\ntexts = [\"b\"]\nkinds = { user = 4 }\n",
        )
        .unwrap();
        let e = file.for_fixture(Path::new("/x/home"));
        assert_eq!(e.sessions, Some(2));
        assert_eq!(e.texts, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(e.kinds["user"], Count::Exactly(4));
        assert_eq!(e.kinds["meta"], Count::Exactly(1));
        assert_eq!(file.for_fixture(Path::new("/x/other")).sessions, Some(1));
        assert!(file.check_fixtures_exist(&[PathBuf::from("/x/home")]).is_ok());
        assert!(matches!(
            file.check_fixtures_exist(&[PathBuf::from("/x/other")]),
            Err(ExpectError::UnusedFixture { .. })
        ));
    }

    #[test]
    fn typos_are_refused() {
        assert!(matches!(parse("session = 1\n"), Err(ExpectError::Parse { .. })));
        assert!(matches!(parse("[kinds]\nusr = 1\n"), Err(ExpectError::UnknownKind { .. })));
        assert!(matches!(parse("[kinds]\nuser = { least = 1 }\n"), Err(ExpectError::Parse { .. })));
    }
}
