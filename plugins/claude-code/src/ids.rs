//! Deterministic ids for written sessions. The sandbox has no randomness and
//! no clock, and the same canonical document must always give the same
//! bytes, so every id is a SHA-256 of a digest and a label. The writer
//! streams, so the digest is of the document's first line, its `meta`: the
//! ids are known before the first record.

use trajhost_codec_sdk::writer::ids;

/// Ids derived from one canonical document (its meta line).
pub struct Ids {
    seed: [u8; 32],
}

impl Ids {
    /// Ids seeded by the SHA-256 of `seed` (the meta line).
    pub fn of(seed: &[u8]) -> Ids {
        Ids { seed: ids::sha256_of(&[seed]) }
    }

    /// 32 bytes for `label` and `index`.
    fn bytes(&self, label: &str, index: u64) -> [u8; 32] {
        ids::sha256_of(&[&self.seed, label.as_bytes(), &[0], &index.to_be_bytes()])
    }

    /// A UUID in the version-4 layout (what Claude Code uses for session
    /// ids and line uuids), lowercase.
    pub fn uuid(&self, label: &str, index: u64) -> String {
        ids::uuid_v4_layout(&self.bytes(label, index))
    }

    /// `<prefix>01` + 22 base-58 characters, the shape of Anthropic ids
    /// (`msg_01…`, `toolu_01…`).
    pub fn anthropic_id(&self, prefix: &str, label: &str, index: u64) -> String {
        const ALPHABET: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
        let h = self.bytes(label, index);
        let mut out = String::with_capacity(prefix.len() + 24);
        out.push_str(prefix);
        out.push_str("01");
        for byte in &h[..22] {
            out.push(ALPHABET[usize::from(*byte) % 58] as char);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Ids;

    #[test]
    fn ids_are_deterministic_distinct_and_well_formed() {
        let a = Ids::of(b"doc");
        assert_eq!(a.uuid("line", 0), Ids::of(b"doc").uuid("line", 0));
        assert_ne!(a.uuid("line", 0), a.uuid("line", 1));
        assert_ne!(a.uuid("line", 0), Ids::of(b"doc2").uuid("line", 0));
        let id = a.uuid("session", 0);
        assert!(crate::layout::is_session_id(&id), "{id}");
        assert_eq!(&id[14..15], "4");
        assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"));
        let msg = a.anthropic_id("msg_", "message", 3);
        assert!(msg.starts_with("msg_01") && msg.len() == 28, "{msg}");
        assert!(msg[4..].bytes().all(|b| b.is_ascii_alphanumeric()));
    }
}
