//! Deterministic ids for written sessions.
//!
//! The sandbox has no randomness and no clock, and the same canonical
//! document must always give the same bytes, so every id a writer mints is
//! a SHA-256 of what the document says: its `meta` line (see
//! [`CanonicalInput::meta_digest`](super::CanonicalInput::meta_digest)),
//! a label naming what the id is for, and an index. The layouts are those
//! harnesses expect: UUIDs with the version-4 or version-7 bits, and short
//! hex ids.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::hash::to_hex;
use crate::{CodecError, WriteOptions};

/// A written session's id, for a harness that names its sessions by UUID:
/// the id `options` name, which must be a UUID (else an error saying so,
/// `why` in parentheses: what names sessions in the harness), else
/// `derived()`.
pub fn uuid_native_id(
    options: &WriteOptions,
    why: &str,
    derived: impl FnOnce() -> String,
) -> Result<String, CodecError> {
    match options.native_id.as_deref() {
        Some(id) if crate::paths::is_uuid(id) => Ok(id.to_string()),
        Some(id) => Err(CodecError::Other(format!("write-options.native-id {id:?} is not a UUID ({why})"))),
        None => Ok(derived()),
    }
}

/// SHA-256 of `parts`, one after the other (no separators: callers put
/// their own where parts could run into each other).
pub fn sha256_of(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// SHA-256 of `salt`, a NUL, then `content`: a digest of `content` that is
/// different for every use (`salt` names the use).
pub fn salted_sha256(salt: &str, content: &[u8]) -> [u8; 32] {
    sha256_of(&[salt.as_bytes(), &[0], content])
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, lowercase.
pub fn format_uuid(bytes: &[u8; 16]) -> String {
    let h = to_hex(bytes);
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// A UUID in the version-4 layout (version and variant bits set) from the
/// first 16 bytes of `digest`: a random-looking id that is not random.
///
/// # Panics
/// When `digest` is shorter than 16 bytes.
pub fn uuid_v4_layout(digest: &[u8]) -> String {
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = 0x40 | (b[6] & 0x0f);
    b[8] = 0x80 | (b[8] & 0x3f);
    format_uuid(&b)
}

/// [`uuid_v4_layout`] of SHA-256 of `content`.
pub fn uuid_v4_of(content: &[u8]) -> String {
    uuid_v4_layout(&sha256_of(&[content]))
}

/// [`uuid_v4_layout`] of [`salted_sha256`]: one UUID of `content` per use
/// (`salt`), e.g. a conversation id and its agent id from one seed.
pub fn salted_uuid_v4(salt: &str, content: &[u8]) -> String {
    uuid_v4_layout(&salted_sha256(salt, content))
}

/// A UUIDv7 for the instant `ms` (clamped to 0..2⁴⁸) whose 74 "random" bits
/// come from [`salted_sha256`] of `content` and `salt`: it sorts by time as
/// harnesses that mint v7 ids expect.
pub fn uuid_v7(ms: i64, content: &[u8], salt: &str) -> String {
    uuid_v7_layout(ms, &salted_sha256(salt, content))
}

/// A UUIDv7 for the instant `ms` (clamped to 0..2⁴⁸) whose 74 "random" bits
/// are the first bits of `digest` (at least 10 bytes).
pub fn uuid_v7_layout(ms: i64, digest: &[u8]) -> String {
    let h = digest;
    let ms = (ms.max(0) as u64) & 0xffff_ffff_ffff;
    let mut b = [0u8; 16];
    b[..6].copy_from_slice(&ms.to_be_bytes()[2..]);
    b[6] = 0x70 | (h[0] & 0x0f);
    b[7] = h[1];
    b[8] = 0x80 | (h[2] & 0x3f);
    b[9..].copy_from_slice(&h[3..10]);
    format_uuid(&b)
}

/// The first `chars` hex characters of `digest` (at most twice its length).
pub fn hex_prefix(digest: &[u8], chars: usize) -> String {
    let mut hex = to_hex(&digest[..chars.div_ceil(2).min(digest.len())]);
    hex.truncate(chars);
    hex
}

/// The ids given in one file so far, for formats whose loader keeps one
/// entry per id: a record's own id is kept when it is new, else a variant
/// of it is.
#[derive(Debug, Default, Clone)]
pub struct UsedIds {
    used: BTreeSet<String>,
}

impl UsedIds {
    /// None given yet.
    pub fn new() -> UsedIds {
        UsedIds::default()
    }

    /// Whether `id` was given.
    pub fn contains(&self, id: &str) -> bool {
        self.used.contains(id)
    }

    /// Notes `id` as given; `false` when it was already.
    pub fn insert(&mut self, id: &str) -> bool {
        self.used.insert(id.to_string())
    }

    /// `wanted` when new, else the first new one of `variant(wanted, 1)`,
    /// `variant(wanted, 2)`, …; noted as given either way.
    pub fn claim(&mut self, wanted: &str, variant: impl Fn(&str, u32) -> String) -> String {
        let mut candidate = wanted.to_string();
        let mut n = 1;
        while self.used.contains(&candidate) {
            candidate = variant(wanted, n);
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::is_uuid;

    #[test]
    fn layouts_and_determinism() {
        let v4 = uuid_v4_layout(&[7; 32]);
        assert!(is_uuid(&v4));
        assert_eq!(v4, "07070707-0707-4707-8707-070707070707");
        assert_eq!(uuid_v4_of(b"x"), uuid_v4_layout(&sha256_of(&[b"x"])));
        let v7 = uuid_v7(1_796_011_554_384, b"doc", "session");
        assert!(v7.starts_with("01a22a") && &v7[14..15] == "7", "{v7}");
        assert_eq!(v7, uuid_v7(1_796_011_554_384, b"doc", "session"));
        assert_ne!(v7, uuid_v7(1_796_011_554_384, b"doc", "turn"));
        assert_eq!(salted_sha256("a", b"b"), sha256_of(&[b"a\0b"]));
        assert_eq!(hex_prefix(&[0xab, 0xcd, 0xef], 3), "abc");
        assert_eq!(hex_prefix(&[0xab, 0xcd], 8), "abcd");
        let mut used = UsedIds::new();
        let dash = |base: &str, n: u32| format!("{base}-{n}");
        assert_eq!([used.claim("m", dash), used.claim("m", dash), used.claim("m", dash)], ["m", "m-1", "m-2"]);
        assert!(used.contains("m-1") && !used.insert("m"));
    }
}
