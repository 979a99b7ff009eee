//! Codecs from an OCI registry, against a real one: tests/services/oci-registry
//! starts Debian's docker-registry (the CNCF distribution server) on loopback
//! and sets TRAJHOST_TEST_OCI_REGISTRY=127.0.0.1:PORT and
//! TRAJHOST_TEST_OCI_STORAGE (its storage root). Without them each test that
//! needs the server prints `SKIP … because …` and checks nothing; the tests
//! of a registry that is down need no server and always run.
//!
//! Covered: publish, install by tag and by digest; an unsigned artifact
//! refused (accepted with --allow-unsigned); a signed one from an untrusted
//! key refused; a tampered blob refused; `update` finding a newer version;
//! the hint for a session of a version only the registry covers; a registry
//! that is down (a clear error, nothing installed); an artifact pushed with
//! plain oci-client calls in the wasm layout (as wkg and oras do) installs.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Instant;

use serde_json::Value;

use crate::common::*;

/// The registry's `host:port`, or `None` after a SKIP line.
fn registry(test: &str) -> Option<String> {
    match std::env::var("TRAJHOST_TEST_OCI_REGISTRY") {
        Ok(r) if !r.is_empty() => Some(r),
        _ => {
            println!(
                "SKIP oci::{test} because TRAJHOST_TEST_OCI_REGISTRY is not set (run tests/services/oci-registry)"
            );
            None
        }
    }
}

/// A repository namespace no other test (or run) uses.
fn namespace(name: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{}-{}", std::process::id(), nanos % 1_000_000_000)
}

fn ok(output: &Output) -> String {
    assert!(output.status.success(), "stdout:\n{}\nstderr:\n{}", stdout(output), stderr(output));
    stdout(output)
}

fn failed(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(1), "stdout:\n{}\nstderr:\n{}", stdout(output), stderr(output));
    stderr(output)
}

/// `plugin keygen` into `dir/name`; the secret key's path.
fn keygen(data: &Path, dir: &Path, name: &str) -> PathBuf {
    let key = dir.join(name);
    ok(&trajhost(data, &["plugin", "keygen", key.to_str().unwrap(), "--comment", name]));
    key
}

/// `plugin publish FILE REF [--key KEY] --json`.
fn publish(data: &Path, file: &Path, reference: &str, key: Option<&Path>) -> Value {
    let mut args = vec!["plugin", "publish", file.to_str().unwrap(), reference, "--json"];
    if let Some(key) = key {
        args.extend(["--key", key.to_str().unwrap()]);
    }
    serde_json::from_str(&ok(&trajhost(data, &args))).unwrap()
}

fn trust(data: &Path, name: &str, key: &Path) {
    let public = format!("{}.pub", key.display());
    ok(&trajhost(data, &["plugin", "trust", "add", name, &public]));
}

/// Installed codecs by id, with their `origin`.
fn installed(data: &Path) -> Vec<Value> {
    let list: Value = serde_json::from_str(&ok(&trajhost(data, &["plugin", "list", "--json"]))).unwrap();
    list.as_array().unwrap().iter().filter(|c| c["source"]["kind"] == "installed").cloned().collect()
}

fn nothing_installed(data: &Path) {
    assert!(!data.join("plugins/index.json").exists(), "an index was written");
    let blobs = data.join("plugins/blobs/sha256");
    let count = std::fs::read_dir(&blobs).map(|d| d.count()).unwrap_or(0);
    assert_eq!(count, 0, "blobs were written under {}", blobs.display());
}

#[test]
fn publish_then_install_by_tag_and_by_digest_with_trust() {
    let Some(registry) = registry("publish_then_install_by_tag_and_by_digest_with_trust") else { return };
    let ns = namespace("trust");
    let publisher = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let acme = keygen(publisher.path(), keys.path(), "acme");
    let reference = format!("oci://{registry}/{ns}/toy:1.0.0");
    let published =
        publish(publisher.path(), &guest("trajhost-toy-v1"), &format!("oci://{registry}/{ns}/toy"), Some(&acme));
    // The tag defaults to the codec version; the annotations carry its info.
    assert_eq!(published["pushed"]["reference"], reference.as_str());
    assert_eq!(published["codec"], "toy@1.0.0");
    assert_eq!(published["annotations"]["native_versions"], ">=1.0.0, <2.0.0");
    assert!(published["signed"]["key_id"].as_str().unwrap().starts_with("ed25519:"));
    let pinned = published["pushed"]["pinned"].as_str().unwrap().to_string();

    // A signer nobody trusts: refused, nothing installed.
    let user = tempfile::tempdir().unwrap();
    let refused = failed(&trajhost(user.path(), &["plugin", "install", &reference]));
    assert!(refused.contains("none of them a trusted publisher"), "{refused}");
    assert!(refused.contains("trajhost plugin trust add"), "{refused}");
    nothing_installed(user.path());

    // Trusted: by tag.
    trust(user.path(), "acme", &acme);
    let out = ok(&trajhost(user.path(), &["plugin", "install", &reference]));
    assert!(out.contains("installed toy@1.0.0") && out.contains("signed by acme"), "{out}");
    let codecs = installed(user.path());
    assert_eq!(codecs.len(), 1);
    assert_eq!(codecs[0]["origin"]["reference"], reference.as_str());
    assert_eq!(codecs[0]["origin"]["digest"], published["pushed"]["manifest_digest"]);
    let listed = ok(&trajhost(user.path(), &["plugin", "trust", "list"]));
    assert!(listed.contains("trajhost") && listed.contains("acme"), "{listed}");

    // By digest, into another data dir.
    let other = tempfile::tempdir().unwrap();
    trust(other.path(), "acme", &acme);
    let out = ok(&trajhost(other.path(), &["plugin", "install", &pinned]));
    assert!(out.contains("installed toy@1.0.0"), "{out}");
    // A digest the registry does not have.
    let wrong = format!("oci://{registry}/{ns}/toy@sha256:{}", "0".repeat(64));
    assert!(failed(&trajhost(other.path(), &["plugin", "install", &wrong])).contains("not found"));
}

#[test]
fn unsigned_untrusted_and_tampered_artifacts_are_refused() {
    let Some(registry) = registry("unsigned_untrusted_and_tampered_artifacts_are_refused") else { return };
    let ns = namespace("refused");
    let publisher = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let acme = keygen(publisher.path(), keys.path(), "acme");
    let mallory = keygen(publisher.path(), keys.path(), "mallory");

    // Unsigned: refused, then accepted with --allow-unsigned (and said so).
    let unsigned = format!("oci://{registry}/{ns}/unsigned/toy:1.0.0");
    let published = publish(publisher.path(), &guest("trajhost-toy-v1"), &unsigned, None);
    assert!(published["signed"].is_null());
    let user = tempfile::tempdir().unwrap();
    trust(user.path(), "acme", &acme);
    let refused = failed(&trajhost(user.path(), &["plugin", "install", &unsigned]));
    assert!(refused.contains("is not signed") && refused.contains("--allow-unsigned"), "{refused}");
    nothing_installed(user.path());
    let accepted = trajhost(user.path(), &["plugin", "install", &unsigned, "--allow-unsigned"]);
    assert!(ok(&accepted).contains("installed toy@1.0.0"));
    assert!(stderr(&accepted).contains("unsigned; installed because of --allow-unsigned"), "{}", stderr(&accepted));
    assert_eq!(installed(user.path())[0]["origin"]["signature"], "unsigned (--allow-unsigned)");

    // Signed by a key the user does not trust.
    let untrusted = format!("oci://{registry}/{ns}/untrusted/toy:1.0.0");
    publish(publisher.path(), &guest("trajhost-toy-v1"), &untrusted, Some(&mallory));
    let fresh = tempfile::tempdir().unwrap();
    trust(fresh.path(), "acme", &acme);
    let refused = failed(&trajhost(fresh.path(), &["plugin", "install", &untrusted]));
    let mallory_id = published_key_id(&mallory);
    assert!(refused.contains(&mallory_id) && refused.contains("none of them a trusted publisher"), "{refused}");
    nothing_installed(fresh.path());

    // Tampered: the component's bytes changed in the registry's storage
    // (blobs are shared by all repositories: a component of its own).
    let tampered = format!("oci://{registry}/{ns}/tampered/toy:2.0.0");
    let own = unique_component(&guest("trajhost-toy-v2"), &ns, publisher.path());
    let published = publish(publisher.path(), &own, &tampered, Some(&acme));
    let digest = published["pushed"]["component_digest"].as_str().unwrap();
    match std::env::var("TRAJHOST_TEST_OCI_STORAGE") {
        Ok(storage) if !storage.is_empty() => {
            let hex = digest.strip_prefix("sha256:").unwrap();
            let blob = Path::new(&storage).join(format!("docker/registry/v2/blobs/sha256/{}/{hex}/data", &hex[..2]));
            let mut bytes = std::fs::read(&blob).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 0xff;
            std::fs::write(&blob, bytes).unwrap();
            let refused = failed(&trajhost(fresh.path(), &["plugin", "install", &tampered]));
            assert!(refused.contains("tampered") && refused.contains(digest), "{refused}");
            nothing_installed(fresh.path());
        }
        _ => println!("SKIP oci::tampered blob because TRAJHOST_TEST_OCI_STORAGE is not set"),
    }
}

/// A copy of the component at `file` with a custom section holding `tag`
/// (still a valid component; its own blob in the registry), in `dir`.
fn unique_component(file: &Path, tag: &str, dir: &Path) -> PathBuf {
    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
    let name = b"trajhost-test";
    let mut payload = Vec::new();
    leb(name.len(), &mut payload);
    payload.extend_from_slice(name);
    payload.extend_from_slice(tag.as_bytes());
    let mut bytes = std::fs::read(file).unwrap();
    bytes.push(0);
    leb(payload.len(), &mut bytes);
    bytes.extend_from_slice(&payload);
    let path = dir.join(format!("{tag}.wasm"));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The key id of the secret key at `key` (from its `.pub` via `trust list`
/// in a scratch data dir).
fn published_key_id(key: &Path) -> String {
    let scratch = tempfile::tempdir().unwrap();
    trust(scratch.path(), "k", key);
    let list: Value =
        serde_json::from_str(&ok(&trajhost(scratch.path(), &["plugin", "trust", "list", "--json"]))).unwrap();
    list.as_array().unwrap().iter().find(|p| p["name"] == "k").unwrap()["key_id"].as_str().unwrap().to_string()
}

#[test]
fn update_finds_a_newer_version_and_the_hint_names_it() {
    let Some(registry) = registry("update_finds_a_newer_version_and_the_hint_names_it") else { return };
    let ns = namespace("update");
    let publisher = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let acme = keygen(publisher.path(), keys.path(), "acme");
    let prefix = format!("oci://{registry}/{ns}");
    publish(publisher.path(), &guest("trajhost-toy-v1"), &format!("{prefix}/toy:1.0.0"), Some(&acme));
    publish(publisher.path(), &guest("trajhost-toy-v2"), &format!("{prefix}/toy:2.0.0"), Some(&acme));

    let user = tempfile::tempdir().unwrap();
    std::fs::write(user.path().join("config.toml"), format!("[plugins]\nregistries = [\"{prefix}\"]\n")).unwrap();
    trust(user.path(), "acme", &acme);
    ok(&trajhost(user.path(), &["plugin", "install", &format!("{prefix}/toy:1.0.0")]));

    // A session of toy 2.1.0, in the layout toy@1.0.0 finds: only the
    // registry's toy@2.0.0 reads that version.
    let home = toy_home(&[("s-new", "2.1.0")]);
    let home_arg = home.path().to_str().unwrap();
    let command = format!("trajhost plugin install {prefix}/toy:2.0.0");
    let sessions = trajhost(user.path(), &["sessions", "--home", home_arg]);
    assert!(ok(&sessions).contains("s-new"));
    let hint = stderr(&sessions);
    assert!(hint.contains("hint: toy 2.1.0: no installed codec reads it") && hint.contains(&command), "{hint}");
    let read = trajhost(user.path(), &["read", "s-new", "--home", home_arg]);
    ok(&read);
    assert!(stderr(&read).contains(&command), "{}", stderr(&read));
    let json = trajhost(user.path(), &["sessions", "--home", home_arg, "--json"]);
    let line = stderr(&json).lines().find(|l| l.contains("\"kind\":\"hint\"")).map(str::to_string);
    let line: Value = serde_json::from_str(&line.expect("a JSON hint line")).unwrap();
    assert_eq!(line["codec"], "toy@2.0.0");
    assert_eq!(line["command"], command.as_str());

    // No registry configured: no hint, and no time spent on one.
    let plain = tempfile::tempdir().unwrap();
    ok(&trajhost(plain.path(), &["plugin", "install", guest("trajhost-toy-v1").to_str().unwrap()]));
    let quiet = trajhost(plain.path(), &["sessions", "--home", home_arg]);
    assert!(!stderr(&quiet).contains("hint:"), "{}", stderr(&quiet));

    // update: lists it (dry run installs nothing), then installs it.
    let dry = ok(&trajhost(user.path(), &["plugin", "update", "--dry-run", "--home", home_arg]));
    assert!(dry.contains("toy@2.0.0") && dry.contains("would install") && dry.contains("2.1.0"), "{dry}");
    assert_eq!(installed(user.path()).len(), 1);
    let done = ok(&trajhost(user.path(), &["plugin", "update", "toy", "--home", home_arg]));
    assert!(done.contains("toy@2.0.0") && done.contains("installed, signed by acme"), "{done}");
    let ids: Vec<String> =
        installed(user.path()).iter().map(|c| format!("{}@{}", c["harness"], c["codec_version"])).collect();
    assert_eq!(ids, vec!["\"toy\"@\"1.0.0\"", "\"toy\"@\"2.0.0\""]);
    // Nothing newer now, and the session's version is covered: no hint.
    assert!(ok(&trajhost(user.path(), &["plugin", "update", "--home", home_arg])).contains("no newer codecs"));
    assert!(!stderr(&trajhost(user.path(), &["sessions", "--home", home_arg])).contains("hint:"));

    // A newer version that covers nothing here is listed, not installed.
    let empty_home = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("config.toml"), format!("[plugins]\nregistries = [\"{prefix}\"]\n")).unwrap();
    trust(other.path(), "acme", &acme);
    ok(&trajhost(other.path(), &["plugin", "install", &format!("{prefix}/toy:1.0.0")]));
    let listed = ok(&trajhost(other.path(), &["plugin", "update", "--home", empty_home.path().to_str().unwrap()]));
    assert!(listed.contains("toy@2.0.0") && listed.contains("available") && listed.contains(&command), "{listed}");
    assert_eq!(installed(other.path()).len(), 1);
}

#[test]
fn a_registry_that_is_down_gives_a_clear_error_and_installs_nothing() {
    // Nothing listens on this port (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let data = tempfile::tempdir().unwrap();
    let reference = format!("oci://127.0.0.1:{port}/trajhost/toy:1.0.0");
    let error = failed(&trajhost(data.path(), &["plugin", "install", &reference]));
    assert!(error.contains(&format!("cannot reach the registry 127.0.0.1:{port}")), "{error}");
    nothing_installed(data.path());

    // update says which repository it could not read.
    std::fs::write(
        data.path().join("config.toml"),
        format!("[plugins]\nregistries = [\"oci://127.0.0.1:{port}/trajhost\"]\nhint_timeout_ms = 1500\n"),
    )
    .unwrap();
    let update = trajhost(data.path(), &["plugin", "update", "toy", "--home", data.path().to_str().unwrap()]);
    let error = failed(&update);
    assert!(
        error.contains(&format!("oci://127.0.0.1:{port}/trajhost/toy")) && error.contains("cannot reach"),
        "{error}"
    );
    nothing_installed(data.path());

    // The hint gives up quietly and in bounded time: the command still works.
    ok(&trajhost(data.path(), &["plugin", "install", guest("trajhost-toy-v1").to_str().unwrap()]));
    let home = toy_home(&[("s-new", "2.1.0")]);
    let started = Instant::now();
    let sessions = trajhost(data.path(), &["sessions", "--home", home.path().to_str().unwrap()]);
    assert!(ok(&sessions).contains("s-new"));
    assert!(!stderr(&sessions).contains("hint:"), "{}", stderr(&sessions));
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());

    // A reference that is not one.
    let bad = failed(&trajhost(data.path(), &["plugin", "install", "oci://127.0.0.1/Upper:1"]));
    assert!(bad.contains("is not an OCI reference"), "{bad}");
}

#[test]
fn an_artifact_pushed_as_wkg_and_oras_do_installs() {
    let Some(registry) = registry("an_artifact_pushed_as_wkg_and_oras_do_installs") else { return };
    use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
    use oci_client::manifest::OciImageManifest;
    use oci_client::secrets::RegistryAuth;

    let ns = namespace("wkg");
    let wasm = std::fs::read(guest("trajhost-toy-v1")).unwrap();
    // The CNCF layout as oci-wasm (wkg's library) writes it: a wasm config
    // with the component's imports and exports, one application/wasm layer,
    // standard annotations only.
    let (imports, exports) = trajhost_oci::component_names(&wasm);
    let config = serde_json::json!({
        "created": "2026-01-01T00:00:00Z",
        "author": null,
        "architecture": "wasm",
        "os": "wasip2",
        "layerDigests": [trajhost_oci::sha256_digest(&wasm)],
        "component": {"exports": exports, "imports": imports, "target": null},
    });
    assert!(exports.iter().any(|e| e.starts_with("trajhost:codec/codec@")), "{exports:?}");
    let layers =
        vec![ImageLayer { data: wasm.clone().into(), media_type: "application/wasm".into(), annotations: None }];
    let config = Config {
        data: serde_json::to_vec(&config).unwrap().into(),
        media_type: "application/vnd.wasm.config.v0+json".into(),
        annotations: None,
    };
    let mut annotations = std::collections::BTreeMap::new();
    annotations.insert("org.opencontainers.image.version".to_string(), "1.0.0".to_string());
    let mut manifest = OciImageManifest::build(&layers, &config, Some(annotations));
    manifest.media_type = Some("application/vnd.oci.image.manifest.v1+json".into());
    trajhost_oci::install_crypto_provider();
    let client = oci_client::Client::new(ClientConfig { protocol: ClientProtocol::Http, ..Default::default() });
    let image: oci_client::Reference = format!("{registry}/{ns}/toy:1.0.0").parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime
        .block_on(client.push(&image, &layers, config, &RegistryAuth::Anonymous, Some(manifest)))
        .expect("pushing as wkg does");

    let reference = format!("oci://{registry}/{ns}/toy:1.0.0");
    let user = tempfile::tempdir().unwrap();
    // No signature of ours: refused, then installed with --allow-unsigned.
    assert!(failed(&trajhost(user.path(), &["plugin", "install", &reference])).contains("is not signed"));
    assert!(
        ok(&trajhost(user.path(), &["plugin", "install", &reference, "--allow-unsigned"]))
            .contains("installed toy@1.0.0")
    );

    // Signed afterwards with `plugin sign`: a data dir that trusts the key installs it.
    let keys = tempfile::tempdir().unwrap();
    let acme = keygen(user.path(), keys.path(), "acme");
    ok(&trajhost(user.path(), &["plugin", "sign", &reference, "--key", acme.to_str().unwrap()]));
    let other = tempfile::tempdir().unwrap();
    trust(other.path(), "acme", &acme);
    let out = ok(&trajhost(other.path(), &["plugin", "install", &reference]));
    assert!(out.contains("installed toy@1.0.0") && out.contains("signed by acme"), "{out}");
    let home = toy_home(&[("s-1", "1.2.0")]);
    assert!(
        ok(&trajhost(other.path(), &["read", "s-1", "--home", home.path().to_str().unwrap()]))
            .contains("hello from s-1")
    );
}

/// sdk/README.md's "Publish your codec", step by step: a codec scaffolded
/// with `plugin new` outside the repository is built, signed with a key from
/// `plugin keygen` and published; a second data dir that trusts the key
/// installs it by reference and reads the scaffold's session with it. Slow
/// (it builds the SDK for wasm32-wasip2 in the scaffolds' shared target directory).
#[test]
fn a_scaffolded_codec_is_published_signed_and_used_by_a_second_data_dir() {
    let Some(registry) = registry("a_scaffolded_codec_is_published_signed_and_used_by_a_second_data_dir") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    assert!(!work.path().starts_with(repo_root()), "the temp dir must lie outside the repository");
    let publisher = work.path().join("publisher-data");
    let crate_dir = work.path().join("acme-codec");
    ok(&trajhost(&publisher, &["plugin", "new", "acme", "--dir", crate_dir.to_str().unwrap()]));

    // 1. Build it, as the scaffold's README says.
    let target_dir = crate::common::scaffold_target_dir();
    let built =
        crate::common::scaffold_cargo(&crate_dir, &["build", "--target", "wasm32-wasip2", "--release", "--offline"]);
    assert!(built.status.success(), "the scaffold does not build:\n{}", stderr(&built));
    let wasm = target_dir.join("wasm32-wasip2/release/acme_codec.wasm");

    // 2. A key pair; 3. publish, signed.
    let key = work.path().join("keys/acme");
    let made = ok(&trajhost(&publisher, &["plugin", "keygen", key.to_str().unwrap(), "--comment", "Acme"]));
    assert!(made.contains("acme.pub"), "{made}");
    let ns = namespace("walkthrough");
    let published = ok(&trajhost(
        &publisher,
        &[
            "plugin",
            "publish",
            wasm.to_str().unwrap(),
            &format!("oci://{registry}/{ns}/acme"),
            "--key",
            key.to_str().unwrap(),
        ],
    ));
    let reference = format!("oci://{registry}/{ns}/acme:0.1.0");
    assert!(published.contains(&format!("published acme@0.1.0 to {reference}")), "{published}");
    assert!(published.contains("signed    by ed25519:"), "{published}");

    // 4. A second data dir trusts the key, installs by reference and reads.
    let user = work.path().join("user-data");
    let public = format!("{}.pub", key.display());
    ok(&trajhost(&user, &["plugin", "trust", "add", "acme", &public]));
    let installed = ok(&trajhost(&user, &["plugin", "install", &reference]));
    assert!(installed.contains("installed acme@0.1.0") && installed.contains("signed by acme"), "{installed}");
    let home = crate_dir.join("fixtures/simple");
    let home = home.to_str().unwrap();
    let sessions: Vec<Value> =
        serde_json::from_str(&ok(&trajhost(&user, &["sessions", "--home", home, "--json"]))).unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["codec"], "acme@0.1.0");
    let read = ok(&trajhost(&user, &["read", "s-0001", "--home", home, "--json", "--strict"]));
    assert!(read.contains("What files are in this project?") && read.contains("\"codec\":\"acme@0.1.0\""), "{read}");
}
