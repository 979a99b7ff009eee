//! OpenCode ids (`packages/opencode/src/id/id.ts`): a prefix, `_`, 12 hex
//! digits of `(ms × 0x1000 + counter)` (bitwise NOT for descending session
//! ids, so the newest sorts first) and 14 base62 characters. Messages and
//! parts sort by id, so written ids must increase in conversation order.
//! The random characters come from SHA-256 of the document and the id's
//! index: the same document gives the same ids.

use sha2::{Digest, Sha256};

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Issues increasing ids for one written session.
pub struct Ids {
    seed: [u8; 32],
    last: u64,
    issued: u64,
}

impl Ids {
    pub fn new(document: &[u8]) -> Ids {
        Ids { seed: Sha256::digest(document).into(), last: 0, issued: 0 }
    }

    fn random(&mut self) -> String {
        self.issued += 1;
        let mut hasher = Sha256::new();
        hasher.update(self.seed);
        hasher.update(self.issued.to_be_bytes());
        let h = hasher.finalize();
        h.iter().take(14).map(|b| BASE62[(*b as usize) % 62] as char).collect()
    }

    /// An ascending id (`msg`, `prt`) for instant `ms`, after every earlier one.
    pub fn ascending(&mut self, prefix: &str, ms: i64) -> String {
        let mut value = ((ms.max(0) as u64) << 12 | 1) & 0xffff_ffff_ffff;
        if value <= self.last {
            value = self.last + 1;
        }
        self.last = value;
        format!("{prefix}_{value:012x}{}", self.random())
    }

    /// A descending session id for instant `ms`.
    pub fn session(&mut self, ms: i64) -> String {
        let value = !((ms.max(0) as u64) << 12 | 1) & 0xffff_ffff_ffff;
        format!("ses_{value:012x}{}", self.random())
    }
}
