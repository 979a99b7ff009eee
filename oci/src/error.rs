//! What can go wrong, one variant per cause, each naming the reference,
//! registry or file it concerns.

use std::path::PathBuf;

/// An error of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OciError {
    /// A reference that is not `oci://REGISTRY/REPOSITORY[:TAG|@sha256:HEX]`.
    #[error(
        "{reference:?} is not an OCI reference: {reason} (expected oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:DIGEST)"
    )]
    InvalidReference {
        /// The text given.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The registry could not be reached: nothing listens, DNS, TLS.
    #[error("cannot reach the registry {registry}: {message}")]
    Unreachable {
        /// `host[:port]`.
        registry: String,
        /// The transport's error, with its causes.
        message: String,
    },
    /// The registry did not answer within the time given.
    #[error("the registry {registry} did not answer within {millis} ms")]
    TimedOut {
        /// `host[:port]`.
        registry: String,
        /// The time allowed.
        millis: u128,
    },
    /// The reference names no manifest (or the repository does not exist).
    #[error("{reference} was not found in the registry")]
    NotFound {
        /// `oci://…`.
        reference: String,
    },
    /// The registry refused an operation or answered with an error.
    #[error("{reference}: the registry refused to {operation}: {message}")]
    Registry {
        /// `oci://…`.
        reference: String,
        /// What was asked (`pull the manifest`, `push a blob`, …).
        operation: &'static str,
        /// The registry's answer.
        message: String,
    },
    /// The manifest is not a wasm component artifact trajhost can install.
    #[error("{reference} is not a wasm component artifact: {reason}")]
    NotAWasmArtifact {
        /// `oci://…`.
        reference: String,
        /// What the manifest holds instead.
        reason: String,
    },
    /// The manifest served under a digest reference hashes to another digest.
    #[error("{reference}: the registry served a manifest whose digest is {found}, not {expected}")]
    ManifestDigestMismatch {
        /// `oci://…@sha256:…`.
        reference: String,
        /// The digest asked for.
        expected: String,
        /// The digest of the bytes served.
        found: String,
    },
    /// A blob's bytes do not hash to the digest its manifest gives: altered
    /// in the registry or on the way.
    #[error("{reference}: blob {expected} was tampered with: the bytes served hash to {found}")]
    BlobDigestMismatch {
        /// `oci://…`.
        reference: String,
        /// The digest the manifest gives.
        expected: String,
        /// The digest of the bytes served.
        found: String,
    },
    /// The component is larger than the limit.
    #[error("{reference}: the component is {size} bytes, more than the {max}-byte limit")]
    TooLarge {
        /// `oci://…`.
        reference: String,
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// No signature is attached to the artifact.
    #[error("{reference} ({digest}) is not signed; install it anyway with --allow-unsigned")]
    Unsigned {
        /// `oci://…`.
        reference: String,
        /// The manifest's digest.
        digest: String,
    },
    /// Signatures are attached, but none by a trusted publisher.
    #[error(
        "{reference} ({digest}) is signed by {signers}, none of them a trusted publisher; trust the publisher with `trajhost plugin trust add NAME KEY.pub`, or install it anyway with --allow-unsigned"
    )]
    UntrustedSigner {
        /// `oci://…`.
        reference: String,
        /// The manifest's digest.
        digest: String,
        /// The key ids that signed, comma-separated.
        signers: String,
    },
    /// A signature that names a trusted key does not verify over the
    /// artifact: the artifact or the signature was altered.
    #[error(
        "{reference} ({digest}): the signature by {signer} does not verify: the artifact or its signature was altered"
    )]
    BadSignature {
        /// `oci://…`.
        reference: String,
        /// The manifest's digest.
        digest: String,
        /// The publisher's name and key id.
        signer: String,
    },
    /// A key file that cannot be used.
    #[error("key {path}: {message}")]
    Key {
        /// The key file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The trust store cannot be read or written.
    #[error("trust store {path}: {message}")]
    Trust {
        /// `DATA_DIR/trust.json`.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The client could not be set up (its runtime or TLS).
    #[error("cannot start the OCI client: {0}")]
    Setup(String),
}

impl OciError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> OciError {
        OciError::Io { path: path.into(), source }
    }

    /// Whether this error means the registry was not reachable or not in
    /// time (as opposed to answering something wrong).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, OciError::Unreachable { .. } | OciError::TimedOut { .. })
    }
}
