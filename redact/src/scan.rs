//! The keyword pass: one Aho-Corasick DFA (ASCII case-insensitive, every occurrence reported)
//! run over the text in four interleaved lanes. A DFA step depends on the previous one, so a
//! single lane waits on memory for every byte; four independent lanes over four quarters of the
//! text keep the core busy (about twice the throughput of one lane). Lanes overlap by the longest
//! keyword less one byte, and report only occurrences ending in their own quarter.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::{Builder, DFA};
use aho_corasick::{Anchored, MatchKind, StartKind};

/// A keyword occurrence: byte offsets and the keyword's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Hit {
    pub end: u32,
    pub start: u32,
    pub keyword: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct Scanner {
    dfa: DFA,
    start: StateID,
    lens: Vec<u32>,
    overlap: usize,
}

const LANES: usize = 4;
/// Below this, one lane (the setup of four costs more than it saves).
const MIN_LANED: usize = 192;

impl Scanner {
    pub(crate) fn new(keywords: &[String]) -> Option<Scanner> {
        if keywords.is_empty() {
            return None;
        }
        let dfa = Builder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .build(keywords)
            .ok()?;
        let start = dfa.start_state(Anchored::No).ok()?;
        let lens: Vec<u32> = keywords.iter().map(|k| k.len() as u32).collect();
        let overlap = keywords.iter().map(String::len).max().unwrap_or(1).saturating_sub(1);
        Some(Scanner { dfa, start, lens, overlap })
    }

    /// Every keyword occurrence in `hay`, sorted by end offset. `hay` must be shorter than 4 GiB
    /// (callers split larger texts).
    // The step index drives four lanes in lockstep: that is the point of the loop.
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn scan(&self, hay: &[u8], out: &mut Vec<Hit>) {
        let first = out.len();
        if hay.len() < MIN_LANED {
            let mut sid = self.start;
            for (i, &b) in hay.iter().enumerate() {
                sid = self.dfa.next_state(Anchored::No, sid, b);
                if self.dfa.is_special(sid) {
                    self.report(sid, i, out);
                }
            }
            return;
        }
        let seg = hay.len() / LANES;
        let mut from = [0usize; LANES];
        let mut own = [0usize; LANES];
        let mut end = [0usize; LANES];
        for l in 0..LANES {
            own[l] = l * seg;
            from[l] = own[l].saturating_sub(self.overlap);
            end[l] = if l == LANES - 1 { hay.len() } else { (l + 1) * seg };
        }
        let steps = (0..LANES).map(|l| end[l] - from[l]).min().unwrap_or(0);
        let lanes: [&[u8]; LANES] = std::array::from_fn(|l| &hay[from[l]..from[l] + steps]);
        // Where each lane's own quarter starts, counted in steps (occurrences ending before are
        // the previous lane's).
        let skip: [usize; LANES] = std::array::from_fn(|l| own[l] - from[l]);
        let mut sid = [self.start; LANES];
        for k in 0..steps {
            for l in 0..LANES {
                sid[l] = self.dfa.next_state(Anchored::No, sid[l], lanes[l][k]);
            }
            for l in 0..LANES {
                if self.dfa.is_special(sid[l]) && k >= skip[l] {
                    self.report(sid[l], from[l] + k, out);
                }
            }
        }
        for l in 0..LANES {
            let mut s = sid[l];
            for (i, &b) in hay.iter().enumerate().take(end[l]).skip(from[l] + steps) {
                s = self.dfa.next_state(Anchored::No, s, b);
                if self.dfa.is_special(s) && i >= own[l] {
                    self.report(s, i, out);
                }
            }
        }
        out[first..].sort_unstable();
    }

    #[inline]
    fn report(&self, sid: StateID, at: usize, out: &mut Vec<Hit>) {
        if !self.dfa.is_match(sid) {
            return;
        }
        let end = at + 1;
        for i in 0..self.dfa.match_len(sid) {
            let k = self.dfa.match_pattern(sid, i).as_usize();
            let len = self.lens[k] as usize;
            out.push(Hit { end: end as u32, start: (end - len) as u32, keyword: k as u32 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::AhoCorasick;

    #[test]
    fn lanes_find_what_the_library_finds() {
        let words: Vec<String> =
            ["key", "ey", "sk", "s.", "api", "-----begin", "token", "ghp_"].map(String::from).into();
        let s = Scanner::new(&words).unwrap();
        let ac = AhoCorasick::builder().ascii_case_insensitive(true).build(&words).unwrap();
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(["the KEY is ", "ask. ", "-----BEGIN x ", "api_token=", "ghp_abc ", "hey\n", "s"][i % 7]);
            let mut got = Vec::new();
            s.scan(text.as_bytes(), &mut got);
            if i % 97 == 0 || i == 2999 {
                let mut want: Vec<Hit> = ac
                    .find_overlapping_iter(&text)
                    .map(|m| Hit { end: m.end() as u32, start: m.start() as u32, keyword: m.pattern().as_u32() })
                    .collect();
                want.sort_unstable();
                assert_eq!(got, want, "at length {}", text.len());
            }
        }
    }
}
