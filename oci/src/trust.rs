//! The publishers a data directory trusts: `DATA_DIR/trust.json`, plus the
//! built-in codecs' publisher, whose public key ships in the binary
//! (`oci/keys/trajhost-builtin.pub`) and cannot be removed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::OciError;
use crate::keys::PublicKey;
use crate::signature::SignatureDocument;

/// The public key of the publisher of trajhost's built-in codecs.
pub const BUILTIN_KEY: &str = include_str!("../keys/trajhost-builtin.pub");
/// Its name in `trust list`.
pub const BUILTIN_NAME: &str = "trajhost";

/// One trusted publisher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Publisher {
    /// The name given at `trust add`.
    pub name: String,
    /// `ed25519:…`.
    pub key_id: String,
    /// base64 of the public key.
    pub public_key: String,
    /// When it was added (RFC 3339), or `built-in`.
    pub added: String,
    /// Whether it ships in the binary.
    #[serde(default)]
    pub builtin: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    format: u32,
    publishers: Vec<Publisher>,
}

/// The trust store of a data directory.
#[derive(Debug)]
pub struct TrustStore {
    path: PathBuf,
    added: Vec<Publisher>,
}

/// Who signed an artifact, once checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Verification {
    /// A trusted publisher's signature verifies over the manifest digest.
    Signed {
        /// The publisher's name.
        publisher: String,
        /// Its key id.
        key_id: String,
    },
    /// No signature at all.
    Unsigned,
    /// Signatures that verify, none by a trusted key (key ids).
    Untrusted { key_ids: Vec<String> },
}

impl Verification {
    /// One line: `signed by acme (ed25519:…)`, `unsigned`, …
    pub fn describe(&self) -> String {
        match self {
            Verification::Signed { publisher, key_id } => format!("signed by {publisher} ({key_id})"),
            Verification::Unsigned => "unsigned".into(),
            Verification::Untrusted { key_ids } => format!("signed by untrusted key(s) {}", key_ids.join(", ")),
        }
    }
}

/// The built-in publisher.
pub fn builtin_publisher() -> Publisher {
    let key = PublicKey::parse(BUILTIN_KEY).expect("the built-in key is a valid public key");
    Publisher {
        name: BUILTIN_NAME.into(),
        key_id: key.id(),
        public_key: key.to_base64(),
        added: "built-in".into(),
        builtin: true,
    }
}

impl TrustStore {
    /// Where a data directory keeps it.
    pub fn path_in(data_dir: &Path) -> PathBuf {
        data_dir.join("trust.json")
    }

    /// Loads the store (a missing file trusts only the built-in key).
    pub fn load(data_dir: &Path) -> Result<TrustStore, OciError> {
        let path = TrustStore::path_in(data_dir);
        let added = match std::fs::read(&path) {
            Ok(bytes) => {
                let file: TrustFile = serde_json::from_slice(&bytes)
                    .map_err(|e| OciError::Trust { path: path.clone(), message: format!("unreadable: {e}") })?;
                file.publishers
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(OciError::io(&path, e)),
        };
        Ok(TrustStore { path, added })
    }

    /// Every trusted publisher, the built-in one first.
    pub fn publishers(&self) -> Vec<Publisher> {
        std::iter::once(builtin_publisher()).chain(self.added.iter().cloned()).collect()
    }

    /// Trusts `key` under `name`. A name or key already trusted is refused.
    pub fn add(&mut self, name: &str, key: &PublicKey, now: &str) -> Result<Publisher, OciError> {
        let bad = |message: String| OciError::Trust { path: self.path.clone(), message };
        if name.trim().is_empty() || name.chars().any(char::is_control) {
            return Err(bad(format!("{name:?} is not a publisher name")));
        }
        for p in self.publishers() {
            if p.name == name {
                return Err(bad(format!("a publisher named {name} is already trusted ({})", p.key_id)));
            }
            if p.public_key == key.to_base64() {
                return Err(bad(format!("key {} is already trusted as {}", p.key_id, p.name)));
            }
        }
        let publisher = Publisher {
            name: name.to_string(),
            key_id: key.id(),
            public_key: key.to_base64(),
            added: now.to_string(),
            builtin: false,
        };
        self.added.push(publisher.clone());
        self.save()?;
        Ok(publisher)
    }

    /// Stops trusting the publisher named `name` (or with that key id).
    pub fn remove(&mut self, name: &str) -> Result<Publisher, OciError> {
        if name == BUILTIN_NAME || name == builtin_publisher().key_id {
            return Err(OciError::Trust {
                path: self.path.clone(),
                message: "the built-in codecs' publisher ships in the binary and cannot be removed".into(),
            });
        }
        let Some(i) = self.added.iter().position(|p| p.name == name || p.key_id == name) else {
            let names: Vec<&str> = self.added.iter().map(|p| p.name.as_str()).collect();
            return Err(OciError::Trust {
                path: self.path.clone(),
                message: format!(
                    "no trusted publisher {name} (trusted: {})",
                    if names.is_empty() { "only the built-in one".to_string() } else { names.join(", ") }
                ),
            });
        };
        let removed = self.added.remove(i);
        self.save()?;
        Ok(removed)
    }

    /// Checks `signatures` (as found beside an artifact) over
    /// `manifest_digest`. A signature that names a trusted key and does not
    /// verify is an error: something was altered.
    pub fn verify(
        &self,
        reference: &str,
        manifest_digest: &str,
        signatures: &[SignatureDocument],
    ) -> Result<Verification, OciError> {
        let trusted = self.publishers();
        let mut untrusted = Vec::new();
        let mut altered = None;
        for doc in signatures {
            let Some(key) = doc.public_key() else { continue };
            let verifies = doc.verifies(&key, manifest_digest);
            match trusted.iter().find(|p| p.public_key == key.to_base64()) {
                Some(p) if verifies => {
                    return Ok(Verification::Signed { publisher: p.name.clone(), key_id: p.key_id.clone() });
                }
                Some(p) => altered = altered.or_else(|| Some(format!("{} ({})", p.name, p.key_id))),
                None if verifies => untrusted.push(key.id()),
                None => {}
            }
        }
        if let Some(signer) = altered {
            return Err(OciError::BadSignature {
                reference: reference.to_string(),
                digest: manifest_digest.to_string(),
                signer,
            });
        }
        if untrusted.is_empty() {
            Ok(Verification::Unsigned)
        } else {
            Ok(Verification::Untrusted { key_ids: untrusted })
        }
    }

    fn save(&self) -> Result<(), OciError> {
        let file = TrustFile { format: 1, publishers: self.added.clone() };
        let bytes = serde_json::to_vec_pretty(&file).expect("the trust file serializes");
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| OciError::io(dir, e))?;
        let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(|e| OciError::io(dir, e))?;
        std::io::Write::write_all(&mut temp, &bytes)
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| OciError::io(temp.path(), e))?;
        temp.persist(&self.path).map_err(|e| OciError::io(&self.path, e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::SecretKey;

    #[test]
    fn the_builtin_key_is_valid_and_always_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = TrustStore::load(dir.path()).unwrap();
        let publishers = store.publishers();
        assert_eq!(publishers.len(), 1);
        assert!(publishers[0].builtin);
        assert!(matches!(store.remove(BUILTIN_NAME), Err(OciError::Trust { .. })));
    }

    #[test]
    fn publishers_are_added_checked_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let acme = SecretKey::generate().unwrap();
        let other = SecretKey::generate().unwrap();
        let digest = crate::sha256_digest(b"m");
        let mut store = TrustStore::load(dir.path()).unwrap();
        let signed = vec![SignatureDocument::sign(&acme, &digest)];
        assert_eq!(
            store.verify("r", &digest, &signed).unwrap(),
            Verification::Untrusted { key_ids: vec![acme.public().id()] }
        );
        assert_eq!(store.verify("r", &digest, &[]).unwrap(), Verification::Unsigned);
        store.add("acme", &acme.public(), "2026-01-01T00:00:00Z").unwrap();
        assert!(store.add("acme", &other.public(), "now").is_err());
        assert!(store.add("again", &acme.public(), "now").is_err());
        let store = TrustStore::load(dir.path()).unwrap();
        assert_eq!(
            store.verify("r", &digest, &signed).unwrap(),
            Verification::Signed { publisher: "acme".into(), key_id: acme.public().id() }
        );
        // A trusted key's signature over another digest: altered.
        let other_digest = crate::sha256_digest(b"n");
        assert!(matches!(store.verify("r", &other_digest, &signed), Err(OciError::BadSignature { .. })));
        let mut store = store;
        store.remove("acme").unwrap();
        assert!(store.remove("acme").is_err());
        assert_eq!(TrustStore::load(dir.path()).unwrap().publishers().len(), 1);
    }
}
