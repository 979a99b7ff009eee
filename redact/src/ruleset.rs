//! Rule data: gitleaks' configuration format, parsed and compiled.
//!
//! The schema is gitleaks' (`config/gitleaks.toml`): `[[rules]]` with `id`, `regex`, `secretGroup`,
//! `entropy`, `keywords`, `path` and `[[rules.allowlists]]`; a global `[allowlist]` and, as in
//! gitleaks 8.25+, global `[[allowlists]]` that may name `targetRules`. Rules and allowlists that
//! only make sense with a file path or a commit (this crate sees text, never files) are kept inert:
//! a rule with `path` never runs, an allowlist check on `paths` or `commits` never matches.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::{RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;

/// One rule file (gitleaks.toml, trajhost.toml).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RuleFile {
    /// trajhost.toml's version (gitleaks.toml has none: its version is the release's).
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub rules: Vec<RuleSpec>,
    /// gitleaks' single global allowlist (`[allowlist]`).
    #[serde(default)]
    pub allowlist: Option<AllowlistSpec>,
    /// gitleaks 8.25+ global allowlists (`[[allowlists]]`), optionally scoped by `targetRules`.
    #[serde(default)]
    pub allowlists: Vec<AllowlistSpec>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RuleSpec {
    pub id: String,
    #[serde(default)]
    pub regex: Option<String>,
    #[serde(default)]
    pub secret_group: Option<usize>,
    #[serde(default)]
    pub entropy: Option<f64>,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub allowlists: Vec<AllowlistSpec>,
    /// The pre-8.21 spelling of a rule's single allowlist.
    #[serde(default)]
    pub allowlist: Option<AllowlistSpec>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AllowlistSpec {
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub regex_target: Option<String>,
    #[serde(default)]
    pub regexes: Vec<String>,
    #[serde(default)]
    pub stopwords: Vec<String>,
    #[serde(default)]
    pub paths: Vec<String>,
    #[serde(default)]
    pub commits: Vec<String>,
    /// Only for global `[[allowlists]]`: the rule ids it applies to (empty: every rule).
    #[serde(default)]
    pub target_rules: Vec<String>,
    /// trajhost's extension (allowlist.toml): the allowlist does not apply to a finding whose
    /// whole match matches one of these (a digest is allowed after `cache key:`, not after
    /// `SECRET_KEY=`).
    #[serde(default)]
    pub unless_match: Vec<String>,
}

/// Where a rule comes from; reported by the compile check and used in log messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Gitleaks,
    Trajhost,
    User,
}

/// What an allowlist regex is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Secret,
    Match,
    Line,
}

#[derive(Debug, Clone)]
pub(crate) struct Allowlist {
    and: bool,
    target: Target,
    regexes: Option<LazySet>,
    /// Lowercased; matched against the lowercased secret.
    stopwords: Option<AhoCorasick>,
    /// Under AND, a `paths` or `commits` check is part of the condition and never holds here.
    inert_check: bool,
    /// Whether the regex list was given (under AND, a failed compile must not make it vacuous).
    has_regexes: bool,
    has_stopwords: bool,
    /// trajhost's `unlessMatch`: the allowlist does not apply when the match matches one.
    unless: Option<LazySet>,
}

/// An allowlist's regexes as one set, built the first time a finding asks (as [`Matcher`]).
#[derive(Debug, Clone)]
pub(crate) struct LazySet {
    patterns: Vec<String>,
    built: std::sync::OnceLock<Option<RegexSet>>,
}

impl LazySet {
    fn get(&self) -> Option<&RegexSet> {
        self.built
            .get_or_init(|| match compile_set(&self.patterns) {
                Ok(set) => Some(set),
                Err(error) => {
                    tracing::warn!(%error, "redact: an allowlist's regexes do not build; it allows nothing");
                    None
                }
            })
            .as_ref()
    }

    pub(crate) fn is_match(&self, haystack: &[u8]) -> bool {
        self.get().is_some_and(|set| set.is_match(haystack))
    }

    fn build(&self) -> bool {
        self.get().is_some()
    }
}

/// Parses a pattern as [`compile`] will (cheap: nothing is built).
fn parses(pattern: &str) -> Result<(), String> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(&translate_go(pattern))
        .map(drop)
        .map_err(|e| e.to_string())
}

/// What an allowlist sees of one finding.
pub(crate) struct Candidate<'a> {
    pub secret: &'a [u8],
    pub matched: &'a [u8],
    /// The line(s) around the match, computed on demand.
    pub line: &'a dyn Fn() -> &'a [u8],
}

impl Allowlist {
    pub(crate) fn allows(&self, c: &Candidate<'_>) -> bool {
        self.holds(c) && !self.unless.as_ref().is_some_and(|set| set.is_match(c.matched))
    }

    fn holds(&self, c: &Candidate<'_>) -> bool {
        let regex_allowed = || match &self.regexes {
            Some(set) => {
                let target = match self.target {
                    Target::Secret => c.secret,
                    Target::Match => c.matched,
                    Target::Line => (c.line)(),
                };
                !target.is_empty() && set.is_match(target)
            }
            None => false,
        };
        let stopword = || match &self.stopwords {
            Some(ac) => !c.secret.is_empty() && ac.is_match(&c.secret.to_ascii_lowercase()),
            None => false,
        };
        if self.and {
            if self.inert_check {
                return false;
            }
            (!self.has_regexes || regex_allowed()) && (!self.has_stopwords || stopword())
        } else {
            regex_allowed() || stopword()
        }
    }

    /// Builds its regex sets now; whether they built.
    pub(crate) fn build(&self) -> bool {
        [&self.regexes, &self.unless].into_iter().flatten().all(LazySet::build)
    }

    /// True when the allowlist has nothing that can match text (only paths or commits).
    fn is_inert(&self) -> bool {
        self.regexes.is_none() && self.stopwords.is_none() && !(self.and && self.has_regexes)
    }
}

/// One problem met while compiling rule data: the rule or allowlist is skipped (or partly skipped).
#[derive(Debug, Clone, PartialEq)]
pub struct CompileIssue {
    pub origin: Origin,
    /// The rule id, or `allowlist` for a global allowlist.
    pub rule: String,
    pub pattern: String,
    pub error: String,
}

/// Size limits high enough for gitleaks' bounded repetitions (`{0,150}`, `(?s:.){0,200}`).
const REGEX_SIZE_LIMIT: usize = 64 << 20;

/// A rule's regex, built the first time a text selects the rule: most rules never run on a
/// given session, and building all of gitleaks' costs about 40 ms, once per process, which a
/// short command would pay in full. The pattern is parsed up front (cheap), so a broken one is
/// still an issue at load and its capture groups are known.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    pattern: String,
    built: std::sync::OnceLock<Option<regex_automata::meta::Regex>>,
}

impl Matcher {
    /// A matcher for a pattern [`compile`] will build, and its number of capture groups.
    pub(crate) fn lazy(pattern: &str) -> Result<(Matcher, usize), String> {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(&translate_go(pattern))
            .map_err(|e| e.to_string())?;
        let groups = hir.properties().explicit_captures_len();
        Ok((Matcher { pattern: pattern.to_string(), built: std::sync::OnceLock::new() }, groups))
    }

    /// A matcher already built (a user rule: its errors are the user's to see now).
    pub(crate) fn built(pattern: &str) -> Result<(Matcher, usize), String> {
        let regex = compile(pattern)?;
        let groups = regex.captures_len() - 1;
        Ok((Matcher { pattern: pattern.to_string(), built: std::sync::OnceLock::from(Some(regex)) }, groups))
    }

    /// The regex, built on first use; `None` (and a warning, once) if it cannot be built.
    pub(crate) fn get(&self) -> Option<&regex_automata::meta::Regex> {
        self.built
            .get_or_init(|| match compile(&self.pattern) {
                Ok(regex) => Some(regex),
                Err(error) => {
                    tracing::warn!(pattern = %self.pattern, %error, "redact: a rule's regex does not build; it is skipped");
                    None
                }
            })
            .as_ref()
    }
}

/// Validates a pattern with gitleaks' (Go RE2) semantics: `\w`, `\d`, `\s` and `\b` are
/// ASCII, `(?i)` folds ASCII, matching runs over bytes (spans are widened to char boundaries by
/// the caller). The error is the `regex` crate's, with its pointer into the pattern.
pub(crate) fn validate(pattern: &str) -> Result<(), regex::Error> {
    RegexBuilder::new(&translate_go(pattern))
        .unicode(false)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(drop)
}

/// Compiles a rule pattern (the semantics of [`validate`]) for searching, anchored searches
/// included.
pub(crate) fn compile(pattern: &str) -> Result<regex_automata::meta::Regex, String> {
    use regex_automata::meta;
    use regex_automata::util::syntax;
    meta::Regex::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .configure(
            meta::Config::new()
                .utf8_empty(false)
                .nfa_size_limit(Some(REGEX_SIZE_LIMIT))
                .onepass_size_limit(Some(REGEX_SIZE_LIMIT))
                .hybrid_cache_capacity(2 << 20)
                .dfa_size_limit(Some(REGEX_SIZE_LIMIT)),
        )
        .build(&translate_go(pattern))
        .map_err(|e| match validate(pattern) {
            Err(precise) => precise.to_string(),
            Ok(()) => e.to_string(),
        })
}

fn compile_set(patterns: &[String]) -> Result<RegexSet, regex::Error> {
    RegexSetBuilder::new(patterns.iter().map(|p| translate_go(p)))
        .unicode(false)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// Go's RE2 parser takes a `{` that does not open a valid repetition (`{n}`, `{n,}`, `{n,m}`)
/// as a literal; Rust's `regex` rejects it. Escape those, outside character classes.
pub(crate) fn translate_go(pattern: &str) -> String {
    let bytes = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\\' => {
                // Copy the escape and the escaped char as they are.
                let end = (i + 2).min(bytes.len());
                let end = next_char_boundary(pattern, end);
                out.push_str(&pattern[i..end]);
                i = end;
                continue;
            }
            b'[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                // A `]` (or `^]`) right after the opening bracket is a literal.
                if bytes.get(i) == Some(&b'^') {
                    out.push('^');
                    i += 1;
                }
                if bytes.get(i) == Some(&b']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            b'[' if in_class && bytes.get(i + 1) == Some(&b':') => {
                // A POSIX class inside a bracket: `[:alnum:]`.
                if let Some(end) = pattern[i + 2..].find(":]") {
                    let end = i + 2 + end + 2;
                    out.push_str(&pattern[i..end]);
                    i = end;
                    continue;
                }
                out.push_str("\\[");
                i += 1;
                continue;
            }
            b'[' if in_class => {
                // Go allows a bare `[` inside a class; Rust would read a nested class.
                out.push_str("\\[");
                i += 1;
                continue;
            }
            b']' if in_class => in_class = false,
            b'{' if !in_class && !is_repetition(&bytes[i..]) => {
                out.push_str("\\{");
                i += 1;
                continue;
            }
            b'}' if !in_class => {
                // Unbalanced `}` is a literal in both, escape it for clarity.
                // (A valid repetition's `}` was copied with its `{`, below.)
                out.push_str("\\}");
                i += 1;
                continue;
            }
            b'{' if !in_class => {
                let end = i + bytes[i..].iter().position(|&c| c == b'}').expect("checked by is_repetition") + 1;
                out.push_str(&pattern[i..end]);
                i = end;
                continue;
            }
            _ => {}
        }
        let end = next_char_boundary(pattern, i + 1);
        out.push_str(&pattern[i..end]);
        i = end;
    }
    out
}

fn next_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// `{n}`, `{n,}` or `{n,m}` at the start of `b`.
fn is_repetition(b: &[u8]) -> bool {
    let Some(close) = b.iter().position(|&c| c == b'}') else { return false };
    let inner = &b[1..close];
    let mut parts = inner.splitn(2, |&c| c == b',');
    let lo = parts.next().unwrap_or_default();
    if lo.is_empty() || !lo.iter().all(u8::is_ascii_digit) {
        return false;
    }
    match parts.next() {
        None => true,
        Some(hi) => hi.iter().all(u8::is_ascii_digit),
    }
}

/// A rule ready to run.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub id: String,
    pub origin: Origin,
    pub regex: Matcher,
    /// 0: the first non-empty capture group, else the whole match (gitleaks' default).
    pub secret_group: usize,
    /// A secret whose Shannon entropy is at most this is not a finding.
    pub entropy: Option<f64>,
    pub keywords: Vec<String>,
    /// Of gitleaks' semi-generic shape ([`semi_generic_shape`]): the rule runs only when an
    /// operator byte follows one of its keywords closely enough, and then (with `window`) only
    /// as anchored searches at those keywords.
    pub shape: Option<Shape>,
    pub allowlists: Vec<Allowlist>,
    /// `generic-*` rules lose to a specific rule that finds the same secret.
    pub generic: bool,
}

/// The result of compiling rule files: rules that run, global allowlists, and what was skipped.
#[derive(Debug, Default, Clone)]
pub(crate) struct Compiled {
    pub rules: Vec<Rule>,
    /// Applies to every rule.
    pub global: Vec<Allowlist>,
    /// `[[allowlists]]` with `targetRules`: (rule ids, allowlist).
    pub targeted: Vec<(Vec<String>, Allowlist)>,
    pub issues: Vec<CompileIssue>,
    /// Rules that cannot run on text (they need a file path): (origin, id).
    pub path_scoped: Vec<(Origin, String)>,
}

pub(crate) fn parse(text: &str) -> Result<RuleFile, toml::de::Error> {
    toml::from_str(text)
}

impl Compiled {
    /// Compiles one parsed rule file into `self`. Failures are recorded in `issues`, logged, and
    /// the rule (or the failing allowlist pattern) is left out.
    pub(crate) fn add_file(&mut self, origin: Origin, file: RuleFile) {
        for spec in file.allowlist.into_iter() {
            if let Some(a) = self.allowlist(origin, "allowlist", &spec) {
                self.global.push(a);
            }
        }
        for spec in file.allowlists {
            if let Some(a) = self.allowlist(origin, "allowlists", &spec) {
                if spec.target_rules.is_empty() {
                    self.global.push(a);
                } else {
                    self.targeted.push((spec.target_rules.clone(), a));
                }
            }
        }
        for spec in file.rules {
            if spec.path.is_some() {
                tracing::debug!(rule = %spec.id, "redact: rule scoped to file paths does not run on text");
                self.path_scoped.push((origin, spec.id));
                continue;
            }
            let Some(pattern) = spec.regex.as_deref() else {
                self.path_scoped.push((origin, spec.id));
                continue;
            };
            let (regex, groups) = match Matcher::lazy(pattern) {
                Ok(r) => r,
                Err(e) => {
                    self.issue(origin, &spec.id, pattern, &e);
                    continue;
                }
            };
            let secret_group = spec.secret_group.unwrap_or(0);
            if secret_group > groups {
                let error = format!("secretGroup {secret_group} but the regex has {groups} groups");
                self.issue(origin, &spec.id, pattern, &error);
                continue;
            }
            let mut allowlists = Vec::new();
            for a in spec.allowlist.iter().chain(spec.allowlists.iter()) {
                if let Some(a) = self.allowlist(origin, &spec.id, a) {
                    allowlists.push(a);
                }
            }
            let keywords: Vec<String> =
                spec.keywords.iter().map(|k| k.to_ascii_lowercase()).filter(|k| !k.is_empty()).collect();
            self.rules.push(Rule {
                shape: semi_generic_shape(pattern, &keywords),
                generic: spec.id.contains("generic"),
                id: spec.id,
                origin,
                regex,
                secret_group,
                entropy: spec.entropy.filter(|e| *e > 0.0),
                keywords,
                allowlists,
            });
        }
    }

    fn issue(&mut self, origin: Origin, rule: &str, pattern: &str, error: &str) {
        tracing::warn!(rule, pattern, error, "redact: a rule pattern does not compile; it is skipped");
        self.issues.push(CompileIssue {
            origin,
            rule: rule.to_string(),
            pattern: pattern.to_string(),
            error: error.to_string(),
        });
    }

    /// Patterns that do not compile are dropped one by one (a RegexSet fails as a whole).
    fn regex_set(&mut self, origin: Origin, rule: &str, patterns: &[String]) -> Option<LazySet> {
        let mut good = Vec::new();
        for p in patterns {
            match parses(p) {
                Ok(()) => good.push(p.clone()),
                Err(e) => self.issue(origin, rule, p, &e),
            }
        }
        (!good.is_empty()).then(|| LazySet { patterns: good, built: std::sync::OnceLock::new() })
    }

    fn allowlist(&mut self, origin: Origin, rule: &str, spec: &AllowlistSpec) -> Option<Allowlist> {
        let regexes = self.regex_set(origin, rule, &spec.regexes);
        let unless = self.regex_set(origin, rule, &spec.unless_match);
        let stopwords = if spec.stopwords.is_empty() {
            None
        } else {
            let words: Vec<String> = spec.stopwords.iter().map(|w| w.to_ascii_lowercase()).collect();
            AhoCorasickBuilder::new().match_kind(MatchKind::LeftmostFirst).build(&words).ok()
        };
        let and = spec.condition.as_deref().is_some_and(|c| c.eq_ignore_ascii_case("and"));
        let target = match spec.regex_target.as_deref() {
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            _ => Target::Secret,
        };
        let a = Allowlist {
            and,
            target,
            regexes,
            stopwords,
            inert_check: !spec.paths.is_empty() || !spec.commits.is_empty(),
            has_regexes: !spec.regexes.is_empty(),
            has_stopwords: !spec.stopwords.is_empty(),
            unless,
        };
        if a.is_inert() { None } else { Some(a) }
    }
}

/// gitleaks' "semi-generic" rule shape (its generator's template, used by generic-api-key and
/// most vendor rules keyed on a name): up to 50 name characters, the NAME group, up to 20 more,
/// up to 3 quotes or spaces, then an assignment operator, then the secret.
const SEMI_GENERIC_PREFIX: &str = r"(?i)[\w.-]{0,50}?(?:";
const SEMI_GENERIC_MIDDLE: &str = r#")(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"#;
/// The first bytes of the operators above.
pub(crate) const OPERATOR_BYTES: &[u8] = b"=>:|?,";

/// How many name characters the semi-generic shape allows before NAME.
pub(crate) const SEMI_GENERIC_LEAD: usize = 50;

/// What the semi-generic shape of a rule allows the engine to skip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Every match holds a keyword occurrence followed, at most this many bytes after its end,
    /// by the first byte of an operator ([`OPERATOR_BYTES`]): a text without one cannot match.
    pub reach: usize,
    /// Every NAME alternative starts with a keyword (`reach` is measured from that keyword's
    /// end): a match starts at most [`SEMI_GENERIC_LEAD`] name bytes (`[\w.-]`) before a keyword
    /// occurrence, so one anchored search per such occurrence finds every match the unanchored
    /// search finds.
    pub window: bool,
}

/// The [`Shape`] of a rule of the semi-generic shape whose NAME alternatives each contain one of
/// its keywords and whose pattern has no other top-level alternative; `None` for any other rule
/// (or one with a keyword a JSON encoder might escape, which a raw line might not show).
pub(crate) fn semi_generic_shape(pattern: &str, keywords: &[String]) -> Option<Shape> {
    if keywords.iter().any(|k| k.bytes().any(|b| b.is_ascii_control() || !b.is_ascii())) {
        return None;
    }
    let rest = pattern.strip_prefix(SEMI_GENERIC_PREFIX)?;
    let close = group_end(rest)?;
    let (name, tail) = rest.split_at(close);
    let after = tail.strip_prefix(SEMI_GENERIC_MIDDLE)?;
    if has_top_level_alternation(after) {
        return None;
    }
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(true)
        .build()
        .parse(&format!("(?:{name})"))
        .ok()?;
    let names = lowercase_strings(&hir, 256)?;
    // Measured from the keyword occurrence that ends last in each NAME string.
    let mut slack = 0;
    for s in &names {
        let end =
            keywords.iter().filter_map(|k| memchr::memmem::rfind(s, k.as_bytes()).map(|at| at + k.len())).max()?;
        slack = slack.max(s.len() - end);
    }
    // Measured from the longest keyword that starts each NAME string.
    let prefixed: Option<usize> = names.iter().try_fold(0, |acc, s| {
        let k = keywords.iter().filter(|k| s.starts_with(k.as_bytes())).map(String::len).max()?;
        Some(acc.max(s.len() - k))
    });
    Some(match prefixed {
        Some(prefix_slack) => Shape { reach: slack.max(prefix_slack) + 20 + 3, window: true },
        None => Shape { reach: slack + 20 + 3, window: false },
    })
}

/// The offset of the `)` closing the group whose body starts `s` (escapes and classes skipped).
fn group_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let (mut depth, mut i, mut class) = (1usize, 0, false);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => class = true,
            b']' if class => class = false,
            b'(' if !class => depth += 1,
            b')' if !class => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn has_top_level_alternation(s: &str) -> bool {
    let b = s.as_bytes();
    let (mut depth, mut i, mut class) = (0usize, 0, false);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => class = true,
            b']' if class => class = false,
            b'(' if !class => depth += 1,
            b')' if !class => depth = depth.saturating_sub(1),
            b'|' if !class && depth == 0 => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The strings `hir` matches, lowercased (a class of one letter in both cases is that letter),
/// when there are at most `limit`; `None` otherwise.
fn lowercase_strings(hir: &regex_syntax::hir::Hir, limit: usize) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::{Class, HirKind};
    let out = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => vec![Vec::new()],
        HirKind::Literal(l) => vec![l.0.to_ascii_lowercase()],
        HirKind::Class(Class::Bytes(c)) => {
            let mut bytes: Vec<u8> =
                c.iter().flat_map(|r| r.start()..=r.end()).map(|b| b.to_ascii_lowercase()).collect();
            bytes.sort_unstable();
            bytes.dedup();
            if bytes.len() > 16 {
                return None;
            }
            bytes.into_iter().map(|b| vec![b]).collect()
        }
        HirKind::Class(Class::Unicode(c)) => {
            let mut bytes = Vec::new();
            for r in c.iter() {
                for ch in r.start()..=r.end() {
                    bytes.push(u8::try_from(u32::from(ch)).ok().filter(u8::is_ascii)?.to_ascii_lowercase());
                    if bytes.len() > 64 {
                        return None;
                    }
                }
            }
            bytes.sort_unstable();
            bytes.dedup();
            bytes.into_iter().map(|b| vec![b]).collect()
        }
        HirKind::Capture(c) => lowercase_strings(&c.sub, limit)?,
        HirKind::Repetition(r) if r.min == 0 && r.max == Some(1) => {
            let mut v = vec![Vec::new()];
            v.extend(lowercase_strings(&r.sub, limit)?);
            v
        }
        HirKind::Repetition(_) => return None,
        HirKind::Concat(items) => {
            let mut acc = vec![Vec::new()];
            for item in items {
                let next = lowercase_strings(item, limit)?;
                if acc.len() * next.len() > limit {
                    return None;
                }
                acc = acc.iter().flat_map(|a| next.iter().map(move |n| [a.as_slice(), n].concat())).collect();
            }
            acc
        }
        HirKind::Alternation(items) => {
            let mut acc = Vec::new();
            for item in items {
                acc.extend(lowercase_strings(item, limit)?);
                if acc.len() > limit {
                    return None;
                }
            }
            acc
        }
    };
    let mut out = out;
    out.sort();
    out.dedup();
    (out.len() <= limit).then_some(out)
}

/// Shannon entropy in bits per character, as gitleaks computes it (character counts over the
/// byte length).
pub(crate) fn shannon_entropy(data: &str) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let mut ascii = [0u32; 128];
    let mut other: Vec<(char, u32)> = Vec::new();
    for c in data.chars() {
        if c.is_ascii() {
            ascii[c as usize] += 1;
        } else if let Some(slot) = other.iter_mut().find(|(k, _)| *k == c) {
            slot.1 += 1;
        } else {
            other.push((c, 1));
        }
    }
    let inv = 1.0 / data.len() as f64;
    let mut entropy = 0.0;
    for count in ascii.iter().copied().chain(other.iter().map(|(_, n)| *n)).filter(|n| *n > 0) {
        let f = f64::from(count) * inv;
        entropy -= f * f.log2();
    }
    entropy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_literal_braces_are_escaped() {
        assert_eq!(translate_go(r"^\${(?:[A-Z_]+|[a-z_]+)}$"), r"^\$\{(?:[A-Z_]+|[a-z_]+)\}$");
        assert_eq!(translate_go(r"^\{\d{0,2}}$"), r"^\{\d{0,2}\}$");
        assert_eq!(translate_go(r"a{2,}b{3}c{1,4}"), r"a{2,}b{3}c{1,4}");
        assert_eq!(translate_go(r"[{}]x"), r"[{}]x");
        assert_eq!(translate_go(r"[[:alnum:]]{14}"), r"[[:alnum:]]{14}");
        assert_eq!(translate_go(r"[^]]+"), r"[^\]]+");
        assert!(compile(r"^\{\{[ \t]*[\w ().|]+[ \t]*}}$").is_ok());
        assert!(validate(r"^\{\{[ \t]*[\w ().|]+[ \t]*}}$").is_ok());
    }

    #[test]
    fn semi_generic_rules_get_a_shape() {
        let kw = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let generic = r#"(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)"#;
        let keywords =
            kw(&["access", "api", "auth", "credential", "creds", "key", "passwd", "password", "secret", "token"]);
        let shape = |reach, window| Some(Shape { reach, window });
        assert_eq!(semi_generic_shape(generic, &keywords), shape(23, true));
        // A NAME alternative longer than its keyword ("new-york-times," holds "new-york-times").
        let nyt = r#"(?i)[\w.-]{0,50}?(?:nytimes|new-york-times,|newyorktimes)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([a-z0-9=_\-]{32})(?:[\x60'"\s;]|\\[nr]|$)"#;
        assert_eq!(semi_generic_shape(nyt, &kw(&["nytimes", "new-york-times", "newyorktimes"])), shape(24, true));
        // A keyword inside NAME but not at its start: no anchored windows.
        assert_eq!(semi_generic_shape(nyt, &kw(&["times"])), shape(24, false));
        // A second top-level alternative needs no operator: not this shape.
        let atlassian = format!("{generic}|\\b(ATATT3[A-Za-z0-9_\\-=]{{186}})");
        assert_eq!(semi_generic_shape(&atlassian, &keywords), None);
        // A NAME without a keyword in it.
        assert_eq!(semi_generic_shape(generic, &kw(&["zzz"])), None);
    }

    #[test]
    fn entropy_matches_gitleaks_definition() {
        assert_eq!(shannon_entropy(""), 0.0);
        assert_eq!(shannon_entropy("aaaa"), 0.0);
        assert!((shannon_entropy("ab") - 1.0).abs() < 1e-12);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-12);
    }
}
