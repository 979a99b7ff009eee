//! A fixed, seedless hash for matching lines and texts across reads.

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
