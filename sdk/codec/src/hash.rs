//! Hashes codecs need: a fixed, seedless hash for matching lines and texts
//! across reads ([`Fnv`]), and the digests native formats name things by
//! ([`sha256_hex`] for content-addressed blobs, [`md5_hex`] for folders named
//! after a work directory).

use md5::Digest as _;

/// Lowercase hex of `digest`.
pub fn to_hex(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(digest.len() * 2);
    for b in digest {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

/// The SHA-256 of `data` as 64 lowercase hex digits.
pub fn sha256_hex(data: &[u8]) -> String {
    to_hex(&sha256(data))
}

/// The MD5 of `data` as 32 lowercase hex digits: only for naming, the way
/// harnesses name a work directory's folder (Kimi CLI, Cursor). Not for security.
pub fn md5_hex(data: &[u8]) -> String {
    to_hex(&md5::Md5::digest(data))
}

/// FNV-1a, 64 bit: deterministic (no random seed, same value on every host
/// and in every guest), fit for identities, not for untrusted hash tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}

impl Fnv {
    /// The empty hash (the FNV-1a 64 offset basis).
    pub const fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `bytes` in.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The hash of everything written.
    pub fn finish(self) -> u64 {
        self.0
    }

    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut h = Fnv::new();
        h.write(bytes);
        h.finish()
    }
}

impl std::hash::Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        Fnv::write(self, bytes);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A seedless `BuildHasher` for `HashMap`/`HashSet` in a guest, where
/// `HashMap::new()` would import a random seed the host does not provide:
/// `HashMap::with_hasher(FixedState)` or the [`HashMap`] alias.
pub type FixedState = std::hash::BuildHasherDefault<Fnv>;

/// A `HashMap` with [`FixedState`]: `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, FixedState>;
/// A `HashSet` with [`FixedState`]: `HashSet::default()`.
pub type HashSet<T> = std::collections::HashSet<T, FixedState>;

#[cfg(test)]
mod tests {
    use super::Fnv;

    #[test]
    fn fixed_state_maps_work_and_hash_deterministically() {
        use std::hash::BuildHasher;
        let mut map: super::HashMap<&str, u32> = super::HashMap::default();
        map.insert("a", 1);
        assert_eq!(map.get("a"), Some(&1));
        assert_eq!(super::FixedState::default().hash_one("x"), super::FixedState::default().hash_one("x"));
    }

    #[test]
    fn known_digests() {
        assert_eq!(super::md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        // Cursor's folder for this project path, as a third-party reader checked it.
        assert_eq!(super::md5_hex(b"/Users/alexm/Repository/Codex-History"), "a540c72cf1054787d73d0121d2ecc391");
        assert_eq!(super::sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn known_fnv1a_64_values() {
        assert_eq!(Fnv::of(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv::of(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv::of(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv::default();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), Fnv::of(b"foobar"));
    }
}
