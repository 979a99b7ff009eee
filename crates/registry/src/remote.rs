//! Codecs from OCI registries (the `trajhost-oci` crate does the protocol):
//! install by reference into the local [`Registry`], publish a component
//! with its info as annotations, find newer codecs for `plugin update`, and
//! the hint that names a registry's codec for a native version no installed
//! codec covers.
//!
//! Which registries: `[plugins]` in `DATA_DIR/config.toml` (none built in):
//!
//! ```toml
//! [plugins]
//! # Repository prefixes: the codecs of harness H are at PREFIX/H, tagged
//! # with their codec version (`oci://ghcr.io/acme/trajhost/codex:0.3.0`).
//! registries = ["oci://ghcr.io/acme/trajhost"]
//! # Registries spoken to over plain HTTP (loopback ones always are).
//! insecure = ["registry.lan:5000"]
//! # How long `read`, `sessions`, `prepare` and `continue` wait for a
//! # registry before giving up on the hint (default 2000).
//! hint_timeout_ms = 2000
//! ```
//!
//! Credentials, when a registry needs them: `$TRAJHOST_OCI_USERNAME` and
//! `$TRAJHOST_OCI_PASSWORD` (HTTP basic, or the registry's token exchange).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use trajhost_oci::annotations::CodecAnnotations;
use trajhost_oci::keys::SecretKey;
use trajhost_oci::trust::{TrustStore, Verification};
use trajhost_oci::{Client, ClientOptions, OciError, OciReference};

use super::{CodecRecord, CodecSource, Installed, Origin, Registry};
use crate::catalog::{Catalog, parse_native_version};
use trajhost_runtime::Runtime;
use trajhost_runtime::error::{HostError, Result};

/// The default bound on a hint's registry lookups.
pub const DEFAULT_HINT_TIMEOUT: Duration = Duration::from_millis(2000);
/// Tags looked at per repository (the highest versions first).
const MAX_TAGS_DESCRIBED: usize = 32;

/// `[plugins]` in `DATA_DIR/config.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginsConfig {
    /// Repository prefixes, `oci://REGISTRY/NAMESPACE`.
    #[serde(default)]
    pub registries: Vec<String>,
    /// `host:port` of registries spoken to over plain HTTP.
    #[serde(default)]
    pub insecure: Vec<String>,
    /// The hint's time budget, in milliseconds.
    #[serde(default)]
    pub hint_timeout_ms: Option<u64>,
}

/// `[plugins]` of `DATA_DIR/config.toml` alone. The file's other sections
/// belong to the archive, which reads (and checks) the whole file itself.
fn plugins_section(data_dir: &Path) -> Result<PluginsConfig> {
    #[derive(Deserialize)]
    struct Section {
        #[serde(default)]
        plugins: PluginsConfig,
    }
    let path = data_dir.join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(PluginsConfig::default()),
        Err(e) => return Err(HostError::io(&path, e)),
    };
    let section: Section = toml::from_str(&text).map_err(|e| HostError::io(&path, e.message()))?;
    Ok(section.plugins)
}

/// A data directory's view of registries: its config and trusted publishers.
pub struct Remote {
    data_dir: PathBuf,
    config: PluginsConfig,
    max_component_bytes: u64,
}

/// `plugin install oci://…` done.
#[derive(Debug)]
pub struct RemoteInstall {
    pub installed: Installed,
    /// `oci://…@sha256:…`.
    pub pinned: String,
    pub verification: Verification,
}

/// `plugin publish` done.
#[derive(Debug, Serialize)]
pub struct Published {
    pub codec: String,
    pub pushed: trajhost_oci::Pushed,
    pub signed: Option<trajhost_oci::Signed>,
    pub annotations: CodecAnnotations,
}

/// A codec a registry has that this data directory does not.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub harness: String,
    pub codec_version: String,
    /// `oci://…:TAG`.
    pub reference: String,
    pub annotations: CodecAnnotations,
    /// Native versions of sessions on this machine it reads.
    pub covers_here: Vec<String>,
}

/// What `plugin update` found.
#[derive(Debug, Default, Serialize)]
pub struct UpdatePlan {
    /// Newer than every codec of their harness here, highest first.
    pub candidates: Vec<Candidate>,
    /// Repositories looked at.
    pub repositories: Vec<String>,
    /// Repositories that could not be read, and why.
    pub errors: Vec<(String, String)>,
}

/// What a command met that no installed codec handles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Want {
    pub harness: String,
    pub version: String,
    pub need: Need,
}

/// Reading a session, or writing for a target version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// No installed codec reads this native version.
    Read,
    /// `prepare` wrote for this version: `covered` when the writer's range
    /// holds it (then only a codec verified for it is worth naming).
    Write { covered: bool },
}

/// A registry codec that would handle a [`Want`].
#[derive(Debug, Clone, Serialize)]
pub struct Hint {
    pub harness: String,
    pub native_version: String,
    /// `oci://…:TAG`.
    pub reference: String,
    /// `harness@codec-version`.
    pub codec: String,
    /// Why it fits: `reads >=2.0.0, <3.0.0`, `verified as target`, …
    pub because: String,
    /// The command that installs it.
    pub command: String,
}

impl Remote {
    /// The registries and limits of `data_dir` (its config file's
    /// `[plugins]`; none configured is fine).
    pub fn load(data_dir: &Path, max_component_bytes: u64) -> Result<Remote> {
        let config = plugins_section(data_dir)?;
        Ok(Remote { data_dir: data_dir.to_path_buf(), config, max_component_bytes })
    }

    /// The configured repository prefixes, parsed.
    pub fn registries(&self) -> Result<Vec<OciReference>> {
        self.config.registries.iter().map(|r| Ok(OciReference::parse(r)?.repository_reference())).collect()
    }

    /// Whether any registry is configured.
    pub fn configured(&self) -> bool {
        !self.config.registries.is_empty()
    }

    pub fn trust(&self) -> Result<TrustStore> {
        Ok(TrustStore::load(&self.data_dir)?)
    }

    /// A client with the config's insecure registries and the environment's
    /// credentials.
    pub fn client(&self) -> Result<Client> {
        let credentials = match (std::env::var("TRAJHOST_OCI_USERNAME"), std::env::var("TRAJHOST_OCI_PASSWORD")) {
            (Ok(user), Ok(password)) if !user.is_empty() => Some((user, password)),
            _ => None,
        };
        Ok(Client::new(ClientOptions {
            insecure: self.config.insecure.clone(),
            credentials,
            max_component_bytes: self.max_component_bytes,
            ..ClientOptions::default()
        })?)
    }

    /// Pulls `reference`, checks its signature against the trust store
    /// (unsigned or untrusted: refused unless `allow_unsigned`) and its
    /// digests, then installs it through the same validation as a file. A
    /// failure anywhere installs nothing.
    pub fn install(
        &self,
        registry: &Registry,
        runtime: &Runtime,
        reference: &str,
        allow_unsigned: bool,
        force: bool,
    ) -> Result<RemoteInstall> {
        let parsed = OciReference::parse(reference)?;
        let trust = self.trust()?;
        let pulled = self.client()?.pull(&parsed, &trust, allow_unsigned)?;
        let signature = match &pulled.verification {
            Verification::Signed { .. } => pulled.verification.describe(),
            other => format!("{} (--allow-unsigned)", other.describe()),
        };
        let origin = Origin { reference: parsed.to_string(), digest: pulled.manifest_digest.clone(), signature };
        let installed = registry.install_pulled(runtime, pulled.component, origin, force)?;
        Ok(RemoteInstall { installed, pinned: pulled.reference.to_string(), verification: pulled.verification })
    }

    /// Validates `file` as an install would, then pushes it to `reference`
    /// (tag default: its codec version) with its info as annotations, and
    /// signs it with `key` if given. `builtin` says the file is this
    /// build's built-in codec (its bytes), whose ledger entries then count.
    pub fn publish(
        &self,
        runtime: &Runtime,
        file: &Path,
        reference: &str,
        key: Option<&Path>,
        builtin_ids: &dyn Fn(&CodecRecord) -> bool,
    ) -> Result<Published> {
        let mut parsed = OciReference::parse(reference)?;
        if parsed.digest.is_some() {
            return Err(OciError::InvalidReference {
                reference: reference.into(),
                reason: "publish to a tag, not a digest".into(),
            }
            .into());
        }
        // Read the key first: a bad key fails before anything is pushed.
        let key = key.map(SecretKey::read).transpose()?;
        let bytes = std::fs::read(file).map_err(|e| HostError::io(file, e))?;
        let from = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let record = Registry::describe(runtime, &bytes, &file.display().to_string(), from)?;
        if parsed.tag.is_none() {
            parsed = parsed.with_tag(&trajhost_oci::reference::tag_for_version(&record.codec_version));
        }
        let annotations = annotations_of(&record, builtin_ids(&record));
        let client = self.client()?;
        let pushed = client.push(&parsed, &bytes, annotations.to_map(), &trajhost_canonical::time::now_rfc3339())?;
        let signed = key.map(|key| client.sign(&parsed, &key)).transpose()?;
        Ok(Published { codec: record.id(), pushed, signed, annotations })
    }

    /// Signs what `reference` names (pushed by `publish`, `wkg` or `oras`).
    pub fn sign(&self, reference: &str, key: &Path) -> Result<trajhost_oci::Signed> {
        let parsed = OciReference::parse(reference)?;
        let key = SecretKey::read(key)?;
        Ok(self.client()?.sign(&parsed, &key)?)
    }

    /// The repositories codecs of `harness` may be in: each configured
    /// prefix joined with the harness, and the repositories installed
    /// codecs of it came from.
    fn repositories_for(&self, harness: &str, installed: &[CodecRecord]) -> Result<Vec<OciReference>> {
        let mut repos = Vec::new();
        for prefix in self.registries()? {
            repos.push(prefix.join(harness)?);
        }
        for record in installed.iter().filter(|r| r.harness == harness) {
            if let Some(origin) = &record.origin
                && let Ok(reference) = OciReference::parse(&origin.reference)
            {
                repos.push(reference.repository_reference());
            }
        }
        let mut seen = BTreeSet::new();
        repos.retain(|r| seen.insert(r.to_string()));
        Ok(repos)
    }

    /// The codecs the registries have, per tag, highest version first
    /// (manifests only: no component is downloaded).
    fn listings(
        client: &Client,
        repository: &OciReference,
        harness: &str,
    ) -> std::result::Result<Vec<(String, CodecAnnotations)>, OciError> {
        let mut tags = client.tags(repository)?;
        // Versions first, highest first; other tags after, by name.
        tags.retain(|t| !t.ends_with(".sig"));
        tags.sort_by(|a, b| match (parse_native_version(a), parse_native_version(b)) {
            (Some(x), Some(y)) => y.cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.cmp(b),
        });
        let mut out = Vec::new();
        for tag in tags.into_iter().take(MAX_TAGS_DESCRIBED) {
            let reference = repository.with_tag(&tag);
            let listing = client.describe(&reference)?;
            match listing.annotations {
                Some(a) if listing.not_a_component.is_none() && a.harness == harness => {
                    out.push((reference.to_string(), a));
                }
                _ => tracing::debug!(%reference, "no trajhost codec annotations for {harness}; skipped"),
            }
        }
        Ok(out)
    }

    /// Codecs of `harnesses` the registries have that are newer than every
    /// codec of their harness in `catalog`; `here` is the native versions
    /// of sessions on this machine, per harness.
    pub fn update_plan(
        &self,
        catalog: &Catalog<'_>,
        installed: &[CodecRecord],
        harnesses: &[String],
        here: &BTreeMap<String, BTreeSet<String>>,
    ) -> Result<UpdatePlan> {
        let client = self.client()?;
        let mut plan = UpdatePlan::default();
        let mut seen = BTreeSet::new();
        for harness in harnesses {
            let known: Vec<&CodecRecord> =
                catalog.entries().iter().map(|e| &e.record).filter(|r| &r.harness == harness).collect();
            let newest = known.iter().map(|r| r.version()).max();
            for repository in self.repositories_for(harness, installed)? {
                plan.repositories.push(repository.to_string());
                let listings = match Remote::listings(&client, &repository, harness) {
                    Ok(listings) => listings,
                    Err(error) => {
                        plan.errors.push((repository.to_string(), error.to_string()));
                        continue;
                    }
                };
                for (reference, annotations) in listings {
                    let Ok(version) = semver::Version::parse(&annotations.codec_version) else { continue };
                    if known.iter().any(|r| r.codec_version == annotations.codec_version)
                        || newest.as_ref().is_some_and(|n| version <= *n)
                        || !seen.insert(annotations.id())
                    {
                        continue;
                    }
                    let covers_here =
                        here.get(harness).into_iter().flatten().filter(|v| reads(&annotations, v)).cloned().collect();
                    plan.candidates.push(Candidate {
                        harness: harness.clone(),
                        codec_version: annotations.codec_version.clone(),
                        reference,
                        annotations,
                        covers_here,
                    });
                }
            }
        }
        plan.candidates.sort_by(|a, b| {
            a.harness.cmp(&b.harness).then_with(|| {
                semver::Version::parse(&b.codec_version).ok().cmp(&semver::Version::parse(&a.codec_version).ok())
            })
        });
        Ok(plan)
    }

    /// For each of `wants`, a configured registry's codec that handles it,
    /// if one answers within the hint budget. Silent (empty) when no
    /// registry is configured; a registry that fails or is slow is logged
    /// and passed over.
    pub fn hints(&self, catalog: &Catalog<'_>, wants: &[Want]) -> Vec<Hint> {
        if !self.configured() || wants.is_empty() {
            return Vec::new();
        }
        let budget = self.config.hint_timeout_ms.map(Duration::from_millis).unwrap_or(DEFAULT_HINT_TIMEOUT);
        let deadline = Instant::now() + budget;
        let Ok(prefixes) = self.registries() else {
            tracing::debug!("[plugins] registries in config.toml has a bad reference: no hint");
            return Vec::new();
        };
        let mut client = match Client::new(ClientOptions {
            insecure: self.config.insecure.clone(),
            connect_timeout: budget,
            read_timeout: budget,
            ..ClientOptions::default()
        }) {
            Ok(client) => client,
            Err(error) => {
                tracing::debug!("no hint: {error}");
                return Vec::new();
            }
        };
        client.set_deadline(Some(deadline));
        let mut listings: BTreeMap<String, Vec<(String, CodecAnnotations)>> = BTreeMap::new();
        let mut hints = Vec::new();
        for want in wants {
            if hints.iter().any(|h: &Hint| h.harness == want.harness && h.native_version == want.version) {
                continue;
            }
            let list = listings.entry(want.harness.clone()).or_insert_with(|| {
                let mut all = Vec::new();
                for prefix in &prefixes {
                    let Ok(repository) = prefix.join(&want.harness) else { continue };
                    match Remote::listings(&client, &repository, &want.harness) {
                        Ok(found) => all.extend(found),
                        Err(error) => tracing::debug!(%repository, "no hint from this registry: {error}"),
                    }
                }
                all
            });
            let installed = |a: &CodecAnnotations| catalog.entries().iter().any(|e| e.record.id() == a.id());
            let fit = list.iter().filter(|(_, a)| !installed(a)).find_map(|(reference, a)| {
                fits(a, &want.version, want.need).map(|because| (reference.clone(), a.id(), because))
            });
            if let Some((reference, codec, because)) = fit {
                hints.push(Hint {
                    harness: want.harness.clone(),
                    native_version: want.version.clone(),
                    command: format!("trajhost plugin install {reference}"),
                    reference,
                    codec,
                    because,
                });
            }
        }
        hints
    }
}

/// Whether `annotations`' read range holds `version`.
fn reads(annotations: &CodecAnnotations, version: &str) -> bool {
    in_range(&annotations.native_versions, version)
}

fn in_range(range: &str, version: &str) -> bool {
    match (semver::VersionReq::parse(range), parse_native_version(version)) {
        (Ok(req), Some(v)) => crate::conformance::version_in_range(&req, &v),
        _ => false,
    }
}

/// Why `annotations` handle `version` for `need`, if they do.
fn fits(annotations: &CodecAnnotations, version: &str, need: Need) -> Option<String> {
    let same = |v: &String| parse_native_version(v).is_some_and(|a| Some(a) == parse_native_version(version));
    match need {
        Need::Read => reads(annotations, version).then(|| format!("reads {}", annotations.native_versions)),
        Need::Write { covered } => {
            if annotations.verified_target.iter().any(same) {
                return Some(format!("the lab verified it as target for {version}"));
            }
            let range = annotations.writes_for.as_deref()?;
            (!covered && in_range(range, version)).then(|| format!("writes for {range}"))
        }
    }
}

/// The annotations `publish` writes for `record`; ledger entries only for
/// this build's own built-in bytes (`builtin`).
pub fn annotations_of(record: &CodecRecord, builtin: bool) -> CodecAnnotations {
    use crate::ledger::{Role, verified_versions};
    let verified = |role| {
        if builtin {
            verified_versions(&record.id(), role).into_iter().map(str::to_string).collect()
        } else {
            Vec::new()
        }
    };
    CodecAnnotations {
        harness: record.harness.clone(),
        codec_version: record.codec_version.clone(),
        native_versions: record.native_versions.clone(),
        writes_for: (!record.writes.is_empty()).then(|| record.writer_range().to_string()),
        reads: record.reads.clone(),
        writes: record.writes.clone(),
        api: record.api.clone(),
        sdk: record.sdk.clone(),
        verified_source: verified(Role::Source),
        verified_target: verified(Role::Target),
        sha256: record.sha256.clone(),
        created: Some(trajhost_canonical::time::now_rfc3339()),
    }
}

/// Whether `record` is one of `catalog`'s built-in codecs, byte for byte.
pub fn is_builtin_bytes(catalog: &Catalog<'_>, record: &CodecRecord) -> bool {
    catalog.entries().iter().any(|e| {
        matches!(e.record.source, CodecSource::Builtin)
            && e.record.id() == record.id()
            && e.record.sha256 == record.sha256
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotations(native: &str, writes_for: Option<&str>, verified_target: &[&str]) -> CodecAnnotations {
        CodecAnnotations {
            harness: "toy".into(),
            codec_version: "2.0.0".into(),
            native_versions: native.into(),
            writes_for: writes_for.map(str::to_string),
            verified_target: verified_target.iter().map(|s| s.to_string()).collect(),
            ..CodecAnnotations::default()
        }
    }

    #[test]
    fn a_codec_fits_a_want_by_its_ranges_and_ledger() {
        let a = annotations(">=2.0.0, <3.0.0", Some(">=2.0.0, <2.5.0"), &["2.7.0"]);
        assert_eq!(fits(&a, "2.1.0", Need::Read).as_deref(), Some("reads >=2.0.0, <3.0.0"));
        assert_eq!(fits(&a, "3.0.0", Need::Read), None);
        assert_eq!(fits(&a, "2.1.0", Need::Write { covered: false }).as_deref(), Some("writes for >=2.0.0, <2.5.0"));
        // Covered locally: only a verified version is worth a hint.
        assert_eq!(fits(&a, "2.1.0", Need::Write { covered: true }), None);
        assert!(fits(&a, "2.7.0", Need::Write { covered: true }).unwrap().contains("verified"));
        assert_eq!(fits(&annotations(">=2.0.0", None, &[]), "2.1.0", Need::Write { covered: false }), None);
    }

    #[test]
    fn the_config_section_parses_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(dir.path().join("config.toml"), text).unwrap();
        write(
            "archive = \"a.db\"\n[plugins]\nregistries = [\"oci://127.0.0.1:5000/trajhost\"]\ninsecure = [\"r:5000\"]\nhint_timeout_ms = 500\n",
        );
        let plugins = plugins_section(dir.path()).unwrap();
        assert_eq!(plugins.registries, vec!["oci://127.0.0.1:5000/trajhost".to_string()]);
        assert_eq!(plugins.hint_timeout_ms, Some(500));
        write("[plugins]\nregistry = []\n");
        assert!(plugins_section(dir.path()).is_err());
        write("");
        assert_eq!(plugins_section(dir.path()).unwrap(), PluginsConfig::default());
    }
}
