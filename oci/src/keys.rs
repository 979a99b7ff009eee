//! Publisher keys: ed25519, one line of text each.
//!
//! ```text
//! PATH      trajhost-ed25519-secret <base64 of the 32-byte seed>      (mode 0600)
//! PATH.pub  trajhost-ed25519 <base64 of the 32-byte public key> [comment]
//! ```
//!
//! Lines starting with `#` are comments. A key is named by its id,
//! `ed25519:<first 16 hex digits of sha256(public key)>`.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signer, Verifier};

use crate::OciError;

const SECRET_TAG: &str = "trajhost-ed25519-secret";
const PUBLIC_TAG: &str = "trajhost-ed25519";

/// A publisher's secret key.
pub struct SecretKey {
    key: ed25519_dalek::SigningKey,
}

/// A publisher's public key.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    key: ed25519_dalek::VerifyingKey,
    /// The comment after the key in its file (often the publisher).
    pub comment: Option<String>,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretKey({})", self.public().id())
    }
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PublicKey({})", self.id())
    }
}

impl SecretKey {
    /// A new key from the operating system's random source.
    pub fn generate() -> Result<SecretKey, OciError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| OciError::Setup(format!("no random source: {e}")))?;
        Ok(SecretKey { key: ed25519_dalek::SigningKey::from_bytes(&seed) })
    }

    /// Reads a secret key file.
    pub fn read(path: &Path) -> Result<SecretKey, OciError> {
        let text = std::fs::read_to_string(path).map_err(|e| OciError::io(path, e))?;
        SecretKey::parse(&text).map_err(|message| OciError::Key { path: path.to_path_buf(), message })
    }

    /// Parses the text of a secret key file.
    pub fn parse(text: &str) -> Result<SecretKey, String> {
        let line = key_line(text).ok_or("the file holds no key")?;
        let mut words = line.split_whitespace();
        match words.next() {
            Some(SECRET_TAG) => {}
            Some(PUBLIC_TAG) => return Err("this is a public key (PATH.pub); sign with the secret key PATH".into()),
            _ => return Err(format!("not a trajhost secret key (expected a line `{SECRET_TAG} <base64>`)")),
        }
        let seed = decode32(words.next().unwrap_or(""))?;
        Ok(SecretKey { key: ed25519_dalek::SigningKey::from_bytes(&seed) })
    }

    /// The key's public half.
    pub fn public(&self) -> PublicKey {
        PublicKey { key: self.key.verifying_key(), comment: None }
    }

    /// Signs `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }

    /// Writes the pair: `path` (secret, mode 0600, never replacing a file)
    /// and `path.pub`. Returns the public key's path.
    pub fn write_pair(&self, path: &Path, comment: Option<&str>) -> Result<PathBuf, OciError> {
        let public_path = public_path(path);
        for existing in [path, public_path.as_path()] {
            if existing.exists() {
                return Err(OciError::Key {
                    path: existing.to_path_buf(),
                    message: "already exists; a key is never overwritten".into(),
                });
            }
        }
        let secret = format!(
            "# trajhost publisher secret key {}: keep it private, never commit it\n{SECRET_TAG} {}\n",
            self.public().id(),
            B64.encode(self.key.to_bytes())
        );
        write_new(path, secret.as_bytes(), 0o600)?;
        let mut public = self.public();
        public.comment = comment.map(str::to_string);
        write_new(&public_path, public.to_text().as_bytes(), 0o644)?;
        Ok(public_path)
    }
}

impl PublicKey {
    /// Reads a public key file.
    pub fn read(path: &Path) -> Result<PublicKey, OciError> {
        let text = std::fs::read_to_string(path).map_err(|e| OciError::io(path, e))?;
        PublicKey::parse(&text).map_err(|message| OciError::Key { path: path.to_path_buf(), message })
    }

    /// Parses the text of a public key file.
    pub fn parse(text: &str) -> Result<PublicKey, String> {
        let line = key_line(text).ok_or("the file holds no key")?;
        let mut words = line.splitn(3, char::is_whitespace);
        match words.next() {
            Some(PUBLIC_TAG) => {}
            Some(SECRET_TAG) => {
                return Err("this is a secret key: give its .pub file (and keep this one private)".into());
            }
            _ => return Err(format!("not a trajhost public key (expected a line `{PUBLIC_TAG} <base64> [comment]`)")),
        }
        let key = PublicKey::from_base64(words.next().unwrap_or(""))?;
        let comment = words.next().map(str::trim).filter(|c| !c.is_empty()).map(str::to_string);
        Ok(PublicKey { comment, ..key })
    }

    /// A key from the base64 of its 32 bytes.
    pub fn from_base64(text: &str) -> Result<PublicKey, String> {
        let bytes = decode32(text)?;
        let key =
            ed25519_dalek::VerifyingKey::from_bytes(&bytes).map_err(|e| format!("not an ed25519 public key: {e}"))?;
        Ok(PublicKey { key, comment: None })
    }

    /// The base64 of the key's 32 bytes.
    pub fn to_base64(&self) -> String {
        B64.encode(self.key.to_bytes())
    }

    /// The key's file text.
    pub fn to_text(&self) -> String {
        match &self.comment {
            Some(comment) => format!("{PUBLIC_TAG} {} {comment}\n", self.to_base64()),
            None => format!("{PUBLIC_TAG} {}\n", self.to_base64()),
        }
    }

    /// `ed25519:<16 hex digits>`.
    pub fn id(&self) -> String {
        let digest = crate::sha256_digest(&self.key.to_bytes());
        let hex = &digest["sha256:".len()..];
        format!("ed25519:{}", &hex[..16])
    }

    /// Whether `signature` is this key's over `message` (strict: no
    /// malleable or small-order forms).
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(bytes) = <[u8; 64]>::try_from(signature) else { return false };
        let signature = ed25519_dalek::Signature::from_bytes(&bytes);
        self.key.verify_strict(message, &signature).is_ok() && self.key.verify(message, &signature).is_ok()
    }

    /// Whether two keys are the same key (comments aside).
    pub fn same_key(&self, other: &PublicKey) -> bool {
        self.key == other.key
    }
}

/// `PATH.pub`.
pub fn public_path(secret: &Path) -> PathBuf {
    let mut name = secret.as_os_str().to_owned();
    name.push(".pub");
    PathBuf::from(name)
}

fn key_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'))
}

fn decode32(text: &str) -> Result<[u8; 32], String> {
    let bytes = B64.decode(text.trim()).map_err(|e| format!("the key is not base64: {e}"))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| format!("the key is {} bytes, not 32", bytes.len()))
}

fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), OciError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| OciError::io(parent, e))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(|e| OciError::io(path, e))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| OciError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_round_trips_through_its_files_and_signs() {
        let dir = tempfile::tempdir().unwrap();
        let key = SecretKey::generate().unwrap();
        let path = dir.path().join("keys/acme");
        let public_file = key.write_pair(&path, Some("Acme Inc.")).unwrap();
        assert_eq!(public_file, dir.path().join("keys/acme.pub"));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let secret = SecretKey::read(&path).unwrap();
        let public = PublicKey::read(&public_file).unwrap();
        assert_eq!(public.comment.as_deref(), Some("Acme Inc."));
        assert!(public.same_key(&key.public()));
        assert_eq!(public.id(), key.public().id());
        assert!(public.id().starts_with("ed25519:") && public.id().len() == "ed25519:".len() + 16);
        let signature = secret.sign(b"message");
        assert!(public.verify(b"message", &signature));
        assert!(!public.verify(b"messagf", &signature));
        assert!(!public.verify(b"message", &signature[..63]));
        assert!(!SecretKey::generate().unwrap().public().verify(b"message", &signature));
        // Never overwritten.
        assert!(matches!(key.write_pair(&path, None), Err(OciError::Key { .. })));
    }

    #[test]
    fn the_wrong_half_is_named() {
        let key = SecretKey::generate().unwrap();
        let public_text = key.public().to_text();
        assert!(SecretKey::parse(&public_text).unwrap_err().contains("public key"));
        let secret_text = format!("{SECRET_TAG} {}\n", B64.encode(key.key.to_bytes()));
        assert!(PublicKey::parse(&secret_text).unwrap_err().contains("secret key"));
        assert!(PublicKey::parse("trajhost-ed25519 AAAA").unwrap_err().contains("not 32"));
        assert!(PublicKey::parse("ssh-ed25519 AAAA").is_err());
    }
}
