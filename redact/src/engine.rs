//! The matching engine: one keyword pass, the regexes of the rules whose keywords occur, the
//! entropy and allowlist checks, overlapping findings merged, secrets replaced.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::bytes::RegexSet;

use crate::Counts;
use crate::ruleset::{Allowlist, Candidate, Compiled, Rule, shannon_entropy};

/// A set of rule indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RuleBits(Vec<u64>);

impl RuleBits {
    pub(crate) fn with_len(n: usize) -> RuleBits {
        RuleBits(vec![0; n.div_ceil(64)])
    }
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(crate) fn union(&mut self, other: &RuleBits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + b)
            })
        })
    }
}

/// One secret to mask: a byte span of the text and the rule that found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Finding {
    start: usize,
    end: usize,
    rule: usize,
}

#[derive(Debug)]
pub(crate) struct Engine {
    pub rules: Vec<Rule>,
    global: Vec<Allowlist>,
    /// Per rule: the global allowlists that target it.
    targeted: Vec<Vec<Allowlist>>,
    /// The user's `allow` regexes (secret or match).
    user_allow: Option<RegexSet>,
    /// Every distinct keyword, ASCII case-insensitive; `None` when no rule has keywords.
    keywords: Option<AhoCorasick>,
    /// The keywords (lowercased), by pattern id.
    words: Vec<String>,
    /// Per keyword (pattern id): the rules it enables.
    keyword_rules: Vec<RuleBits>,
    /// Rules without keywords: they run on every text.
    always: RuleBits,
    /// For JSON lines: `always` plus rules with a keyword that a JSON encoder may escape (a quote,
    /// a backslash, `<>&/`, control or non-ASCII characters), which the raw line may not show.
    pub line_always: RuleBits,
}

impl Engine {
    pub(crate) fn new(compiled: Compiled, user_allow: Option<RegexSet>) -> Engine {
        let Compiled { rules, global, targeted: scoped, .. } = compiled;
        let n = rules.len();
        let mut targeted: Vec<Vec<Allowlist>> = vec![Vec::new(); n];
        for (ids, a) in scoped {
            for (i, r) in rules.iter().enumerate() {
                if ids.iter().any(|id| *id == r.id) {
                    targeted[i].push(a.clone());
                }
            }
        }
        let mut words: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<RuleBits> = Vec::new();
        let mut always = RuleBits::with_len(n);
        let mut line_always = RuleBits::with_len(n);
        for (i, r) in rules.iter().enumerate() {
            if r.keywords.is_empty() {
                always.insert(i);
                line_always.insert(i);
                continue;
            }
            for k in &r.keywords {
                let id = match words.iter().position(|w| w == k) {
                    Some(id) => id,
                    None => {
                        words.push(k.clone());
                        keyword_rules.push(RuleBits::with_len(n));
                        words.len() - 1
                    }
                };
                keyword_rules[id].insert(i);
                if k.bytes().any(|b| b.is_ascii_control() || !b.is_ascii() || b"\"\\<>&/'".contains(&b)) {
                    line_always.insert(i);
                }
            }
        }
        let keywords = if words.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(&words)
                    .or_else(|_| {
                        AhoCorasickBuilder::new()
                            .ascii_case_insensitive(true)
                            .match_kind(MatchKind::Standard)
                            .build(&words)
                    })
                    .expect("keywords are plain strings"),
            )
        };
        Engine { rules, global, targeted, user_allow, keywords, words, keyword_rules, always, line_always }
    }

    pub(crate) fn empty_bits(&self) -> RuleBits {
        RuleBits::with_len(self.rules.len())
    }

    /// The rules to run on `text`: those whose keywords occur, and those without keywords.
    pub(crate) fn candidates(&self, text: &[u8]) -> RuleBits {
        let mut bits = self.always.clone();
        self.for_each_keyword(text, |_, id| bits.union(&self.keyword_rules[id]));
        bits
    }

    /// Calls `f(end_offset, keyword_id)` for every keyword occurrence (overlapping).
    pub(crate) fn for_each_keyword(&self, text: &[u8], mut f: impl FnMut(usize, usize)) {
        if let Some(ac) = &self.keywords {
            for m in ac.find_overlapping_iter(text) {
                f(m.end(), m.pattern().as_usize());
            }
        }
    }

    pub(crate) fn keyword(&self, keyword: usize) -> &str {
        &self.words[keyword]
    }

    pub(crate) fn keyword_rules(&self, keyword: usize) -> &RuleBits {
        &self.keyword_rules[keyword]
    }

    /// Redacts `text`, running the rules in `bits` (already prefiltered).
    pub(crate) fn redact_with<'a>(&self, text: &'a str, bits: &RuleBits, counts: &mut Counts) -> Cow<'a, str> {
        if bits.is_empty() {
            return Cow::Borrowed(text);
        }
        let findings = self.findings(text, bits, 0);
        if findings.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(self.apply(text, &findings, counts))
    }

    /// The secrets in `text` (rules in `bits`, already prefiltered): byte ranges, sorted and not
    /// overlapping, each with its rule id; counted as [`Engine::redact_with`] counts them.
    pub(crate) fn spans(
        &self,
        text: &str,
        bits: &RuleBits,
        counts: &mut Counts,
    ) -> Vec<(std::ops::Range<usize>, String)> {
        if bits.is_empty() {
            return Vec::new();
        }
        let found = self.findings(text, bits, 0);
        found
            .iter()
            .map(|f| {
                let id = &self.rules[f.rule].id;
                counts.add(id, 1);
                (f.start..f.end, id.clone())
            })
            .collect()
    }

    /// Redacts `value` as the value of a member named `key`: the rules see `key=value`, so a
    /// generic `password`/`api_key` rule finds a secret whose name is in the key. Only spans in
    /// the value are masked.
    pub(crate) fn redact_member<'a>(
        &self,
        key: &str,
        value: &'a str,
        bits: &RuleBits,
        counts: &mut Counts,
    ) -> Cow<'a, str> {
        if bits.is_empty() {
            return Cow::Borrowed(value);
        }
        let offset = key.len() + 1;
        let mut combined = String::with_capacity(offset + value.len());
        combined.push_str(key);
        combined.push('=');
        combined.push_str(value);
        let findings = self.findings(&combined, bits, offset);
        if findings.is_empty() {
            return Cow::Borrowed(value);
        }
        let shifted: Vec<Finding> =
            findings.iter().map(|f| Finding { start: f.start - offset, end: f.end - offset, rule: f.rule }).collect();
        Cow::Owned(self.apply(value, &shifted, counts))
    }

    /// Findings of the rules in `bits`, merged: non-overlapping, sorted, each labelled with the
    /// best rule of its cluster. Spans ending at or before `min_start` are dropped, the others
    /// clipped to start at `min_start` or later.
    fn findings(&self, text: &str, bits: &RuleBits, min_start: usize) -> Vec<Finding> {
        let bytes = text.as_bytes();
        let mut found: Vec<Finding> = Vec::new();
        for i in bits.iter() {
            let rule = &self.rules[i];
            for caps in rule.regex.captures_iter(bytes) {
                let whole = caps.get(0).expect("group 0 always matches");
                // gitleaks trims newlines around the match.
                let (mut ms, mut me) = (whole.start(), whole.end());
                while ms < me && bytes[ms] == b'\n' {
                    ms += 1;
                }
                while me > ms && bytes[me - 1] == b'\n' {
                    me -= 1;
                }
                let (mut s, mut e) = (ms, me);
                if rule.secret_group > 0 {
                    match caps.get(rule.secret_group) {
                        Some(g) => (s, e) = (g.start(), g.end()),
                        None => continue,
                    }
                } else if let Some(g) = caps.iter().skip(1).flatten().find(|g| !g.is_empty()) {
                    (s, e) = (g.start(), g.end());
                }
                let (s, e) = widen(text, s, e);
                if s >= e || e <= min_start {
                    continue;
                }
                let (ms, me) = widen(text, ms, me);
                if !self.keeps(text, i, (s, e), (ms, me)) {
                    continue;
                }
                found.push(Finding { start: s.max(min_start), end: e, rule: i });
            }
        }
        if found.is_empty() {
            return found;
        }
        found.sort_by_key(|f| (f.start, f.end, f.rule));
        let mut merged: Vec<Finding> = Vec::new();
        let mut cluster: Vec<Finding> = Vec::new();
        let mut cluster_end = 0;
        for f in found {
            if !cluster.is_empty() && f.start >= cluster_end {
                merged.push(self.label(&cluster));
                cluster.clear();
            }
            cluster_end = if cluster.is_empty() { f.end } else { cluster_end.max(f.end) };
            cluster.push(f);
        }
        merged.push(self.label(&cluster));
        merged
    }

    /// One span for a cluster of overlapping findings, labelled with a specific rule over a
    /// generic one, then the longest secret, then the rule that comes first.
    fn label(&self, cluster: &[Finding]) -> Finding {
        let start = cluster.iter().map(|f| f.start).min().expect("non-empty cluster");
        let end = cluster.iter().map(|f| f.end).max().expect("non-empty cluster");
        let best = cluster
            .iter()
            .min_by_key(|f| (self.rules[f.rule].generic, std::cmp::Reverse(f.end - f.start), f.rule))
            .expect("non-empty cluster");
        Finding { start, end, rule: best.rule }
    }

    /// The entropy and allowlist checks of one finding: true when it is a secret to mask.
    fn keeps(&self, text: &str, rule: usize, secret: (usize, usize), matched: (usize, usize)) -> bool {
        let r = &self.rules[rule];
        let secret_str = &text[secret.0..secret.1];
        if let Some(min) = r.entropy
            && shannon_entropy(secret_str) <= min
        {
            return false;
        }
        let bytes = text.as_bytes();
        let line_span = std::cell::OnceCell::new();
        let line = || -> &[u8] {
            let (a, b) = *line_span.get_or_init(|| {
                let a = bytes[..matched.0].iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
                let b = bytes[matched.1..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |p| matched.1 + p);
                (a, b)
            });
            &bytes[a..b]
        };
        let candidate = Candidate { secret: secret_str.as_bytes(), matched: &bytes[matched.0..matched.1], line: &line };
        if self.global.iter().chain(&self.targeted[rule]).chain(&r.allowlists).any(|a| a.allows(&candidate)) {
            tracing::trace!(rule = %r.id, origin = ?r.origin, "redact: finding allowed by an allowlist");
            return false;
        }
        if let Some(set) = &self.user_allow
            && (set.is_match(candidate.secret) || set.is_match(candidate.matched))
        {
            return false;
        }
        true
    }

    /// Replaces each finding's span by `[REDACTED:<rule>]`.
    fn apply(&self, text: &str, findings: &[Finding], counts: &mut Counts) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for f in findings {
            let (s, e) = (f.start, f.end);
            out.push_str(&text[at..s]);
            let id = &self.rules[f.rule].id;
            out.push_str("[REDACTED:");
            out.push_str(id);
            out.push(']');
            counts.add(id, 1);
            at = e;
        }
        out.push_str(&text[at..]);
        out
    }
}

/// Widens a byte span to char boundaries (byte-level matching can end inside a character).
fn widen(text: &str, mut s: usize, mut e: usize) -> (usize, usize) {
    while s > 0 && !text.is_char_boundary(s) {
        s -= 1;
    }
    while e < text.len() && !text.is_char_boundary(e) {
        e += 1;
    }
    (s, e)
}
