//! Masks secrets in canonical session records.
//!
//! Detection uses gitleaks' default ruleset (v8.30.1, MIT; `rules/gitleaks.toml`, unmodified),
//! a few trajhost rules for what it does not catch (`rules/trajhost.toml`) and trajhost's own
//! allowlist entries against false alarms in session data (`rules/allowlist.toml`), plus the
//! user's `[redact]` rules and allowlist. A match becomes `[REDACTED:<rule-id>]`; only the
//! secret group when the rule has one, so `password=hunter2…` keeps `password=`.
//!
//! Cost: one ASCII case-insensitive Aho-Corasick pass over every rule's keywords; only the rules
//! whose keywords occur run their regex, then gitleaks' entropy and allowlist checks. A text
//! with no keyword is returned borrowed after that single pass.
//!
//! Field rules (the same for [`Redactor::redact_record`] and [`Redactor::redact_line`]): see
//! [`policy`] and the README.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod engine;
mod json;
pub mod planted;
pub mod policy;
mod ruleset;
mod scan;

use engine::Engine;
pub use planted::planted_secrets;
pub use ruleset::{CompileIssue, Origin};
use ruleset::{Compiled, Rule};

/// gitleaks' release whose `config/gitleaks.toml` is `rules/gitleaks.toml` (rules/README.md).
pub const GITLEAKS_VERSION: &str = "8.30.1";

const GITLEAKS_TOML: &str = include_str!("../rules/gitleaks.toml");
const TRAJHOST_TOML: &str = include_str!("../rules/trajhost.toml");
const ALLOWLIST_TOML: &str = include_str!("../rules/allowlist.toml");

/// Matches per rule id.
#[derive(Default, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Counts(pub BTreeMap<String, u64>);

impl Counts {
    /// Adds `n` matches of `rule`.
    pub fn add(&mut self, rule: &str, n: u64) {
        if n == 0 {
            return;
        }
        match self.0.get_mut(rule) {
            Some(c) => *c += n,
            None => {
                self.0.insert(rule.to_string(), n);
            }
        }
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Counts) {
        for (rule, n) in &other.0 {
            self.add(rule, *n);
        }
    }

    /// All matches, every rule.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Matches of one rule.
    pub fn get(&self, rule: &str) -> u64 {
        self.0.get(rule).copied().unwrap_or(0)
    }
}

/// The `[redact]` table of `DATA_DIR/config.toml`.
#[derive(Deserialize, Default, Clone, Debug)]
pub struct RedactConfig {
    #[serde(default)]
    pub rules: Vec<UserRule>,
    /// Allowlist regexes: a match whose secret or whole match this matches stays.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Read by the host, not used by this crate.
    #[serde(default)]
    pub redact_evidence: bool,
}

/// A user's rule, in addition to the built-in ones.
#[derive(Deserialize, Default, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UserRule {
    /// The rule id: `[REDACTED:<id>]`, the key in [`Counts`].
    pub id: String,
    /// A regex (RE2 syntax as in gitleaks: `\w`, `\d`, `\s`, `\b` and `(?i)` are ASCII).
    pub regex: String,
    /// Keywords, ASCII case-insensitive: the regex runs only on texts holding one.
    /// Empty: it runs on every text.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// A secret whose Shannon entropy (bits per character) is at most this stays.
    #[serde(default)]
    pub entropy: Option<f64>,
    /// The capture group that is the secret (the rest of the match stays); `None`: the first
    /// group that matched, else the whole match.
    #[serde(default, alias = "secretGroup")]
    pub secret_group: Option<usize>,
}

/// Why a [`RedactConfig`] cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RedactError {
    #[error("redact rule `{id}`: invalid regex: {source}")]
    InvalidRegex {
        id: String,
        #[source]
        source: regex::Error,
    },
    #[error("redact rule `{id}`: the regex cannot be compiled: {message}")]
    Unsupported { id: String, message: String },
    #[error("redact rule `{id}`: secret_group is {group} but the regex has {groups} capture group(s)")]
    InvalidSecretGroup { id: String, group: usize, groups: usize },
    #[error("redact rule `{id}`: entropy must be a finite number of at least 0, not {entropy}")]
    InvalidEntropy { id: String, entropy: f64 },
    #[error("redact rule with regex `{regex}` has an empty id")]
    EmptyRuleId { regex: String },
    #[error("redact rule `{id}` is defined twice (a built-in rule or another user rule has this id)")]
    DuplicateRuleId { id: String },
    #[error("redact allow pattern `{pattern}`: invalid regex: {source}")]
    InvalidAllow {
        pattern: String,
        #[source]
        source: regex::Error,
    },
}

/// Masks secrets. `Send + Sync`; cloning shares the compiled rules.
#[derive(Clone, Debug)]
pub struct Redactor {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    engine: Engine,
    version: String,
    issues: Vec<CompileIssue>,
    path_scoped: Vec<(Origin, String)>,
}

/// The built-in rules compiled once; `with_config` adds to a clone (regexes are shared).
fn builtin_compiled() -> &'static (Compiled, String) {
    static BUILTIN: OnceLock<(Compiled, String)> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        let mut compiled = Compiled::default();
        let mut trajhost_version = String::from("?");
        for (origin, name, text) in [
            (Origin::Gitleaks, "gitleaks.toml", GITLEAKS_TOML),
            (Origin::Trajhost, "trajhost.toml", TRAJHOST_TOML),
            (Origin::Trajhost, "allowlist.toml", ALLOWLIST_TOML),
        ] {
            match ruleset::parse(text) {
                Ok(file) => {
                    if name == "trajhost.toml"
                        && let Some(v) = &file.version
                    {
                        trajhost_version = v.clone();
                    }
                    compiled.add_file(origin, file)
                }
                // The files are part of the crate and a test parses them: this is a build defect.
                Err(e) => tracing::error!(file = name, error = %e, "redact: built-in rule file does not parse"),
            }
        }
        (compiled, format!("gitleaks {GITLEAKS_VERSION} + trajhost {trajhost_version}"))
    })
}

impl Redactor {
    /// The built-in rules (gitleaks' and trajhost's), compiled once.
    pub fn builtin() -> &'static Redactor {
        static REDACTOR: OnceLock<Redactor> = OnceLock::new();
        REDACTOR.get_or_init(|| {
            let (compiled, version) = builtin_compiled();
            Redactor::from_compiled(compiled.clone(), None, version.clone())
        })
    }

    /// The built-in rules plus the user's rules and allowlist.
    pub fn with_config(config: &RedactConfig) -> Result<Redactor, RedactError> {
        let (builtin, version) = builtin_compiled();
        if config.rules.is_empty() && config.allow.is_empty() {
            return Ok(Redactor::builtin().clone());
        }
        let mut compiled = builtin.clone();
        let mut hasher = Sha256::new();
        for rule in &config.rules {
            let compiled_rule = user_rule(rule)?;
            if compiled.rules.iter().any(|r| r.id == rule.id) {
                return Err(RedactError::DuplicateRuleId { id: rule.id.clone() });
            }
            compiled.rules.push(compiled_rule);
            hasher.update(format!("{rule:?}\0"));
        }
        let mut allow = Vec::new();
        for pattern in &config.allow {
            ruleset::validate(pattern)
                .map_err(|source| RedactError::InvalidAllow { pattern: pattern.clone(), source })?;
            allow.push(ruleset::translate_go(pattern));
            hasher.update(format!("allow {pattern:?}\0"));
        }
        let user_allow = if allow.is_empty() {
            None
        } else {
            Some(
                regex::bytes::RegexSetBuilder::new(&allow)
                    .unicode(false)
                    .size_limit(64 << 20)
                    .dfa_size_limit(64 << 20)
                    .build()
                    .map_err(|source| RedactError::InvalidAllow { pattern: config.allow.join(" | "), source })?,
            )
        };
        let digest = hex::encode(&hasher.finalize()[..4]);
        Ok(Redactor::from_compiled(compiled, user_allow, format!("{version} + user {digest}")))
    }

    fn from_compiled(compiled: Compiled, user_allow: Option<regex::bytes::RegexSet>, version: String) -> Redactor {
        let issues = compiled.issues.clone();
        let path_scoped = compiled.path_scoped.clone();
        let engine = Engine::new(compiled, user_allow);
        Redactor { inner: Arc::new(Inner { engine, version, issues, path_scoped }) }
    }

    /// The ruleset: `gitleaks 8.30.1 + trajhost N`, and `+ user <digest>` with user rules or
    /// allow patterns (the digest changes with them).
    pub fn ruleset_version(&self) -> &str {
        &self.inner.version
    }

    /// The ids of the rules that run, in order (gitleaks', trajhost's, the user's).
    pub fn rule_ids(&self) -> Vec<&str> {
        self.inner.engine.rules.iter().map(|r| r.id.as_str()).collect()
    }

    /// Built-in rule and allowlist patterns that did not compile (each was skipped with a warning).
    pub fn compile_issues(&self) -> &[CompileIssue] {
        &self.inner.issues
    }

    /// Builds every rule regex and allowlist set now (they are built on first use), and names
    /// those that do not build: for tests and diagnostics.
    pub fn build_all(&self) -> Vec<String> {
        self.inner.engine.build_all()
    }

    /// Built-in rules that only apply to files of a given name (`path`): they never run on text.
    pub fn path_scoped_rules(&self) -> Vec<&str> {
        self.inner.path_scoped.iter().map(|(_, id)| id.as_str()).collect()
    }

    /// How many rules the keyword prefilter selects for `text` (diagnostics and benchmarks; 0:
    /// redacting it costs the one keyword scan).
    pub fn candidate_rules(&self, text: &str) -> usize {
        self.inner.engine.candidates(text.as_bytes()).0.len()
    }

    /// Redacts free text.
    pub fn redact_text<'a>(&self, text: &'a str, counts: &mut Counts) -> Cow<'a, str> {
        let engine = &self.inner.engine;
        let (bits, hits) = engine.candidates(text.as_bytes());
        engine.redact_with(text, &bits, hits.as_deref(), counts)
    }

    /// Where the secrets in `text` are, without changing it: byte ranges (sorted, not
    /// overlapping, on char boundaries) with the rule id of each, counted in `counts`. For masks
    /// that must keep offsets, such as raw evidence bytes.
    pub fn find(&self, text: &str, counts: &mut Counts) -> Vec<(std::ops::Range<usize>, String)> {
        let engine = &self.inner.engine;
        let (bits, hits) = engine.candidates(text.as_bytes());
        engine.spans(text, &bits, hits.as_deref(), counts)
    }

    /// Redacts `value` as the value of a member named `key` (the rules see `key=value`: a
    /// generic `password` rule finds a secret whose name is the key); only the value changes.
    pub(crate) fn redact_member<'a>(&self, key: &str, value: &'a str, counts: &mut Counts) -> Cow<'a, str> {
        let engine = &self.inner.engine;
        let mut hits = Vec::new();
        engine.scan(key.as_bytes(), &mut hits);
        if hits.is_empty() {
            return self.redact_text(value, counts);
        }
        engine.redact_member(key, value, counts)
    }

    /// Every string leaf of `value`, recursively (object keys stay; a string that is the value
    /// of an object member, or an item of an array that is, is matched with that key as context).
    pub fn redact_value(&self, value: &mut serde_json::Value, counts: &mut Counts) {
        self.redact_value_in(None, value, counts)
    }

    fn redact_value_in(&self, key: Option<&str>, value: &mut serde_json::Value, counts: &mut Counts) {
        use serde_json::Value;
        match value {
            Value::String(s) => {
                let redacted = match key {
                    Some(k) => self.redact_member(k, s, counts),
                    None => self.redact_text(s, counts),
                };
                if let Cow::Owned(new) = redacted {
                    *s = new;
                }
            }
            // Items of an array are matched with the array's key as context.
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value_in(key, v, counts)),
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    self.redact_value_in(Some(k), v, counts);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Redacts one canonical record in place: its free-text fields (see [`policy`]); ids,
    /// timestamps, `src`, `opaque`, names and harness facts are never touched.
    pub fn redact_record(&self, record: &mut trajhost_canonical::Record, counts: &mut Counts) {
        policy::redact_record(self, record, counts)
    }

    /// One canonical record as one JSON line (the wire form of `trajhost_canonical::Record`,
    /// possibly with fields this version does not know). Borrowed when nothing matched; else the
    /// same bytes with only the masked strings re-encoded. The keyword prefilter runs on the raw
    /// line; strings are decoded before their rules run. A line that is not JSON is redacted as
    /// text.
    pub fn redact_line<'a>(&self, line: &'a str, counts: &mut Counts) -> Cow<'a, str> {
        policy::redact_line(self, line, counts)
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.inner.engine
    }
}

/// Validates and compiles a user rule.
fn user_rule(rule: &UserRule) -> Result<Rule, RedactError> {
    if rule.id.trim().is_empty() {
        return Err(RedactError::EmptyRuleId { regex: rule.regex.clone() });
    }
    ruleset::validate(&rule.regex).map_err(|source| RedactError::InvalidRegex { id: rule.id.clone(), source })?;
    let (regex, groups) = ruleset::Matcher::built(&rule.regex)
        .map_err(|message| RedactError::Unsupported { id: rule.id.clone(), message })?;
    let group = rule.secret_group.unwrap_or(0);
    if group > groups {
        return Err(RedactError::InvalidSecretGroup { id: rule.id.clone(), group, groups });
    }
    if let Some(e) = rule.entropy
        && (!e.is_finite() || e < 0.0)
    {
        return Err(RedactError::InvalidEntropy { id: rule.id.clone(), entropy: e });
    }
    let keywords: Vec<String> =
        rule.keywords.iter().map(|k| k.to_ascii_lowercase()).filter(|k| !k.is_empty()).collect();
    Ok(Rule {
        shape: ruleset::semi_generic_shape(&rule.regex, &keywords),
        id: rule.id.clone(),
        origin: Origin::User,
        regex,
        secret_group: group,
        entropy: rule.entropy.filter(|e| *e > 0.0),
        keywords,
        allowlists: Vec::new(),
        generic: rule.id.contains("generic"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in rules with semi-generic rules searched over whole texts.
    fn without_windows() -> Redactor {
        let (compiled, version) = builtin_compiled();
        let mut engine = Engine::new(compiled.clone(), None);
        engine.windows = false;
        Redactor {
            inner: Arc::new(Inner { engine, version: version.clone(), issues: Vec::new(), path_scoped: Vec::new() }),
        }
    }

    /// Texts dense in what the semi-generic shape looks at: keywords inside long name runs,
    /// operators near and far, quotes, values of every length, base64 runs, newlines.
    fn tricky_texts(n: usize) -> Vec<String> {
        let mut x: u64 = 0x5eed;
        let mut next = move |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        const PIECES: &[&str] = &[
            "api",
            "API",
            "Api",
            "aPi",
            "key",
            "KEY",
            "token",
            "secret",
            "password",
            "passwd",
            "auth",
            "access",
            "credential",
            "creds",
            "adafruit",
            "algolia",
            "nytimes",
            "new-york-times,",
            "_",
            "-",
            ".",
            " ",
            "\t",
            "\n",
            "=",
            ":",
            "::=",
            "=>",
            "?=",
            "||",
            ",",
            ">",
            "\"",
            "'",
            "`",
            ";",
            "\\n",
            "$",
            "{",
            "}",
            "(",
            "x",
            "abc",
            "ZZZ",
            "0",
            "9",
            "/",
            "+",
            "==",
        ];
        const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        (0..n)
            .map(|_| {
                let mut s = String::new();
                for _ in 0..next(40) + 1 {
                    match next(10) {
                        0 => (0..next(200)).for_each(|_| s.push(ALNUM[next(ALNUM.len())] as char)),
                        1 => (0..next(80)).for_each(|_| s.push(['a', '_', '.', '-', '7'][next(5)])),
                        _ => s.push_str(PIECES[next(PIECES.len())]),
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn anchored_windows_find_what_whole_text_searches_find() {
        let windowed = Redactor::builtin();
        let whole = without_windows();
        let mut corpus = tricky_texts(20_000);
        corpus.extend(planted::planted().into_iter().map(|p| p.text));
        corpus.push(planted::dotenv());
        let mut masked = 0;
        for text in &corpus {
            let (mut a, mut b) = (Counts::default(), Counts::default());
            let x = windowed.redact_text(text, &mut a);
            let y = whole.redact_text(text, &mut b);
            assert_eq!(x, y, "{text:?}");
            assert_eq!(a, b, "{text:?}");
            masked += a.total();
        }
        assert!(masked > 500, "the corpus exercises the rules: {masked} masks");
    }
}
