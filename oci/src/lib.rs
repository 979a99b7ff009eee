//! trajhost codecs as OCI artifacts: pull, push, sign and verify.
//!
//! A codec travels as a wasm component in the CNCF wasm OCI artifact layout
//! (the one `wkg` and `oras` push): an OCI image manifest whose config has
//! the media type `application/vnd.wasm.config.v0+json` and whose single
//! layer is the component, `application/wasm`. The codec's `info` rides in
//! the manifest's annotations ([`annotations`]), so a registry listing shows
//! what each tag covers without downloading the component.
//!
//! A publisher signs the manifest's digest with an ed25519 key ([`keys`]).
//! The signature is an artifact of its own in the same repository: a
//! manifest whose `subject` is the codec's manifest (a referrer, for
//! registries with the referrers API) tagged `sha256-<hex>.sig` (found the
//! same way on every registry), with one layer per signature
//! ([`signature`]). [`trust`] keeps the publishers a data directory trusts;
//! the built-in codecs' key ships in this crate ([`trust::BUILTIN_KEY`]).
//!
//! Everything is blocking: a [`Client`] runs the async distribution client
//! on a current-thread tokio runtime of its own. Nothing here prints; what
//! it does is logged with `tracing`.

pub mod annotations;
mod client;
mod error;
pub mod keys;
mod layout;
pub mod reference;
pub mod signature;
pub mod trust;

pub use client::{Client, ClientOptions, Listing, Pulled, Pushed, Signed};
pub use error::OciError;
pub use layout::{WasmConfig, component_names};
pub use reference::OciReference;

/// The manifest media type of every artifact here.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The config media type of the CNCF wasm artifact layout.
pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The media type of the layer that holds the component.
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";
/// The OCI empty config (`{}`), which `oras push` writes by default.
pub const EMPTY_CONFIG_MEDIA_TYPE: &str = "application/vnd.oci.empty.v1+json";
/// The artifact type (and layer media type) of a trajhost signature.
pub const SIGNATURE_MEDIA_TYPE: &str = "application/vnd.trajhost.codec.signature.v1+json";

/// Installs the TLS crypto provider the distribution client needs (ring),
/// once per process; [`Client::new`] calls it. Needed only by code that
/// builds an `oci_client::Client` of its own.
pub fn install_crypto_provider() {
    // rustls deprecates ring's provider for lacking post-quantum key
    // exchange; aws-lc-rs, reqwest's default, would add a long C build.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

pub type Result<T, E = OciError> = std::result::Result<T, E>;
