//! The codecs this process can use: the built-ins embedded in the binary
//! plus those installed in the registry, and the rule that picks one for a
//! session.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::builtin::{BUILTIN_CODECS, BuiltinCodec, DeclaredInfo, declared_info};
use crate::{self as registry, CodecRecord, CodecSource, Registry};
use trajhost_runtime::error::{HostError, Result};
use trajhost_runtime::{CodecInstance, LoadKind, LoadedCodec, Runtime};

/// A codec known to the catalog.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    pub record: CodecRecord,
    /// Set when an installed codec of the same harness and version replaces
    /// this built-in.
    pub shadowed_by: Option<String>,
}

/// What the catalog tells its caller while it works, so a slow first run
/// can be explained (the library never prints; the CLI does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    /// These codecs have no compiled form in the cache and are about to be
    /// compiled. `first_run` is set when that is every built-in: a fresh
    /// cache directory.
    Compiling { codecs: Vec<String>, first_run: bool },
}

/// Where a catalog sends its [`Progress`].
type ProgressFn<'a> = Box<dyn Fn(&Progress) + 'a>;

/// Built-ins and installed codecs, loaded lazily and at most once.
pub struct Catalog<'a> {
    runtime: &'a Runtime,
    registry: &'a Registry,
    entries: Vec<CatalogEntry>,
    loaded: RefCell<HashMap<String, Rc<LoadedCodec>>>,
    /// How each component was obtained, for tests and `--verbose`.
    loads: RefCell<Vec<(String, LoadKind)>>,
    /// Codecs that failed to load, with why.
    unusable: Vec<(String, HostError)>,
    progress: Option<ProgressFn<'a>>,
}

impl<'a> Catalog<'a> {
    /// Reads the registry index and the built-ins' `info`.
    pub fn open(runtime: &'a Runtime, registry: &'a Registry) -> Result<Catalog<'a>> {
        Catalog::open_inner(runtime, registry, None)
    }

    /// Like [`Catalog::open`], telling `progress` before anything slow
    /// happens (compiling codecs that are not in the cache).
    pub fn open_reporting(
        runtime: &'a Runtime,
        registry: &'a Registry,
        progress: impl Fn(&Progress) + 'a,
    ) -> Result<Catalog<'a>> {
        Catalog::open_inner(runtime, registry, Some(Box::new(progress)))
    }

    fn open_inner(
        runtime: &'a Runtime,
        registry: &'a Registry,
        progress: Option<ProgressFn<'a>>,
    ) -> Result<Catalog<'a>> {
        let installed = registry.installed()?;
        let mut catalog = Catalog {
            runtime,
            registry,
            entries: Vec::new(),
            loaded: RefCell::new(HashMap::new()),
            loads: RefCell::new(Vec::new()),
            unusable: Vec::new(),
            progress,
        };
        // Built-ins with neither a declared nor a cached `info` are loaded
        // now; say so first when that means compiling them.
        let to_compile: Vec<String> = BUILTIN_CODECS
            .iter()
            .filter(|b| {
                declared_info(b.package).is_none()
                    && catalog.builtin_note(b).is_none()
                    && catalog.must_compile(b.sha256)
            })
            .map(|b| format!("built-in {}", b.package))
            .collect();
        if !to_compile.is_empty() {
            let first_run = runtime.cache().is_some() && to_compile.len() == BUILTIN_CODECS.len();
            catalog.report(&Progress::Compiling { codecs: to_compile, first_run });
        }
        for builtin in BUILTIN_CODECS {
            let record = match catalog.builtin_record(builtin) {
                Ok(record) => record,
                Err(error) => {
                    // One broken codec must not take the others down.
                    tracing::warn!("built-in {} is unusable: {error}", builtin.package);
                    catalog.unusable.push((builtin.package.to_string(), error));
                    continue;
                }
            };
            let shadowed_by = installed
                .iter()
                .find(|i| i.harness == record.harness && i.codec_version == record.codec_version)
                .map(CodecRecord::id);
            catalog.entries.push(CatalogEntry { record, shadowed_by });
        }
        catalog.entries.extend(installed.into_iter().map(|record| CatalogEntry { record, shadowed_by: None }));
        Ok(catalog)
    }

    /// A built-in's record: from the cache note when there is one (the
    /// component's own answer), else from its declared `info`
    /// ([`declared_info`]), else by loading the component and asking.
    fn builtin_record(&self, builtin: &BuiltinCodec) -> Result<CodecRecord> {
        let cache = self.runtime.cache();
        if let Some(record) = self.builtin_note(builtin) {
            return Ok(record);
        }
        let record_of = |info| {
            CodecRecord::from_info(
                info,
                trajhost_capabilities::wit::latest_version().to_string(),
                registry::sections(builtin.wasm),
                builtin.sha256.to_string(),
                builtin.wasm.len() as u64,
                CodecSource::Builtin,
            )
        };
        if let Some(declared) = declared_info(builtin.package) {
            return Ok(record_of(declared.clone().into_info()));
        }
        let name = format!("built-in {}", builtin.package);
        let info = self.load_bytes(builtin.wasm, builtin.sha256, &name, false)?.instantiate(self.runtime)?.info()?;
        let record = record_of(info);
        if let Some(cache) = cache {
            let note = serde_json::to_vec(&record).expect("records serialize");
            if let Err(error) = cache.write_note(builtin.sha256, &note) {
                tracing::warn!("cannot cache the info of {name}: {error}");
            }
        }
        Ok(record)
    }

    /// The built-in's record cached beside its compiled form, if any.
    fn builtin_note(&self, builtin: &BuiltinCodec) -> Option<CodecRecord> {
        let bytes = self.runtime.cache()?.read_note(builtin.sha256)?;
        serde_json::from_slice::<CodecRecord>(&bytes).ok()
    }

    /// Whether loading the component of `sha256` means compiling it.
    fn must_compile(&self, sha256: &str) -> bool {
        if self.loaded.borrow().contains_key(sha256) {
            return false;
        }
        self.runtime.cache().is_none_or(|cache| !cache.path_of(sha256).exists())
    }

    fn report(&self, progress: &Progress) {
        if let Some(report) = &self.progress {
            report(progress);
        }
    }

    pub fn runtime(&self) -> &'a Runtime {
        self.runtime
    }

    /// Codecs that could not be loaded, and why.
    pub fn unusable(&self) -> &[(String, HostError)] {
        &self.unusable
    }

    /// Every codec, shadowed built-ins included.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    /// Codecs in effect (not shadowed).
    pub fn effective(&self) -> impl Iterator<Item = &CodecRecord> {
        self.entries.iter().filter(|e| e.shadowed_by.is_none()).map(|e| &e.record)
    }

    /// Harness ids with at least one codec, sorted.
    pub fn harnesses(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.effective().map(|r| r.harness.clone()).collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Codecs of one harness, highest version first.
    pub fn for_harness(&self, harness: &str) -> Vec<&CodecRecord> {
        let mut codecs: Vec<&CodecRecord> = self.effective().filter(|r| r.harness == harness).collect();
        codecs.sort_by_key(|r| std::cmp::Reverse(r.version()));
        codecs
    }

    /// The codecs to ask whether a file is `harness`'s, newest first: each
    /// codec in effect, then the ones it shadows (an installed API 0.1 codec
    /// cannot sniff, but the built-in it shadows can; what the shadowed one
    /// recognizes, the one in effect with its id reads).
    pub fn sniffers(&self, harness: &str) -> Vec<&CodecRecord> {
        let mut out = Vec::new();
        for codec in self.for_harness(harness) {
            out.push(codec);
            out.extend(
                self.entries
                    .iter()
                    .filter(|e| e.shadowed_by.is_some() && e.record.harness == harness && e.record.id() == codec.id())
                    .map(|e| &e.record),
            );
        }
        out
    }

    /// The codec for a session: `--codec` if given, else the highest codec
    /// version whose native range covers the session's native version.
    pub fn select(
        &self,
        harness: &str,
        native_version: Option<&str>,
        codec_override: Option<&str>,
    ) -> Result<&CodecRecord> {
        let codecs = self.for_harness(harness);
        if let Some(wanted) = codec_override {
            let (h, v) = wanted.split_once('@').unwrap_or((wanted, ""));
            return self
                .effective()
                .find(|r| r.harness == h && (v.is_empty() || r.codec_version == v))
                .ok_or_else(|| HostError::NoCodec(format!("no codec {wanted} (available: {})", describe(&codecs))));
        }
        if codecs.is_empty() {
            return Err(HostError::NoCodec(format!(
                "no codec for harness {harness:?} (known harnesses: {})",
                self.harnesses().join(", ")
            )));
        }
        let Some(native) = native_version else {
            return Ok(codecs[0]);
        };
        let Some(version) = parse_native_version(native) else {
            tracing::warn!("{harness} native version {native:?} is not semver; using {}", codecs[0].id());
            return Ok(codecs[0]);
        };
        codecs.iter().copied().find(|r| r.covers(&version)).ok_or_else(|| {
            HostError::NoCodec(format!(
                "{harness} session has native version {native}, which no installed codec covers; installed: {}",
                describe(&codecs)
            ))
        })
    }

    /// [`Catalog::select`] for a session that `placed_by` discovered or
    /// placed: the highest of those codecs that covers its native version,
    /// since a codec for another layout of the same harness (a legacy
    /// store, a sibling product) cannot read it whatever its range says.
    /// Only when none of them covers it does any other codec's range count.
    pub fn select_placed(
        &self,
        harness: &str,
        native_version: Option<&str>,
        placed_by: &[&CodecRecord],
    ) -> Result<&CodecRecord> {
        let codecs = self.for_harness(harness);
        let placing: Vec<&CodecRecord> =
            codecs.iter().copied().filter(|c| placed_by.iter().any(|p| p.id() == c.id())).collect();
        let covering = |r: &&CodecRecord| match native_version.and_then(parse_native_version) {
            Some(version) => r.covers(&version),
            // No version recorded: the layout alone placed it.
            None => true,
        };
        if let Some(codec) = placing.iter().copied().find(covering) {
            return Ok(codec);
        }
        self.select(harness, native_version, None)
    }

    /// The codec that reads a session: [`Catalog::select`], but a native
    /// version outside every codec's range is read by the nearest of the
    /// codecs that found the session (`placed_by`; else of the harness), and
    /// the returned note says so. Writing stays strict (`prepare` verifies).
    pub fn select_for_reading(
        &self,
        harness: &str,
        native_version: Option<&str>,
        codec_override: Option<&str>,
        placed_by: &[&str],
    ) -> Result<(&CodecRecord, Option<String>)> {
        match self.select(harness, native_version, codec_override) {
            Ok(codec) => Ok((codec, None)),
            Err(HostError::NoCodec(message)) if codec_override.is_none() => {
                let version = native_version.and_then(parse_native_version).ok_or(HostError::NoCodec(message))?;
                let codecs = self.for_harness(harness);
                let placing: Vec<&CodecRecord> =
                    codecs.iter().copied().filter(|c| placed_by.contains(&c.id().as_str())).collect();
                let pool = if placing.is_empty() { codecs } else { placing };
                let codec = nearest(&pool, &version, |c| c.native_versions.as_str());
                let note = format!(
                    "{harness} native version {} is outside every codec's range; read with the nearest, {} ({})",
                    native_version.unwrap_or_default(),
                    codec.id(),
                    codec.native_versions
                );
                Ok((codec, Some(note)))
            }
            Err(error) => Err(error),
        }
    }

    /// The codec that writes `harness` sessions for a target, as reading picks
    /// a reader: `codec_override` (`--codec H@V`) if given; else, when the
    /// target's native `version` is known, the highest writing codec whose
    /// writer range holds it (none: the writer whose range lies nearest below
    /// it, or the lowest one; `prepare` then says so, and it is not verified); else the
    /// writing codec of the `layout` (a codec id) the target home already
    /// uses; else the harness's newest writing codec.
    pub fn writer_for(
        &self,
        harness: &str,
        version: Option<&str>,
        layout: Option<&str>,
        codec_override: Option<&str>,
    ) -> Result<&CodecRecord> {
        if let Some(wanted) = codec_override {
            let codec = self.select(harness, None, Some(wanted))?;
            if codec.harness != harness {
                return Err(HostError::NoCodec(format!("{wanted} is not a codec of {harness}")));
            }
            if codec.writes.is_empty() {
                return Err(HostError::NoCodec(format!("codec {} cannot write sessions", codec.id())));
            }
            return Ok(codec);
        }
        let writers: Vec<&CodecRecord> =
            self.for_harness(harness).into_iter().filter(|c| !c.writes.is_empty()).collect();
        if writers.is_empty() {
            return Err(HostError::NoCodec(if self.for_harness(harness).is_empty() {
                no_codec_message(self, harness)
            } else {
                format!("no codec of {harness} writes sessions")
            }));
        }
        if let Some(native) = version {
            let parsed = parse_native_version(native)
                .ok_or_else(|| HostError::NoCodec(format!("{harness} version {native:?} is not a version")))?;
            if let Some(codec) = writers.iter().copied().find(|c| c.writes_version(&parsed)) {
                return Ok(codec);
            }
            let nearest = nearest(&writers, &parsed, CodecRecord::writer_range);
            tracing::warn!(
                "no codec writes {harness} {native}; using the nearest, {} (writes {})",
                nearest.id(),
                nearest.writer_range()
            );
            return Ok(nearest);
        }
        if let Some(id) = layout
            && let Some(codec) = writers.iter().copied().find(|c| c.id() == id)
        {
            return Ok(codec);
        }
        Ok(writers[0])
    }

    /// A fresh instance of `record`.
    pub fn instantiate(&self, record: &CodecRecord) -> Result<CodecInstance> {
        let loaded = self.loaded.borrow().get(&record.sha256).cloned();
        let first_load = loaded.is_none();
        let loaded = match loaded {
            Some(loaded) => loaded,
            None => match &record.source {
                CodecSource::Builtin => {
                    let builtin = BUILTIN_CODECS
                        .iter()
                        .find(|b| b.sha256 == record.sha256)
                        .ok_or_else(|| HostError::NoCodec(format!("built-in {} is missing", record.id())))?;
                    self.load_bytes(builtin.wasm, builtin.sha256, &record.id(), true)?
                }
                CodecSource::Installed { .. } => {
                    let bytes = self.registry.read_blob(record)?;
                    self.load_bytes(&bytes, &record.sha256, &record.id(), true)?
                }
            },
        };
        let mut instance = loaded.instantiate(self.runtime)?;
        if first_load && record.source == CodecSource::Builtin {
            self.check_declared(record, &mut instance)?;
        }
        instance.set_name(record.id());
        Ok(instance)
    }

    /// A built-in listed from its declared `info` is asked for the real one
    /// when it is first loaded: a stale declaration is reported, and the
    /// component's answer is cached so the next process lists it right.
    fn check_declared(&self, record: &CodecRecord, instance: &mut CodecInstance) -> Result<()> {
        let info = instance.info()?;
        if DeclaredInfo::of(&info) == DeclaredInfo::of_record(record) {
            return Ok(());
        }
        tracing::warn!(
            "built-in {} returns another info than {} declares; its own is used from the next run",
            record.id(),
            crate::builtin::DECLARED_INFO_FILE
        );
        if let Some(cache) = self.runtime.cache() {
            let real = CodecRecord::from_info(
                info,
                record.api.clone(),
                registry::Sections { sdk: record.sdk.clone(), writes_for: record.writes_for.clone() },
                record.sha256.clone(),
                record.size,
                CodecSource::Builtin,
            );
            let note = serde_json::to_vec(&real).expect("records serialize");
            if let Err(error) = cache.write_note(&record.sha256, &note) {
                tracing::warn!("cannot cache the info of {}: {error}", record.id());
            }
        }
        Ok(())
    }

    /// Loads a component once per catalog; `announce` reports a compilation
    /// (built-ins loaded while opening were announced together).
    fn load_bytes(&self, bytes: &[u8], sha256: &str, name: &str, announce: bool) -> Result<Rc<LoadedCodec>> {
        if let Some(loaded) = self.loaded.borrow().get(sha256) {
            return Ok(loaded.clone());
        }
        if announce && self.must_compile(sha256) {
            self.report(&Progress::Compiling { codecs: vec![name.to_string()], first_run: false });
        }
        let (component, kind) = self.runtime.load(bytes, sha256, name)?;
        self.loads.borrow_mut().push((name.to_string(), kind));
        let loaded = Rc::new(self.runtime.prepare(&component, name)?);
        self.loaded.borrow_mut().insert(sha256.to_string(), loaded.clone());
        Ok(loaded)
    }

    /// How every component loaded so far was obtained.
    pub fn loads(&self) -> Vec<(String, LoadKind)> {
        self.loads.borrow().clone()
    }
}

fn describe(codecs: &[&CodecRecord]) -> String {
    if codecs.is_empty() {
        return "none".into();
    }
    codecs.iter().map(|r| format!("{} ({})", r.id(), r.native_versions)).collect::<Vec<_>>().join(", ")
}

/// Of `codecs` (not empty), the one whose `range` lies nearest below
/// `version` (the highest lower bound not above it), else the lowest.
fn nearest<'c>(
    codecs: &[&'c CodecRecord],
    version: &semver::Version,
    range: impl Fn(&CodecRecord) -> &str,
) -> &'c CodecRecord {
    let floor = |c: &&&'c CodecRecord| lower_bound(range(c));
    let below = codecs.iter().filter(|c| floor(c).is_some_and(|f| f <= *version)).max_by_key(floor);
    below.or_else(|| codecs.iter().min_by_key(floor)).copied().unwrap_or(codecs[0])
}

/// The lowest version a range admits (its `>=`/`>`/`=`/`^`/`~` bounds), if any.
fn lower_bound(range: &str) -> Option<semver::Version> {
    let req = semver::VersionReq::parse(range).ok()?;
    req.comparators
        .iter()
        .filter(|c| !matches!(c.op, semver::Op::Less | semver::Op::LessEq))
        .map(|c| semver::Version::new(c.major, c.minor.unwrap_or(0), c.patch.unwrap_or(0)))
        .max()
}

/// Reads a native version leniently: `v1.2`, `1.2`, `2026.9.6`, `1.2.3-beta`.
pub fn parse_native_version(text: &str) -> Option<semver::Version> {
    let text = text.trim().trim_start_matches('v');
    if let Ok(v) = semver::Version::parse(text) {
        return Some(v);
    }
    let core: String = text.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let mut parts = core.split('.').filter(|p| !p.is_empty()).map(|p| p.parse::<u64>().ok());
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some(semver::Version::new(major, minor, patch))
}

/// "no codec for harness …", naming the plugin file to install when the
/// harness has one that is not built in.
pub fn no_codec_message(catalog: &Catalog<'_>, harness: &str) -> String {
    match crate::builtin::PLUGIN_FILE_ONLY.iter().find(|(h, _)| *h == harness) {
        Some((_, file)) => format!(
            "no codec for harness {harness:?} is installed: it ships as the plugin file {file} (trajhost plugin install {file})"
        ),
        None => format!("no codec for harness {harness:?} (known: {})", catalog.harnesses().join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_native_version;

    #[test]
    fn lenient_native_versions() {
        assert_eq!(parse_native_version("2.1.197").unwrap().to_string(), "2.1.197");
        assert_eq!(parse_native_version("v1.2").unwrap().to_string(), "1.2.0");
        assert_eq!(parse_native_version("3").unwrap().to_string(), "3.0.0");
        assert_eq!(parse_native_version("2026.9.6").unwrap().to_string(), "2026.9.6");
        assert!(parse_native_version("unknown").is_none());
    }

    /// Real version strings: prereleases, build metadata, calendar versions
    /// with leading zeros, and bare format versions.
    #[test]
    fn real_version_strings_match_ranges() {
        let covers = |range: &str, native: &str| {
            let req = semver::VersionReq::parse(range).unwrap();
            crate::conformance::version_in_range(&req, &parse_native_version(native).unwrap())
        };
        assert!(covers(">=0.1.0, <1.0.0", "0.99.0-alpha.24"));
        assert!(!covers(">=0.1.0, <0.99.0", "0.99.0-alpha.24"));
        assert!(covers(">=2026.10.0, <2026.11.0", "2026.10.01-e373342"));
        assert_eq!(parse_native_version("2026.10.01-e373342").unwrap().to_string(), "2026.10.1");
        assert!(covers(">=2026.8.0, <2027.0.0", "2026.9.6+build.7"));
        assert!(covers(">=1.0.0, <4.0.0", "v3"));
        assert!(covers(">=1.0.0, <2.0.0", "1"));
        assert!(!covers(">=2.0.0, <3.0.0", "1"));
        assert!(covers(">=0.0.330, <2.0.0", "1.0.102"));
    }
}
