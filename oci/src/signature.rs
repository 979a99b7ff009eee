//! A publisher's signature over a codec artifact.
//!
//! What is signed is the codec manifest's digest, which covers the config,
//! the component's digest and the annotations:
//!
//! ```text
//! trajhost codec signature v1\n<manifest digest>\n
//! ```
//!
//! The signature travels as one layer (media type
//! [`crate::SIGNATURE_MEDIA_TYPE`]) of a signature manifest, JSON:
//!
//! ```json
//! {"version":1,"algorithm":"ed25519","key_id":"ed25519:…","public_key":"<base64>",
//!  "manifest_digest":"sha256:…","signature":"<base64 of 64 bytes>"}
//! ```

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};

use crate::keys::{PublicKey, SecretKey};

/// One signature, as stored in its layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignatureDocument {
    /// 1.
    pub version: u32,
    /// `ed25519`.
    pub algorithm: String,
    /// The signer's key id.
    pub key_id: String,
    /// The signer's public key (base64).
    pub public_key: String,
    /// The codec manifest's digest, `sha256:…`.
    pub manifest_digest: String,
    /// base64 of the 64-byte signature.
    pub signature: String,
}

/// The bytes signed for a manifest digest.
pub fn signed_message(manifest_digest: &str) -> Vec<u8> {
    format!("trajhost codec signature v1\n{manifest_digest}\n").into_bytes()
}

impl SignatureDocument {
    /// `key`'s signature over `manifest_digest`.
    pub fn sign(key: &SecretKey, manifest_digest: &str) -> SignatureDocument {
        let public = key.public();
        SignatureDocument {
            version: 1,
            algorithm: "ed25519".into(),
            key_id: public.id(),
            public_key: public.to_base64(),
            manifest_digest: manifest_digest.to_string(),
            signature: B64.encode(key.sign(&signed_message(manifest_digest))),
        }
    }

    /// The key the document names (not yet trusted: check it against a
    /// trust store).
    pub fn public_key(&self) -> Option<PublicKey> {
        PublicKey::from_base64(&self.public_key).ok()
    }

    /// Whether this is a valid signature by `key` over `manifest_digest`.
    pub fn verifies(&self, key: &PublicKey, manifest_digest: &str) -> bool {
        self.version == 1
            && self.algorithm == "ed25519"
            && self.manifest_digest == manifest_digest
            && B64.decode(&self.signature).is_ok_and(|sig| key.verify(&signed_message(manifest_digest), &sig))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_its_digest_and_key() {
        let key = SecretKey::generate().unwrap();
        let digest = crate::sha256_digest(b"manifest");
        let doc = SignatureDocument::sign(&key, &digest);
        let public = doc.public_key().unwrap();
        assert!(public.same_key(&key.public()));
        assert!(doc.verifies(&public, &digest));
        assert!(!doc.verifies(&public, &crate::sha256_digest(b"other")));
        assert!(!doc.verifies(&SecretKey::generate().unwrap().public(), &digest));
        let mut moved = doc.clone();
        moved.manifest_digest = crate::sha256_digest(b"other");
        assert!(!moved.verifies(&public, &moved.manifest_digest.clone()));
        let json = serde_json::to_string(&doc).unwrap();
        assert_eq!(serde_json::from_str::<SignatureDocument>(&json).unwrap(), doc);
    }
}
