//! The matching engine: one keyword pass, the regexes of the rules whose keywords occur, the
//! entropy and allowlist checks, overlapping findings merged, secrets replaced.

use std::borrow::Cow;

use regex::bytes::RegexSet;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use crate::Counts;
use crate::ruleset::{Allowlist, Candidate, Compiled, OPERATOR_BYTES, Rule, SEMI_GENERIC_LEAD, shannon_entropy};
use crate::scan::{Hit, Scanner};

/// A set of rule indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RuleBits(Vec<u64>);

impl RuleBits {
    pub(crate) fn with_len(n: usize) -> RuleBits {
        RuleBits(vec![0; n.div_ceil(64)])
    }
    #[inline]
    pub(crate) fn has(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    #[inline]
    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    /// Whether every rule of `other` is in `self`.
    pub(crate) fn contains(&self, other: &RuleBits) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & b == *b)
    }
    pub(crate) fn union(&mut self, other: &RuleBits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
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
    scanner: Option<Scanner>,
    /// Per keyword: the rules it enables by itself (not of the semi-generic shape).
    plain_rules: Vec<RuleBits>,
    /// Per keyword: semi-generic rules, enabled when an operator byte follows the keyword within
    /// `reach[keyword]` bytes (`ruleset::operator_reach`).
    operator_rules: Vec<RuleBits>,
    reach: Vec<usize>,
    /// Rules without keywords: they run on every text.
    always: RuleBits,
    /// For JSON lines: `always` plus rules with a keyword holding control or non-ASCII characters,
    /// which a JSON encoder may escape in ways the raw line does not show. (Keywords with a quote,
    /// a backslash or `/<>&'` are also searched in their escaped forms: [`json_variants`].)
    pub line_always: RuleBits,
    /// Anchored searches at keywords for semi-generic rules (off only to test them against
    /// whole-text searches).
    pub windows: bool,
}

impl Engine {
    pub(crate) fn new(compiled: Compiled, user_allow: Option<RegexSet>) -> Engine {
        let Compiled { rules, global, targeted: scoped, .. } = compiled;
        let n = rules.len();
        let mut targeted: Vec<Vec<Allowlist>> = vec![Vec::new(); n];
        for (ids, a) in scoped {
            for (i, r) in rules.iter().enumerate() {
                if ids.contains(&r.id) {
                    targeted[i].push(a.clone());
                }
            }
        }
        let mut words: Vec<String> = Vec::new();
        let mut plain_rules: Vec<RuleBits> = Vec::new();
        let mut operator_rules: Vec<RuleBits> = Vec::new();
        let mut reach: Vec<usize> = Vec::new();
        let mut always = RuleBits::with_len(n);
        let mut line_always = RuleBits::with_len(n);
        for (i, r) in rules.iter().enumerate() {
            if r.keywords.is_empty() {
                always.insert(i);
                line_always.insert(i);
                continue;
            }
            for k in r.keywords.iter().flat_map(|k| json_variants(k)) {
                let k = &k;
                let id = match words.iter().position(|w| w == k) {
                    Some(id) => id,
                    None => {
                        words.push(k.clone());
                        plain_rules.push(RuleBits::with_len(n));
                        operator_rules.push(RuleBits::with_len(n));
                        reach.push(0);
                        words.len() - 1
                    }
                };
                match r.shape {
                    Some(shape) => {
                        operator_rules[id].insert(i);
                        reach[id] = reach[id].max(shape.reach);
                    }
                    None => plain_rules[id].insert(i),
                }
                if k.bytes().any(|b| b.is_ascii_control() || !b.is_ascii()) {
                    line_always.insert(i);
                }
            }
        }
        let scanner = Scanner::new(&words);
        if scanner.is_none() && !words.is_empty() {
            // Not expected (plain strings); without the prefilter every rule runs.
            tracing::warn!("redact: the keyword automaton could not be built; every rule runs on every text");
            for i in 0..n {
                always.insert(i);
                line_always.insert(i);
            }
        }
        Engine {
            rules,
            global,
            targeted,
            user_allow,
            scanner,
            plain_rules,
            operator_rules,
            reach,
            always,
            line_always,
            windows: true,
        }
    }

    pub(crate) fn empty_bits(&self) -> RuleBits {
        RuleBits::with_len(self.rules.len())
    }

    /// Every keyword occurrence in `hay`, sorted by end. `false` when `hay` is too long to scan
    /// (4 GiB): the caller then runs every rule.
    pub(crate) fn scan(&self, hay: &[u8], out: &mut Vec<Hit>) -> bool {
        if hay.len() >= u32::MAX as usize {
            return false;
        }
        if let Some(s) = &self.scanner {
            s.scan(hay, out);
        }
        true
    }

    /// The rules to run on `text` (those whose keywords occur, semi-generic ones only with an
    /// operator near a keyword, and those without keywords) and the keyword occurrences; `None`
    /// for the occurrences when `text` is too long to scan (every rule runs).
    pub(crate) fn candidates(&self, text: &[u8]) -> (RuleBits, Option<Vec<Hit>>) {
        let mut hits = Vec::new();
        if !self.scan(text, &mut hits) {
            return (self.all_bits(), None);
        }
        let mut bits = self.always.clone();
        self.add_hits(text, &hits, &mut bits);
        (bits, Some(hits))
    }

    fn all_bits(&self) -> RuleBits {
        let mut bits = self.empty_bits();
        (0..self.rules.len()).for_each(|i| bits.insert(i));
        bits
    }

    /// Adds the rules that `hits` (keyword occurrences in `text`) enable.
    pub(crate) fn add_hits(&self, text: &[u8], hits: &[Hit], bits: &mut RuleBits) {
        for h in hits {
            let k = h.keyword as usize;
            bits.union(&self.plain_rules[k]);
            let op = &self.operator_rules[k];
            if !op.is_empty() && !bits.contains(op) && self.operator_near(text, h, k) {
                bits.union(op);
            }
        }
    }

    /// Whether an operator byte starts within the keyword's reach after occurrence `h`.
    fn operator_near(&self, text: &[u8], h: &Hit, k: usize) -> bool {
        let from = (h.end as usize).min(text.len());
        let to = text.len().min(from + self.reach[k] + 1);
        text[from..to].iter().any(|b| OPERATOR_BYTES.contains(b))
    }

    /// Redacts `text`, running the rules in `bits` (already prefiltered); `hits` are its keyword
    /// occurrences (`None`: unknown, every regex searches the whole text).
    pub(crate) fn redact_with<'a>(
        &self,
        text: &'a str,
        bits: &RuleBits,
        hits: Option<&[Hit]>,
        counts: &mut Counts,
    ) -> Cow<'a, str> {
        if bits.is_empty() {
            return Cow::Borrowed(text);
        }
        let findings = self.findings(text, bits, hits, 0);
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
        hits: Option<&[Hit]>,
        counts: &mut Counts,
    ) -> Vec<(std::ops::Range<usize>, String)> {
        if bits.is_empty() {
            return Vec::new();
        }
        let found = self.findings(text, bits, hits, 0);
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
    pub(crate) fn redact_member<'a>(&self, key: &str, value: &'a str, counts: &mut Counts) -> Cow<'a, str> {
        let offset = key.len() + 1;
        let mut combined = String::with_capacity(offset + value.len());
        combined.push_str(key);
        combined.push('=');
        combined.push_str(value);
        let (bits, hits) = self.candidates(combined.as_bytes());
        if bits.is_empty() {
            return Cow::Borrowed(value);
        }
        let findings = self.findings(&combined, &bits, hits.as_deref(), offset);
        if findings.is_empty() {
            return Cow::Borrowed(value);
        }
        let shifted: Vec<Finding> =
            findings.iter().map(|f| Finding { start: f.start - offset, end: f.end - offset, rule: f.rule }).collect();
        Cow::Owned(self.apply(value, &shifted, counts))
    }

    /// Builds every lazy regex now; the rule ids (or `allowlist`) of those that do not build.
    pub(crate) fn build_all(&self) -> Vec<String> {
        let mut failed = Vec::new();
        for rule in &self.rules {
            if rule.regex.get().is_none() {
                failed.push(rule.id.clone());
            }
            if !rule.allowlists.iter().all(|a| a.build()) {
                failed.push(format!("{} (allowlist)", rule.id));
            }
        }
        if !self.global.iter().chain(self.targeted.iter().flatten()).all(|a| a.build()) {
            failed.push("allowlist".into());
        }
        failed
    }

    /// Findings of the rules in `bits`, merged: non-overlapping, sorted, each labelled with the
    /// best rule of its cluster. Spans ending at or before `min_start` are dropped, the others
    /// clipped to start at `min_start` or later.
    fn findings(&self, text: &str, bits: &RuleBits, hits: Option<&[Hit]>, min_start: usize) -> Vec<Finding> {
        let bytes = text.as_bytes();
        let mut found: Vec<Finding> = Vec::new();
        for i in bits.iter() {
            let rule = &self.rules[i];
            let mut consider = |caps: &Captures| self.consider(text, i, caps, min_start, &mut found);
            match (rule.shape, hits) {
                (Some(shape), Some(hits)) if shape.window && self.windows => {
                    self.windowed(bytes, i, hits, &mut consider);
                }
                _ => {
                    if let Some(regex) = rule.regex.get() {
                        regex.captures_iter(bytes).for_each(|caps| consider(&caps));
                    }
                }
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

    /// The matches of semi-generic rule `i` ([`crate::ruleset::Shape`]), in order, as the
    /// unanchored search finds them, by one anchored search per keyword occurrence that has an
    /// operator within reach. A match starts in the run of name bytes (`[\w.-]`) that ends at
    /// its NAME, at most [`SEMI_GENERIC_LEAD`] bytes before it, so the leftmost start possible
    /// for an occurrence at `s` is the start of that run (or `s - 50`), and an anchored search
    /// from there finds the leftmost match tied to it; occurrences are taken in order, each from
    /// the end of the previous match.
    fn windowed(&self, text: &[u8], i: usize, hits: &[Hit], consider: &mut impl FnMut(&Captures)) {
        let Some(regex) = self.rules[i].regex.get() else { return };
        let mut starts: Vec<usize> = hits
            .iter()
            .filter(|h| {
                let k = h.keyword as usize;
                self.operator_rules[k].has(i) && self.operator_near(text, h, k)
            })
            .map(|h| h.start as usize)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut caps = regex.create_captures();
        let mut pos = 0;
        for s in starts {
            if s < pos || s > text.len() {
                continue;
            }
            let mut from = s;
            while from > pos && s - from < SEMI_GENERIC_LEAD && is_name_byte(text[from - 1]) {
                from -= 1;
            }
            let input = Input::new(text).span(from..text.len()).anchored(Anchored::Yes);
            regex.search_captures(&input, &mut caps);
            if let Some(m) = caps.get_match() {
                consider(&caps);
                pos = m.end().max(from + 1);
            }
        }
    }

    /// Records the finding of rule `i` in one match, unless its entropy or an allowlist keeps it.
    fn consider(&self, text: &str, i: usize, caps: &Captures, min_start: usize, found: &mut Vec<Finding>) {
        let rule = &self.rules[i];
        let bytes = text.as_bytes();
        let Some(whole) = caps.get_match() else { return };
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
            match caps.get_group(rule.secret_group) {
                Some(g) => (s, e) = (g.start, g.end),
                None => return,
            }
        } else if let Some(g) = (1..caps.group_len()).filter_map(|g| caps.get_group(g)).find(|g| !g.is_empty()) {
            (s, e) = (g.start, g.end);
        }
        let (s, e) = widen(text, s, e);
        if s >= e || e <= min_start {
            return;
        }
        let (ms, me) = widen(text, ms, me);
        if self.keeps(text, i, (s, e), (ms, me)) {
            found.push(Finding { start: s.max(min_start), end: e, rule: i });
        }
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

/// A keyword and, when it holds characters a JSON encoder may escape, its escaped forms: the
/// mandatory escapes (`\"`, `\\`) alone, and with `\/` and `\u00XX` for `<>&'` as some
/// encoders write them. The raw line of a record then shows one of them.
fn json_variants(k: &str) -> Vec<String> {
    let mut out = vec![k.to_string()];
    if !k.bytes().any(|b| b"\"\\/<>&'".contains(&b)) {
        return out;
    }
    let mut minimal = String::new();
    let mut maximal = String::new();
    for c in k.chars() {
        match c {
            '"' | '\\' => {
                minimal.push('\\');
                minimal.push(c);
                maximal.push('\\');
                maximal.push(c);
            }
            '/' => {
                minimal.push(c);
                maximal.push_str("\\/");
            }
            '<' | '>' | '&' | '\'' => {
                minimal.push(c);
                maximal.push_str(&format!("\\u{:04x}", c as u32));
            }
            _ => {
                minimal.push(c);
                maximal.push(c);
            }
        }
    }
    for v in [minimal, maximal] {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// A byte of the semi-generic shape's name prefix, `[\w.-]` (ASCII).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-'
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

#[cfg(test)]
mod tests {
    #[test]
    fn keywords_are_also_searched_escaped() {
        assert_eq!(super::json_variants("key"), ["key"]);
        assert_eq!(super::json_variants("://"), ["://", ":\\/\\/"]);
        assert_eq!(super::json_variants("<add key=\""), ["<add key=\"", "<add key=\\\"", "\\u003cadd key=\\\""]);
    }
}
