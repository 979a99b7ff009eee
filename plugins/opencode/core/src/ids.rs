//! OpenCode ids (`packages/opencode/src/id/id.ts`, the same form since the
//! first releases): a prefix (`ses`, `msg`, `prt`), `_`, 12 hex digits of
//! `(ms × 0x1000 + counter)` (bitwise NOT for descending session ids, so the
//! newest sorts first) and 14 base62 characters. OpenCode sorts messages and
//! parts by id, so written ids must increase in conversation order.
//!
//! The 12 digits keep only the low 48 bits, so OpenCode's ids wrap every
//! 2^36 ms (795 days; last on 2026-08-14): an id made from a message's time
//! before a wrap sorts after one the CLI makes now, and Kilo Code then puts a
//! resumed session's whole history after the new prompt. Written message and
//! part ids therefore count up from 1 instead: they sort before any id the
//! CLI makes later (the times live in the records' own `time` fields). A
//! session id still comes from the session's start, which only orders lists.
//!
//! A writer has no random source: the 14 characters come from SHA-256 of a
//! seed (what the writer was given: a document, a meta line) and the id's
//! index, so the same input gives the same ids.

use trajhost_codec_sdk::hash::sha256;

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Issues increasing ids for one written session.
pub struct Ids {
    seed: [u8; 32],
    last: u64,
    issued: u64,
}

impl Ids {
    /// Ids seeded by `seed`'s bytes.
    pub fn new(seed: &[u8]) -> Ids {
        Ids { seed: sha256(seed), last: 0, issued: 0 }
    }

    fn random(&mut self) -> String {
        self.issued += 1;
        let mut input = [0u8; 40];
        input[..32].copy_from_slice(&self.seed);
        input[32..].copy_from_slice(&self.issued.to_be_bytes());
        sha256(&input).iter().take(14).map(|b| BASE62[(*b as usize) % 62] as char).collect()
    }

    /// The next ascending id (`msg`, `prt`): after every earlier one, and
    /// before any the CLI makes (see the module's comment).
    pub fn ascending(&mut self, prefix: &str) -> String {
        self.last += 1;
        let value = self.last;
        format!("{prefix}_{value:012x}{}", self.random())
    }

    /// A descending session id for instant `ms`.
    pub fn session(&mut self, ms: i64) -> String {
        let value = !((ms.max(0) as u64) << 12 | 1) & 0xffff_ffff_ffff;
        format!("ses_{value:012x}{}", self.random())
    }
}

/// Whether `id` is an OpenCode id of `prefix` (`ses`, `msg`, `prt`): the
/// prefix, `_`, then ASCII letters and digits only (safe as a file name).
pub fn is_id(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_increase_and_sessions_descend() {
        let mut ids = Ids::new(b"seed");
        let a = ids.ascending("msg");
        let b = ids.ascending("msg");
        let c = ids.ascending("prt");
        assert!(a.starts_with("msg_") && a.len() == 4 + 12 + 14);
        assert!(b > a && c[4..] > b[4..], "each id sorts after the one before");
        // Before what OpenCode makes for any instant, whichever side of a 48-bit wrap it falls on.
        for ms in [1_767_225_601_000_i64, 1_786_706_329_600, 1_796_673_807_620] {
            let made = format!("msg_{:012x}", ((ms as u64) << 12 | 1) & 0xffff_ffff_ffff);
            assert!(c[4..] < made[4..], "{c} sorts after {made}");
        }
        let old = Ids::new(b"seed").session(1_600_000_000_000);
        let new = Ids::new(b"seed").session(1_700_000_000_000);
        assert!(new < old, "the newest session sorts first");
        assert_eq!(Ids::new(b"seed").ascending("msg"), Ids::new(b"seed").ascending("msg"));
        assert!(is_id(&a, "msg") && !is_id(&a, "prt") && !is_id("msg_", "msg") && !is_id("msg_a/b", "msg"));
    }
}
