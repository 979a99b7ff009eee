//! The blocking client: one current-thread tokio runtime per [`Client`],
//! every operation bounded by the client's deadline when one is set.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::HeaderValue;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::secrets::RegistryAuth;
use serde::Serialize;

use crate::annotations::CodecAnnotations;
use crate::keys::SecretKey;
use crate::layout::{Descriptor, EMPTY_CONFIG, Manifest, WasmConfig};
use crate::reference::OciReference;
use crate::signature::SignatureDocument;
use crate::trust::{TrustStore, Verification};
use crate::{EMPTY_CONFIG_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, OciError, Result, SIGNATURE_MEDIA_TYPE};

/// The largest manifest or signature document read.
const MAX_SMALL_BLOB: u64 = 256 << 10;
/// The most signatures read beside one artifact.
const MAX_SIGNATURES: usize = 16;
/// The most tags listed of one repository.
const MAX_TAGS: usize = 1000;

/// How a [`Client`] talks to registries.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Registries (`host:port`) spoken to over plain HTTP besides those on
    /// loopback, which always are.
    pub insecure: Vec<String>,
    /// The connect timeout of each request.
    pub connect_timeout: Duration,
    /// The read timeout of each request.
    pub read_timeout: Duration,
    /// HTTP basic credentials (user, password) for every registry.
    pub credentials: Option<(String, String)>,
    /// The largest component pulled, in bytes.
    pub max_component_bytes: u64,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            insecure: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(60),
            credentials: None,
            max_component_bytes: 256 << 20,
        }
    }
}

/// A codec artifact pulled and checked.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// The reference as given, with the manifest's digest.
    pub reference: OciReference,
    /// `sha256:…` of the manifest.
    pub manifest_digest: String,
    /// The component's bytes (their digest checked against the manifest).
    pub component: Vec<u8>,
    /// The trajhost annotations, if the publisher wrote them.
    pub annotations: Option<CodecAnnotations>,
    /// Who signed it.
    pub verification: Verification,
}

/// A tag's manifest, read without its blobs.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    /// `oci://…:TAG`.
    pub reference: String,
    /// The tag.
    pub tag: String,
    /// `sha256:…` of the manifest.
    pub manifest_digest: String,
    /// The trajhost annotations, if any.
    pub annotations: Option<CodecAnnotations>,
    /// `None` when the manifest is a wasm component artifact; else why not.
    pub not_a_component: Option<String>,
}

/// A codec pushed.
#[derive(Debug, Clone, Serialize)]
pub struct Pushed {
    /// `oci://…:TAG`.
    pub reference: String,
    /// `oci://…@sha256:…`.
    pub pinned: String,
    /// `sha256:…` of the manifest.
    pub manifest_digest: String,
    /// The component's `sha256:…`.
    pub component_digest: String,
}

/// A signature attached.
#[derive(Debug, Clone, Serialize)]
pub struct Signed {
    /// The signed manifest's digest.
    pub manifest_digest: String,
    /// The signer's key id.
    pub key_id: String,
    /// Where the signatures are: `oci://…:sha256-<hex>.sig`.
    pub signatures: String,
}

/// A registry client.
pub struct Client {
    /// One distribution client per registry, made on first use: HTTP for
    /// loopback and `insecure` registries, HTTPS for the others.
    clients: std::sync::Mutex<std::collections::HashMap<String, oci_client::Client>>,
    runtime: tokio::runtime::Runtime,
    auth: RegistryAuth,
    options: ClientOptions,
    deadline: Option<Instant>,
}

impl Client {
    /// A client. Loopback registries (and `options.insecure`) are spoken to
    /// over HTTP, the others over HTTPS with the system's roots.
    pub fn new(options: ClientOptions) -> Result<Client> {
        crate::install_crypto_provider();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| OciError::Setup(e.to_string()))?;
        let auth = match &options.credentials {
            Some((user, password)) => RegistryAuth::Basic(user.clone(), password.clone()),
            None => RegistryAuth::Anonymous,
        };
        Ok(Client { clients: Default::default(), runtime, auth, options, deadline: None })
    }

    /// The distribution client for `reference`'s registry.
    fn inner(&self, reference: &OciReference) -> Result<oci_client::Client> {
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = clients.get(&reference.registry) {
            return Ok(client.clone());
        }
        let plain = reference.is_loopback() || self.options.insecure.contains(&reference.registry);
        let config = ClientConfig {
            protocol: if plain { ClientProtocol::Http } else { ClientProtocol::Https },
            connect_timeout: Some(self.options.connect_timeout),
            read_timeout: Some(self.options.read_timeout),
            user_agent: concat!("trajhost/", env!("CARGO_PKG_VERSION")),
            platform_resolver: None,
            ..ClientConfig::default()
        };
        let client = oci_client::Client::try_from(config).map_err(|e| OciError::Setup(chain(&e)))?;
        clients.insert(reference.registry.clone(), client.clone());
        Ok(client)
    }

    /// Every later operation must finish by `deadline` (`None`: no bound
    /// but the per-request timeouts).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Runs one registry operation to its end or the deadline, mapping the
    /// distribution client's error.
    fn run<T>(
        &self,
        reference: &OciReference,
        operation: &'static str,
        future: impl Future<Output = std::result::Result<T, OciDistributionError>>,
    ) -> Result<T> {
        let registry = reference.registry.clone();
        let result = match self.deadline {
            Some(deadline) => {
                let now = Instant::now();
                let left = deadline.saturating_duration_since(now);
                match self.runtime.block_on(async { tokio::time::timeout(left, future).await }) {
                    Ok(result) => result,
                    Err(_) => {
                        return Err(OciError::TimedOut { registry, millis: left.as_millis() });
                    }
                }
            }
            None => self.runtime.block_on(future),
        };
        result.map_err(|e| map_error(e, reference, operation))
    }

    /// The raw manifest at `reference` and its digest (checked against a
    /// digest reference).
    fn manifest(&self, reference: &OciReference) -> Result<(Vec<u8>, String)> {
        let image = reference.to_client();
        let inner = self.inner(reference)?;
        let (bytes, _) = self.run(
            reference,
            "pull the manifest",
            inner.pull_manifest_raw(&image, &self.auth, &[MANIFEST_MEDIA_TYPE]),
        )?;
        let digest = crate::sha256_digest(&bytes);
        if let Some(expected) = &reference.digest
            && *expected != digest
        {
            return Err(OciError::ManifestDigestMismatch {
                reference: reference.to_string(),
                expected: expected.clone(),
                found: digest,
            });
        }
        if bytes.len() as u64 > MAX_SMALL_BLOB {
            return Err(OciError::NotAWasmArtifact {
                reference: reference.to_string(),
                reason: format!("a manifest of {} bytes", bytes.len()),
            });
        }
        Ok((bytes.to_vec(), digest))
    }

    fn parse_manifest(reference: &OciReference, bytes: &[u8]) -> Result<Manifest> {
        serde_json::from_slice(bytes).map_err(|e| OciError::NotAWasmArtifact {
            reference: reference.to_string(),
            reason: format!("its manifest is not an OCI image manifest: {e}"),
        })
    }

    /// A blob, at most `max` bytes, its digest checked.
    fn blob(&self, reference: &OciReference, digest: &str, max: u64) -> Result<Vec<u8>> {
        let image = reference.to_client();
        let inner = self.inner(reference)?;
        let mut out = Limited { bytes: Vec::new(), max };
        self.run(reference, "pull a blob", inner.pull_blob(&image, digest, &mut out))?;
        let found = crate::sha256_digest(&out.bytes);
        if found != digest {
            return Err(OciError::BlobDigestMismatch {
                reference: reference.to_string(),
                expected: digest.to_string(),
                found,
            });
        }
        Ok(out.bytes)
    }

    /// The tag's manifest: digest, annotations and whether it is a
    /// component artifact; no blob is downloaded.
    pub fn describe(&self, reference: &OciReference) -> Result<Listing> {
        let (bytes, digest) = self.manifest(reference)?;
        let manifest = Client::parse_manifest(reference, &bytes)?;
        Ok(Listing {
            reference: reference.to_string(),
            tag: reference.tag.clone().unwrap_or_default(),
            manifest_digest: digest,
            annotations: CodecAnnotations::from_map(&manifest.annotations),
            not_a_component: manifest.component_layer().err(),
        })
    }

    /// The repository's tags (at most 1000), as the registry lists them.
    pub fn tags(&self, repository: &OciReference) -> Result<Vec<String>> {
        let image = repository.with_tag("latest").to_client();
        let inner = self.inner(repository)?;
        let listed = self.run(repository, "list tags", inner.list_tags(&image, &self.auth, Some(MAX_TAGS), None));
        match listed {
            Ok(response) => Ok(response.tags),
            // A repository nothing was pushed to yet has no tags.
            Err(OciError::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// The signatures attached to the manifest `manifest_digest` of
    /// `repository`.
    pub fn signatures(&self, repository: &OciReference, manifest_digest: &str) -> Result<Vec<SignatureDocument>> {
        let reference = repository.with_tag(&signature_tag(manifest_digest));
        let bytes = match self.manifest(&reference) {
            Ok((bytes, _)) => bytes,
            Err(OciError::NotFound { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else { return Ok(Vec::new()) };
        let mut documents = Vec::new();
        for layer in manifest.layers.iter().filter(|l| l.media_type == SIGNATURE_MEDIA_TYPE).take(MAX_SIGNATURES) {
            if layer.size > MAX_SMALL_BLOB {
                continue;
            }
            let blob = self.blob(&reference, &layer.digest, MAX_SMALL_BLOB)?;
            match serde_json::from_slice::<SignatureDocument>(&blob) {
                Ok(doc) => documents.push(doc),
                Err(e) => tracing::warn!(signature = %layer.digest, "not a signature document: {e}"),
            }
        }
        Ok(documents)
    }

    /// Pulls a codec artifact: the manifest, its signatures (checked
    /// against `trust`; an unsigned or untrusted artifact is refused unless
    /// `allow_unsigned`), then the component, its digest checked. Nothing
    /// is written anywhere.
    pub fn pull(&self, reference: &OciReference, trust: &TrustStore, allow_unsigned: bool) -> Result<Pulled> {
        if reference.tag.is_none() && reference.digest.is_none() {
            return Err(OciError::InvalidReference {
                reference: reference.to_string(),
                reason: "name a tag (:TAG) or a digest (@sha256:…)".into(),
            });
        }
        let (bytes, digest) = self.manifest(reference)?;
        let manifest = Client::parse_manifest(reference, &bytes)?;
        let layer = manifest
            .component_layer()
            .map_err(|reason| OciError::NotAWasmArtifact { reference: reference.to_string(), reason })?
            .clone();
        let pinned = reference.with_digest(&digest);
        let signatures = self.signatures(&reference.repository_reference(), &digest)?;
        let verification = trust.verify(&pinned.to_string(), &digest, &signatures)?;
        tracing::debug!(reference = %pinned, verification = %verification.describe(), "pulled manifest");
        if !allow_unsigned {
            match &verification {
                Verification::Signed { .. } => {}
                Verification::Unsigned => {
                    return Err(OciError::Unsigned { reference: reference.to_string(), digest });
                }
                Verification::Untrusted { key_ids } => {
                    return Err(OciError::UntrustedSigner {
                        reference: reference.to_string(),
                        digest,
                        signers: key_ids.join(", "),
                    });
                }
            }
        }
        let max = self.options.max_component_bytes;
        if layer.size > max {
            return Err(OciError::TooLarge { reference: reference.to_string(), size: layer.size, max });
        }
        let component = self.blob(reference, &layer.digest, max)?;
        Ok(Pulled {
            reference: pinned,
            manifest_digest: digest,
            component,
            annotations: CodecAnnotations::from_map(&manifest.annotations),
            verification,
        })
    }

    /// Pushes `component` as a codec artifact in the wasm layout, tagged as
    /// `reference` says, with `annotations` on the manifest.
    pub fn push(
        &self,
        reference: &OciReference,
        component: &[u8],
        annotations: BTreeMap<String, String>,
        created: &str,
    ) -> Result<Pushed> {
        let Some(tag) = reference.tag.as_deref() else {
            return Err(OciError::InvalidReference {
                reference: reference.to_string(),
                reason: "publish to a tag (:TAG)".into(),
            });
        };
        let config = serde_json::to_vec(&WasmConfig::for_component(component, created)).expect("configs serialize");
        let manifest = Manifest::codec(&config, component, annotations);
        let bytes = manifest.to_bytes();
        self.push_blob(reference, &config)?;
        self.push_blob(reference, component)?;
        let target = reference.with_tag(tag);
        self.push_manifest(&target, &bytes)?;
        let digest = crate::sha256_digest(&bytes);
        Ok(Pushed {
            reference: target.to_string(),
            pinned: reference.repository_reference().with_digest(&digest).to_string(),
            manifest_digest: digest,
            component_digest: crate::sha256_digest(component),
        })
    }

    fn push_blob(&self, reference: &OciReference, bytes: &[u8]) -> Result<()> {
        let image = reference.repository_reference().with_tag("latest").to_client();
        let inner = self.inner(reference)?;
        let digest = crate::sha256_digest(bytes);
        let exists = self.run(reference, "check a blob", inner.blob_exists(&image, &digest))?;
        if !exists {
            self.run(reference, "push a blob", inner.push_blob(&image, bytes.to_vec(), &digest))?;
        }
        Ok(())
    }

    fn push_manifest(&self, reference: &OciReference, bytes: &[u8]) -> Result<()> {
        let image = reference.to_client();
        let inner = self.inner(reference)?;
        self.run(
            reference,
            "push the manifest",
            inner.push_manifest_raw(&image, bytes.to_vec(), HeaderValue::from_static(MANIFEST_MEDIA_TYPE)),
        )?;
        Ok(())
    }

    /// Signs the manifest `reference` names with `key` and attaches the
    /// signature (kept beside the others already there, one per key).
    pub fn sign(&self, reference: &OciReference, key: &SecretKey) -> Result<Signed> {
        let (bytes, digest) = self.manifest(reference)?;
        let repository = reference.repository_reference();
        let document = SignatureDocument::sign(key, &digest);
        let mut documents: Vec<SignatureDocument> = self
            .signatures(&repository, &digest)?
            .into_iter()
            .filter(|d| d.public_key != document.public_key)
            .collect();
        documents.push(document);
        let mut layers = Vec::new();
        for doc in &documents {
            let blob = serde_json::to_vec(doc).expect("signatures serialize");
            self.push_blob(&repository, &blob)?;
            layers.push(Descriptor::of(SIGNATURE_MEDIA_TYPE, &blob));
        }
        self.push_blob(&repository, EMPTY_CONFIG)?;
        let manifest = Manifest {
            schema_version: 2,
            media_type: Some(MANIFEST_MEDIA_TYPE.into()),
            artifact_type: Some(SIGNATURE_MEDIA_TYPE.into()),
            config: Descriptor::of(EMPTY_CONFIG_MEDIA_TYPE, EMPTY_CONFIG),
            layers,
            subject: Some(Descriptor::of(MANIFEST_MEDIA_TYPE, &bytes)),
            annotations: BTreeMap::new(),
        };
        let tag = signature_tag(&digest);
        self.push_manifest(&repository.with_tag(&tag), &manifest.to_bytes())?;
        Ok(Signed {
            manifest_digest: digest,
            key_id: key.public().id(),
            signatures: repository.with_tag(&tag).to_string(),
        })
    }
}

/// The tag a manifest's signatures live under: `sha256-<hex>.sig`.
pub fn signature_tag(manifest_digest: &str) -> String {
    format!("{}.sig", manifest_digest.replace(':', "-"))
}

/// A buffer that refuses to grow past `max` bytes.
struct Limited {
    bytes: Vec<u8>,
    max: u64,
}

impl tokio::io::AsyncWrite for Limited {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        if (self.bytes.len() + buf.len()) as u64 > self.max {
            return Poll::Ready(Err(std::io::Error::other(format!("more than {} bytes", self.max))));
        }
        self.bytes.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// An error with its causes, `a: b: c`.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

fn map_error(error: OciDistributionError, reference: &OciReference, operation: &'static str) -> OciError {
    let not_found = || OciError::NotFound { reference: reference.to_string() };
    match error {
        OciDistributionError::RequestError(e) if e.is_connect() || e.is_timeout() => {
            OciError::Unreachable { registry: reference.registry.clone(), message: chain(&e) }
        }
        OciDistributionError::ImageManifestNotFoundError(_) => not_found(),
        OciDistributionError::RegistryError { envelope, .. }
            if envelope.errors.iter().any(|e| {
                matches!(
                    e.code,
                    OciErrorCode::ManifestUnknown
                        | OciErrorCode::NameUnknown
                        | OciErrorCode::NotFound
                        | OciErrorCode::BlobUnknown
                )
            }) =>
        {
            not_found()
        }
        OciDistributionError::ServerError { code: 404, .. } => not_found(),
        OciDistributionError::DigestError(oci_client::errors::DigestError::VerificationError { expected, actual }) => {
            OciError::BlobDigestMismatch { reference: reference.to_string(), expected, found: actual }
        }
        other => OciError::Registry { reference: reference.to_string(), operation, message: chain(&other) },
    }
}
