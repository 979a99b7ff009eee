//! The client against a real registry (tests/services/oci-registry starts
//! one and sets TRAJHOST_TEST_OCI_REGISTRY=127.0.0.1:PORT). Without it
//! each test prints SKIP and the reason, and checks nothing.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use trajhost_oci::keys::SecretKey;
use trajhost_oci::trust::{TrustStore, Verification};
use trajhost_oci::{Client, ClientOptions, OciError, OciReference};

fn registry(test: &str) -> Option<String> {
    match std::env::var("TRAJHOST_TEST_OCI_REGISTRY") {
        Ok(r) if !r.is_empty() => Some(r),
        _ => {
            println!("SKIP {test} because TRAJHOST_TEST_OCI_REGISTRY is not set (run tests/services/oci-registry)");
            None
        }
    }
}

fn client() -> Client {
    Client::new(ClientOptions::default()).unwrap()
}

/// Bytes that stand for a component (the client does not validate them).
fn component(seed: &str) -> Vec<u8> {
    let mut bytes = b"\0asm\x0d\0\x01\0".to_vec();
    bytes.extend_from_slice(seed.as_bytes());
    bytes
}

fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{name}-{}-{nanos}", std::process::id())
}

#[test]
fn push_sign_pull_by_tag_and_digest() {
    let Some(registry) = registry("push_sign_pull_by_tag_and_digest") else { return };
    let data = tempfile::tempdir().unwrap();
    let client = client();
    let reference = OciReference::parse(&format!("oci://{registry}/crate-tests/{}:1.0.0", unique("a"))).unwrap();
    let bytes = component("a");
    let mut annotations = BTreeMap::new();
    annotations.insert("trajhost.codec.harness".to_string(), "toy".to_string());
    let pushed = client.push(&reference, &bytes, annotations, "2026-01-01T00:00:00Z").unwrap();
    assert_eq!(pushed.reference, reference.to_string());
    assert_eq!(client.tags(&reference.repository_reference()).unwrap(), vec!["1.0.0".to_string()]);

    let mut trust = TrustStore::load(data.path()).unwrap();
    // Unsigned: refused, unless allowed.
    assert!(matches!(client.pull(&reference, &trust, false), Err(OciError::Unsigned { .. })));
    let pulled = client.pull(&reference, &trust, true).unwrap();
    assert_eq!(pulled.component, bytes);
    assert_eq!(pulled.verification, Verification::Unsigned);

    // Signed by a key not trusted yet, then trusted.
    let key = SecretKey::generate().unwrap();
    let signed = client.sign(&reference, &key).unwrap();
    assert_eq!(signed.manifest_digest, pushed.manifest_digest);
    assert!(matches!(client.pull(&reference, &trust, false), Err(OciError::UntrustedSigner { .. })));
    trust.add("acme", &key.public(), "now").unwrap();
    let pulled = client.pull(&reference, &trust, false).unwrap();
    assert_eq!(pulled.verification, Verification::Signed { publisher: "acme".into(), key_id: key.public().id() });

    // By digest.
    let pinned = OciReference::parse(&pushed.pinned).unwrap();
    assert_eq!(client.pull(&pinned, &trust, false).unwrap().component, bytes);
    // A second signer keeps the first signature.
    client.sign(&reference, &SecretKey::generate().unwrap()).unwrap();
    assert_eq!(client.signatures(&reference.repository_reference(), &pushed.manifest_digest).unwrap().len(), 2);
    assert!(client.pull(&reference, &trust, false).is_ok());

    let listing = client.describe(&reference).unwrap();
    assert_eq!(listing.manifest_digest, pushed.manifest_digest);
    assert!(listing.not_a_component.is_none());
}

#[test]
fn missing_things_and_a_registry_that_is_down() {
    let Some(registry) = registry("missing_things_and_a_registry_that_is_down") else { return };
    let data = tempfile::tempdir().unwrap();
    let trust = TrustStore::load(data.path()).unwrap();
    let client = client();
    let missing = OciReference::parse(&format!("oci://{registry}/crate-tests/{}:9.9.9", unique("none"))).unwrap();
    assert!(matches!(client.pull(&missing, &trust, true), Err(OciError::NotFound { .. })));
    assert_eq!(client.tags(&missing.repository_reference()).unwrap(), Vec::<String>::new());

    // Nothing listens on this port.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let down = OciReference::parse(&format!("oci://127.0.0.1:{port}/x:1")).unwrap();
    let error = client.pull(&down, &trust, true).unwrap_err();
    assert!(error.is_unreachable(), "{error}");
    assert!(error.to_string().contains(&format!("127.0.0.1:{port}")), "{error}");

    // A deadline bounds everything.
    let mut bounded = self::client();
    bounded.set_deadline(Some(Instant::now()));
    std::thread::sleep(Duration::from_millis(5));
    assert!(matches!(bounded.tags(&missing), Err(OciError::TimedOut { .. })));
}
