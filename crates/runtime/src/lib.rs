//! The wasm runtime: one wasmtime engine, the linker with exactly the
//! imports codecs may use, the compiled-component cache, and instances with
//! limits on every call.

mod cache;
pub mod error;
use trajhost_capabilities::messages;

pub use error::{HostError, LimitKind, Operation, Result};
pub use trajhost_capabilities::{Limits, output};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wasmtime::component::{Component, HasSelf, Linker, ResourceAny};
use wasmtime::{Config, Engine, Store, Trap};

pub use cache::{CompiledCache, LoadKind};
pub use trajhost_capabilities::{CapabilityStats, PluginState};

use trajhost_capabilities::fs::DirHandle;
pub use trajhost_capabilities::fs::Mount;
use trajhost_capabilities::target::{TargetChoice, TargetState, Untested};
use trajhost_capabilities::wit::latest::codec::{
    ArtifactChunk, ArtifactInfo, CodecInfo, Discovery, Plan, ReadOptions, ResumePoint, SessionRef, Sniffed,
    WriteOptions, Written,
};
use trajhost_capabilities::wit::{since_v0_1_0 as v0_1, since_v0_2_1 as v0_2, since_v0_3_0 as v0_3};

/// How often the epoch advances; call deadlines are multiples of it.
const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Whether instructions are counted (fuel) or only time-bounded (epochs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Epoch deadlines only: the fast mode for real work.
    Production,
    /// Fuel counting as well, for `plugin test` reports. Compiled code
    /// differs, so it has its own cache directory.
    Metered,
}

/// The engine, linker and cache shared by every codec in the process.
pub struct Runtime {
    engine: Engine,
    linker: Linker<PluginState>,
    limits: Limits,
    cache: Option<CompiledCache>,
    mode: Mode,
    mounts: std::sync::Arc<HomeMounts>,
}

/// Directories outside a home that codecs see inside it when that home is
/// granted ([`Mount`]): harness homes the environment points at.
#[derive(Debug, Clone, Default)]
pub struct HomeMounts {
    /// (canonical home, mount)
    mounts: Vec<(PathBuf, Mount)>,
}

impl HomeMounts {
    /// Shows `mount` inside `home` (canonicalized; a home that does not
    /// exist gets nothing).
    pub fn add(&mut self, home: &Path, mount: Mount) {
        if let Ok(home) = std::fs::canonicalize(home) {
            self.mounts.push((home, mount));
        }
    }

    /// The mounts shown inside `home`.
    pub fn for_home(&self, home: &Path) -> Vec<Mount> {
        // Called per grant and per listed session: no syscall when there
        // is nothing to mount.
        if self.mounts.is_empty() {
            return Vec::new();
        }
        let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        self.mounts.iter().filter(|(h, _)| *h == home).map(|(_, m)| m.clone()).collect()
    }

    /// The host path of a codec's locator under `home`, mounts resolved.
    pub fn host_path(&self, home: &Path, locator: &str) -> PathBuf {
        let (first, rest) = locator.split_once('/').unwrap_or((locator, ""));
        match self.for_home(home).into_iter().find(|m| m.name == first) {
            Some(mount) if rest.is_empty() => mount.target,
            Some(mount) => mount.target.join(rest),
            None => home.join(locator),
        }
    }
}

impl Runtime {
    /// A runtime; `cache_root` enables the on-disk compiled-component cache.
    pub fn new(limits: Limits, cache_root: Option<&Path>, mode: Mode) -> Result<Runtime> {
        let mut config = Config::new();
        config
            .wasm_component_model(true)
            .epoch_interruption(true)
            .max_wasm_stack(limits.wasm_stack_bytes)
            .parallel_compilation(true)
            .consume_fuel(mode == Mode::Metered);
        let engine = Engine::new(&config).map_err(|e| HostError::Trap {
            plugin: "-".into(),
            op: Operation::Load,
            message: format!("cannot create the wasm engine: {e}"),
        })?;
        spawn_epoch_ticker(&engine);
        let linker = build_linker(&engine).map_err(|e| HostError::Trap {
            plugin: "-".into(),
            op: Operation::Load,
            message: format!("cannot link host imports: {e}"),
        })?;
        let cache = cache_root.map(|root| CompiledCache::new(root, &engine, mode));
        Ok(Runtime { engine, linker, limits, cache, mode, mounts: Default::default() })
    }

    /// Sets the directories shown inside granted homes (before any codec
    /// is instantiated).
    pub fn set_home_mounts(&mut self, mounts: HomeMounts) {
        self.mounts = std::sync::Arc::new(mounts);
    }

    pub fn home_mounts(&self) -> &HomeMounts {
        &self.mounts
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The compiled-component cache, when enabled.
    pub fn cache(&self) -> Option<&CompiledCache> {
        self.cache.as_ref()
    }

    /// Compiles a component without the cache (validation at install).
    pub fn compile(&self, bytes: &[u8], name: &str) -> Result<Component> {
        Component::new(&self.engine, bytes)
            .map_err(|e| HostError::InvalidComponent { component: name.into(), message: format!("{e:#}") })
    }

    /// Loads a component through the cache: deserializes a previous
    /// compilation when there is one, else compiles and stores it.
    pub fn load(&self, bytes: &[u8], sha256: &str, name: &str) -> Result<(Component, LoadKind)> {
        match &self.cache {
            Some(cache) => cache.load_or_compile(&self.engine, bytes, sha256, name),
            None => Ok((self.compile(bytes, name)?, LoadKind::Compiled)),
        }
    }

    /// Writes the compiled form of a component to the cache (at install).
    pub fn precompile(&self, component: &Component, sha256: &str) -> Result<Option<PathBuf>> {
        match &self.cache {
            Some(cache) => cache.store(component, sha256).map(Some),
            None => Ok(None),
        }
    }

    /// Checks a component is a codec this host can run: it exports a
    /// supported `trajhost:codec/codec` and imports nothing outside the
    /// allow-list. Returns the API version it exports.
    pub fn check_component(&self, component: &Component, name: &str) -> Result<semver::Version> {
        let ty = component.component_type();
        let denied: Vec<String> = ty
            .imports(&self.engine)
            .map(|(import, _)| import)
            .filter(|i| !import_allowed(i))
            .map(String::from)
            .collect();
        if !denied.is_empty() {
            return Err(HostError::CapabilityDenied {
                component: name.into(),
                import: messages::denied_imports(&denied),
            });
        }
        let mut found = Vec::new();
        for (export, _) in ty.exports(&self.engine) {
            if let Some(version) = export.strip_prefix("trajhost:codec/codec@") {
                let version = semver::Version::parse(version).map_err(|e| HostError::InvalidComponent {
                    component: name.into(),
                    message: format!("export `{export}` has an invalid version: {e}"),
                })?;
                if trajhost_capabilities::wit::is_supported(&version) {
                    return Ok(version);
                }
                found.push(export.to_string());
            }
        }
        Err(HostError::ApiMismatch {
            component: name.into(),
            message: if found.is_empty() {
                "exports no trajhost:codec/codec interface".into()
            } else {
                format!("exports {}", found.join(", "))
            },
            supported: trajhost_capabilities::wit::supported_range(),
        })
    }

    /// Prepares a checked component for fast instantiation.
    pub fn prepare(&self, component: &Component, name: &str) -> Result<LoadedCodec> {
        let api = self.check_component(component, name)?;
        let invalid =
            |e: wasmtime::Error| HostError::InvalidComponent { component: name.into(), message: format!("{e:#}") };
        let instance_pre = self.linker.instantiate_pre(component).map_err(invalid)?;
        let pre = match api.minor {
            1 => Pre::V0_1(v0_1::CodecPluginPre::new(instance_pre).map_err(invalid)?),
            2 => Pre::V0_2(v0_2::CodecPluginPre::new(instance_pre).map_err(invalid)?),
            _ => Pre::V0_3(v0_3::CodecPluginPre::new(instance_pre).map_err(invalid)?),
        };
        Ok(LoadedCodec { pre, name: name.into(), api })
    }
}

/// Interfaces a codec may import: its own API, and the WASI `cli`/`io`
/// subset that Rust's std pulls in for panics and prints (given an empty
/// context).
fn import_allowed(name: &str) -> bool {
    let (package, version) = name.split_once('@').unwrap_or((name, ""));
    let track = |prefix: &str| version.starts_with(prefix);
    match package.split_once('/') {
        Some(("trajhost:codec", iface)) => {
            (matches!(iface, "types" | "fs" | "sqlite" | "log") && (track("0.1.") || track("0.2.") || track("0.3.")))
                || (iface == "target" && (track("0.2.") || track("0.3.")))
        }
        Some(("wasi:cli", iface)) => {
            matches!(
                iface,
                "environment"
                    | "exit"
                    | "stdin"
                    | "stdout"
                    | "stderr"
                    | "terminal-input"
                    | "terminal-output"
                    | "terminal-stdin"
                    | "terminal-stdout"
                    | "terminal-stderr"
            ) && track("0.2.")
        }
        Some(("wasi:io", iface)) => matches!(iface, "error" | "poll" | "streams") && track("0.2."),
        _ => false,
    }
}

fn build_linker(engine: &Engine) -> wasmtime::Result<Linker<PluginState>> {
    use wasmtime_wasi::cli::{WasiCli, WasiCliView as _};
    use wasmtime_wasi::p2::bindings::{cli, sync};

    struct HasTable;
    impl wasmtime::component::HasData for HasTable {
        type Data<'a> = &'a mut wasmtime::component::ResourceTable;
    }

    let mut linker = Linker::new(engine);
    v0_3::CodecPlugin::add_to_linker::<PluginState, HasSelf<PluginState>>(&mut linker, |s| s)?;
    v0_2::CodecPlugin::add_to_linker::<PluginState, HasSelf<PluginState>>(&mut linker, |s| s)?;
    v0_1::CodecPlugin::add_to_linker::<PluginState, HasSelf<PluginState>>(&mut linker, |s| s)?;
    let l = &mut linker;
    wasmtime_wasi_io::bindings::wasi::io::error::add_to_linker::<PluginState, HasTable>(l, |s| &mut s.table)?;
    sync::io::poll::add_to_linker::<PluginState, HasTable>(l, |s| &mut s.table)?;
    sync::io::streams::add_to_linker::<PluginState, HasTable>(l, |s| &mut s.table)?;
    cli::exit::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::environment::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::stdin::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::stdout::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::stderr::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::terminal_input::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::terminal_output::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::terminal_stdin::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::terminal_stdout::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    cli::terminal_stderr::add_to_linker::<PluginState, WasiCli>(l, PluginState::cli)?;
    Ok(linker)
}

/// Advances the epoch every tick while the engine lives.
fn spawn_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("trajhost-epoch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(EPOCH_TICK);
                match weak.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => return,
                }
            }
        })
        .expect("spawning the epoch thread");
}

/// A compiled, linked codec ready to instantiate.
pub struct LoadedCodec {
    pre: Pre,
    name: String,
    api: semver::Version,
}

/// Pre-instantiated bindings of the API version the component exports.
enum Pre {
    V0_1(v0_1::CodecPluginPre<PluginState>),
    V0_2(v0_2::CodecPluginPre<PluginState>),
    V0_3(v0_3::CodecPluginPre<PluginState>),
}

/// Bindings of one instance.
enum Bindings {
    V0_1(v0_1::CodecPlugin),
    V0_2(v0_2::CodecPlugin),
    V0_3(v0_3::CodecPlugin),
}

impl LoadedCodec {
    /// The `trajhost:codec` API version the component exports.
    pub fn api_version(&self) -> &semver::Version {
        &self.api
    }

    /// A fresh instance (its own store and memory) for one operation.
    pub fn instantiate(&self, runtime: &Runtime) -> Result<CodecInstance> {
        let mut store = Store::new(runtime.engine(), PluginState::new(self.name.clone(), runtime.limits.clone()));
        store.limiter(|s| &mut s.limiter);
        if runtime.mode == Mode::Metered {
            store.set_fuel(u64::MAX).expect("fuel is enabled in metered mode");
        }
        store.set_epoch_deadline(deadline_ticks(runtime.limits.call_timeout));
        let fail =
            |e, store: &Store<PluginState>| classify(e, store.data(), &self.name, Operation::Load, &runtime.limits);
        let bindings = match &self.pre {
            Pre::V0_1(pre) => pre.instantiate(&mut store).map(Bindings::V0_1),
            Pre::V0_2(pre) => pre.instantiate(&mut store).map(Bindings::V0_2),
            Pre::V0_3(pre) => pre.instantiate(&mut store).map(Bindings::V0_3),
        }
        .map_err(|e| fail(e, &store))?;
        Ok(CodecInstance {
            store,
            bindings,
            name: self.name.clone(),
            limits: runtime.limits.clone(),
            mode: runtime.mode,
            mounts: runtime.mounts.clone(),
        })
    }
}

fn deadline_ticks(timeout: Duration) -> u64 {
    (timeout.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64
}

/// Turns a failed call into the precise error: which limit, or which trap.
fn classify(error: wasmtime::Error, state: &PluginState, plugin: &str, op: Operation, limits: &Limits) -> HostError {
    let limit = |kind: LimitKind, limit: String| HostError::LimitExceeded { plugin: plugin.into(), op, kind, limit };
    if state.limiter.hit {
        return limit(LimitKind::Memory, format!("{} bytes", limits.memory_bytes));
    }
    match error.downcast_ref::<Trap>() {
        Some(Trap::Interrupt) => limit(LimitKind::Time, format!("{:?}", limits.call_timeout)),
        Some(Trap::StackOverflow) => limit(LimitKind::Stack, format!("{} bytes", limits.wasm_stack_bytes)),
        Some(Trap::OutOfFuel) => limit(LimitKind::Fuel, "exhausted".into()),
        // A panic's message and location say more than the wasm frames.
        _ => match messages::panic_message(&state.plugin_log()) {
            Some(panic) => {
                tracing::debug!("codec {plugin} trapped during {op}: {error:#}");
                HostError::Trap { plugin: plugin.into(), op, message: panic }
            }
            None => HostError::Trap { plugin: plugin.into(), op, message: format!("{error:#}") },
        },
    }
}

/// One instance of a codec, with its store.
pub struct CodecInstance {
    store: Store<PluginState>,
    bindings: Bindings,
    name: String,
    limits: Limits,
    mode: Mode,
    mounts: std::sync::Arc<HomeMounts>,
}

/// What an operation cost, for reports.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Usage {
    /// Instructions (fuel), in metered mode.
    pub fuel: Option<u64>,
    /// Peak linear memory of the instance.
    pub peak_memory: usize,
    pub capabilities: CapabilityStats,
}

impl CodecInstance {
    /// `harness@version` of the codec.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Names the codec in messages once its `info` is known.
    pub fn set_name(&mut self, name: String) {
        self.store.data_mut().plugin = name.clone();
        self.name = name;
    }

    /// The user's choices for the target of the next `write` or `prepare`
    /// (API 0.2.1 `target`); clears what the codec asked or reported before.
    pub fn set_target_choice(&mut self, choice: TargetChoice) {
        self.store.data_mut().target = TargetState { choice, asked: false, untested: None };
    }

    /// Whether the codec asked for the target choice since it was set. A
    /// codec of API 0.2.0 or older cannot ask.
    pub fn target_choice_asked(&self) -> bool {
        self.store.data().target.asked
    }

    /// Records what the next calls open (files and SQLite answers), for the
    /// archive's evidence; [`SessionStream::take_evidence`] hands it over.
    pub fn record_evidence(&mut self) {
        self.store.data_mut().recorder = Some(Default::default());
    }

    /// Serves these recorded databases instead of opening real ones.
    pub fn set_replay(&mut self, replay: std::sync::Arc<trajhost_capabilities::evidence::Replay>) {
        self.store.data_mut().replay = Some(replay);
    }

    /// The untested target version the codec reported, if any.
    pub fn untested_target(&self) -> Option<Untested> {
        self.store.data().target.untested.clone()
    }

    /// Runs one export call under the call deadline and maps failures.
    fn call<R>(
        &mut self,
        op: Operation,
        f: impl FnOnce(&mut Store<PluginState>, &Bindings) -> wasmtime::Result<R>,
    ) -> Result<R> {
        self.store.set_epoch_deadline(deadline_ticks(self.limits.call_timeout));
        self.store.data().deadline.set(self.limits.call_timeout);
        let result = f(&mut self.store, &self.bindings);
        result.map_err(|e| classify(e, self.store.data(), &self.name, op, &self.limits))
    }

    fn codec_error(
        &self,
        op: Operation,
        error: impl Into<trajhost_capabilities::wit::latest::types::CodecError>,
    ) -> HostError {
        HostError::Codec { plugin: self.name.clone(), op, message: describe_codec_error(&error.into()) }
    }

    /// Grants a host directory to the instance for one call.
    fn grant(&mut self, dir: &Path) -> Result<wasmtime::component::Resource<DirHandle>> {
        let handle = DirHandle::grant_with(dir, &self.mounts.for_home(dir)).map_err(|e| HostError::io(dir, e))?;
        self.store.data_mut().table.push(handle).map_err(|e| HostError::io(dir, e))
    }

    pub fn info(&mut self) -> Result<CodecInfo> {
        self.call(Operation::Info, |store, b| match b {
            Bindings::V0_3(b) => b.trajhost_codec_codec().call_info(store),
            Bindings::V0_2(b) => b.trajhost_codec_codec().call_info(store).map(Into::into),
            Bindings::V0_1(b) => b.trajhost_codec_codec().call_info(store).map(Into::into),
        })
    }

    /// Sessions under `home`.
    pub fn discover(&mut self, home: &Path) -> Result<Discovery> {
        let dir = self.grant(home)?;
        let result = self.call(Operation::Discover, |store, b| match b {
            Bindings::V0_3(b) => b.trajhost_codec_codec().call_discover(store, dir),
            Bindings::V0_2(b) => {
                b.trajhost_codec_codec().call_discover(store, dir).map(|r| r.map(Into::into).map_err(Into::into))
            }
            Bindings::V0_1(b) => {
                b.trajhost_codec_codec().call_discover(store, dir).map(|r| r.map(Into::into).map_err(Into::into))
            }
        })?;
        result.map_err(|e| self.codec_error(Operation::Discover, e))
    }

    /// The session-ref of one session.
    pub fn inspect(&mut self, home: &Path, locator: &str) -> Result<SessionRef> {
        let dir = self.grant(home)?;
        self.call(Operation::Discover, |store, b| match b {
            Bindings::V0_3(b) => b.trajhost_codec_codec().call_inspect(store, dir, locator),
            Bindings::V0_2(b) => b
                .trajhost_codec_codec()
                .call_inspect(store, dir, locator)
                .map(|r| r.map(Into::into).map_err(Into::into)),
            Bindings::V0_1(b) => b
                .trajhost_codec_codec()
                .call_inspect(store, dir, locator)
                .map(|r| r.map(Into::into).map_err(Into::into)),
        })?
        .map_err(|e| self.codec_error(Operation::Discover, e))
    }

    /// Whether a file is this codec's format, from its path and first bytes.
    /// A 0.1 codec cannot tell: `None`.
    pub fn sniff(&mut self, path: &str, head: &[u8]) -> Result<Option<Sniffed>> {
        self.call(Operation::Discover, |store, b| match b {
            Bindings::V0_3(b) => b.trajhost_codec_codec().call_sniff(store, path, head),
            Bindings::V0_2(b) => b.trajhost_codec_codec().call_sniff(store, path, head).map(|o| o.map(Into::into)),
            Bindings::V0_1(_) => Ok(None),
        })
    }

    /// Starts reading a session; the instance moves into the stream.
    pub fn read(mut self, home: &Path, locator: &str, options: ReadOptions) -> Result<SessionStream> {
        let dir = self.grant(home)?;
        let reader = self
            .call(Operation::Read, |store, b| match b {
                Bindings::V0_3(b) => b.trajhost_codec_codec().call_read(store, dir, locator, options),
                Bindings::V0_2(b) => b
                    .trajhost_codec_codec()
                    .call_read(store, dir, locator, (&options).into())
                    .map(|r| r.map_err(Into::into)),
                Bindings::V0_1(b) => b
                    .trajhost_codec_codec()
                    .call_read(store, dir, locator, (&options).into())
                    .map(|r| r.map_err(Into::into)),
            })?
            .map_err(|e| self.codec_error(Operation::Read, e))?;
        Ok(SessionStream { instance: self, reader: Some(reader), started: Instant::now(), resume: None })
    }

    /// Whether the codec's API has `read-from` (0.3 on); the codec itself
    /// may still answer `unsupported`.
    pub fn can_resume(&self) -> bool {
        matches!(self.bindings, Bindings::V0_3(_))
    }

    /// Continues reading a session from a point an earlier stream of this
    /// codec gave ([`SessionStream::resume_point`]): `meta` as it is now,
    /// then the records from `start.records` on.
    pub fn read_from(
        mut self,
        home: &Path,
        locator: &str,
        start: &ResumePoint,
        options: ReadOptions,
    ) -> Result<SessionStream> {
        if !self.can_resume() {
            return Err(HostError::Codec {
                plugin: self.name.clone(),
                op: Operation::Read,
                message: "unsupported: read-from (its codec API is older than 0.3)".into(),
            });
        }
        let dir = self.grant(home)?;
        let reader = self
            .call(Operation::Read, |store, b| match b {
                Bindings::V0_3(b) => b.trajhost_codec_codec().call_read_from(store, dir, locator, start, options),
                Bindings::V0_2(_) | Bindings::V0_1(_) => unreachable!("checked above"),
            })?
            .map_err(|e| self.codec_error(Operation::Read, e))?;
        Ok(SessionStream { instance: self, reader: Some(reader), started: Instant::now(), resume: None })
    }

    /// Starts writing a session; the instance moves into the sink.
    pub fn write(mut self, options: &WriteOptions) -> Result<SessionSink> {
        let state = match &self.bindings {
            Bindings::V0_1(_) => SinkState::Collecting { document: String::new(), options: options.clone() },
            Bindings::V0_2(_) | Bindings::V0_3(_) => {
                let writer = self
                    .call(Operation::Write, |store, b| match b {
                        Bindings::V0_3(b) => b.trajhost_codec_codec().call_write(store, options),
                        Bindings::V0_2(b) => {
                            b.trajhost_codec_codec().call_write(store, &options.into()).map(|r| r.map_err(Into::into))
                        }
                        Bindings::V0_1(_) => unreachable!("matched above"),
                    })?
                    .map_err(|e| self.codec_error(Operation::Write, e))?;
                SinkState::Streaming(Some(writer))
            }
        };
        Ok(SessionSink { instance: self, state })
    }

    /// Plans installing an export's artifacts (under `export`) into `target`.
    pub fn prepare(
        &mut self,
        artifacts: &[ArtifactInfo],
        export: &Path,
        target: &Path,
        options: &WriteOptions,
    ) -> Result<Plan> {
        let plan = if matches!(self.bindings, Bindings::V0_1(_)) {
            // 0.1 codecs receive the artifacts' bytes.
            let mut with_bytes = Vec::new();
            for a in artifacts {
                let path = export.join(&a.path);
                let bytes = std::fs::read(&path).map_err(|e| HostError::io(&path, e))?;
                with_bytes.push(v0_1::codec::Artifact { path: a.path.clone(), bytes });
            }
            let dir = self.grant(target)?;
            self.call(Operation::Prepare, |store, b| match b {
                Bindings::V0_1(b) => b
                    .trajhost_codec_codec()
                    .call_prepare(store, &with_bytes, dir, &options.into())
                    .map(|r| r.map(Into::into).map_err(Into::into)),
                Bindings::V0_2(_) | Bindings::V0_3(_) => unreachable!("matched above"),
            })?
        } else {
            let export_dir = self.grant(export)?;
            let dir = self.grant(target)?;
            self.call(Operation::Prepare, |store, b| match b {
                Bindings::V0_3(b) => b.trajhost_codec_codec().call_prepare(store, artifacts, export_dir, dir, options),
                Bindings::V0_2(b) => {
                    let artifacts: Vec<v0_2::codec::ArtifactInfo> = artifacts.iter().map(Into::into).collect();
                    b.trajhost_codec_codec()
                        .call_prepare(store, &artifacts, export_dir, dir, &options.into())
                        .map(|r| r.map(Into::into).map_err(Into::into))
                }
                Bindings::V0_1(_) => unreachable!("matched above"),
            })?
        };
        let plan = plan.map_err(|e| self.codec_error(Operation::Prepare, e))?;
        self.check_output(Operation::Prepare, plan_size(&plan))?;
        Ok(plan)
    }

    fn check_output(&self, op: Operation, size: usize) -> Result<()> {
        if size > self.limits.max_output_bytes {
            return Err(HostError::LimitExceeded {
                plugin: self.name.clone(),
                op,
                kind: LimitKind::Output,
                limit: format!("{} bytes", self.limits.max_output_bytes),
            });
        }
        Ok(())
    }

    /// What the instance has used so far.
    pub fn usage(&self) -> Usage {
        let fuel = match self.mode {
            Mode::Metered => self.store.get_fuel().ok().map(|left| u64::MAX - left),
            Mode::Production => None,
        };
        Usage { fuel, peak_memory: self.store.data().limiter.peak, capabilities: self.store.data().stats }
    }

    /// The codec's log and captured output, sanitized.
    pub fn plugin_log(&self) -> String {
        self.store.data().plugin_log()
    }
}

/// Renders a codec's own error for a message.
pub fn describe_codec_error(error: &trajhost_capabilities::wit::latest::types::CodecError) -> String {
    use trajhost_capabilities::wit::latest::types::CodecError as E;
    match error {
        E::Unsupported(m) => format!("unsupported: {m}"),
        E::NotFound(m) => format!("not found: {m}"),
        E::Malformed(m) => format!("malformed input: {m}"),
        E::Io(m) => format!("i/o: {m}"),
        E::LimitExceeded(m) => format!("limit exceeded: {m}"),
        E::Other(m) => m.clone(),
    }
}

/// A session being read: batches of canonical records.
pub struct SessionStream {
    instance: CodecInstance,
    reader: Option<ResourceAny>,
    started: Instant,
    /// Where a later read can continue, asked once the reader ran out.
    resume: Option<ResumePoint>,
}

/// One batch as the host received it.
pub use trajhost_capabilities::wit::latest::codec::Batch;

impl SessionStream {
    /// The next batch, or `None` when the session is exhausted.
    pub fn next_batch(&mut self) -> Result<Option<Batch>> {
        let Some(reader) = self.reader else { return Ok(None) };
        let next = self
            .instance
            .call(Operation::Read, |store, b| match b {
                Bindings::V0_3(b) => b.trajhost_codec_codec().session_reader().call_next_batch(store, reader),
                Bindings::V0_2(b) => b
                    .trajhost_codec_codec()
                    .session_reader()
                    .call_next_batch(store, reader)
                    .map(|r| r.map(|o| o.map(Into::into)).map_err(Into::into)),
                Bindings::V0_1(b) => b
                    .trajhost_codec_codec()
                    .session_reader()
                    .call_next_batch(store, reader)
                    .map(|r| r.map(|o| o.map(Into::into)).map_err(Into::into)),
            })?
            .map_err(|e| self.instance.codec_error(Operation::Read, e))?;
        match next {
            Some(batch) => {
                if batch.records.len() > self.instance.limits.max_batch_bytes {
                    return Err(HostError::LimitExceeded {
                        plugin: self.instance.name.clone(),
                        op: Operation::Read,
                        kind: LimitKind::Output,
                        limit: format!("{} bytes per batch", self.instance.limits.max_batch_bytes),
                    });
                }
                Ok(Some(batch))
            }
            None => {
                if let (Some(reader), Bindings::V0_3(_)) = (self.reader, &self.instance.bindings) {
                    self.resume = self.instance.call(Operation::Read, |store, b| match b {
                        Bindings::V0_3(b) => b.trajhost_codec_codec().session_reader().call_resume_point(store, reader),
                        Bindings::V0_2(_) | Bindings::V0_1(_) => Ok(None),
                    })?;
                }
                self.close();
                Ok(None)
            }
        }
    }

    /// Once the stream ran out: where a later [`CodecInstance::read_from`]
    /// can continue, if the codec gave a point.
    pub fn resume_point(&self) -> Option<&ResumePoint> {
        self.resume.as_ref()
    }

    fn close(&mut self) {
        if let Some(reader) = self.reader.take() {
            // A failed drop only means the instance is already unusable.
            let _ = reader.resource_drop(&mut self.instance.store);
        }
    }

    pub fn usage(&self) -> Usage {
        self.instance.usage()
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// What the read opened, if [`CodecInstance::record_evidence`] was called.
    pub fn take_evidence(&mut self) -> Option<trajhost_capabilities::evidence::Recorder> {
        self.instance.store.data_mut().recorder.take()
    }

    pub fn plugin_log(&self) -> String {
        self.instance.plugin_log()
    }
}

impl Drop for SessionStream {
    fn drop(&mut self) {
        self.close();
    }
}

/// A [`SessionStream`] read ahead on its own thread: the codec parses the
/// next batch while the caller handles this one, so a read costs about the
/// slower of the two sides, not their sum. At most one batch waits (memory
/// grows by one batch, ≤ `max-batch-bytes`).
pub struct Prefetched {
    batches: std::sync::mpsc::Receiver<Result<Batch>>,
    reader: Option<std::thread::JoinHandle<SessionStream>>,
    /// The stream, once the reading thread has ended.
    stream: Option<SessionStream>,
}

impl SessionStream {
    /// Moves the stream onto a reading thread.
    pub fn prefetched(mut self) -> Prefetched {
        let (sender, batches) = std::sync::mpsc::sync_channel(0);
        let reader = std::thread::Builder::new()
            .name("codec-read".into())
            .spawn(move || {
                loop {
                    let next = match self.next_batch() {
                        Ok(None) => break,
                        Ok(Some(batch)) => Ok(batch),
                        Err(error) => Err(error),
                    };
                    let failed = next.is_err();
                    // A receiver that is gone stopped reading.
                    if sender.send(next).is_err() || failed {
                        break;
                    }
                }
                self
            })
            .expect("spawning a thread");
        Prefetched { batches, reader: Some(reader), stream: None }
    }
}

impl Prefetched {
    /// The next batch, or `None` when the session is exhausted.
    pub fn next_batch(&mut self) -> Result<Option<Batch>> {
        match self.batches.recv() {
            Ok(next) => next.map(Some),
            // The thread ended: exhausted, unless it panicked.
            Err(_) => {
                self.join()?;
                Ok(None)
            }
        }
    }

    fn join(&mut self) -> Result<()> {
        if let Some(reader) = self.reader.take() {
            let stream = reader.join().map_err(|_| HostError::Trap {
                plugin: "codec-read thread".into(),
                op: Operation::Read,
                message: "the reading thread panicked".into(),
            })?;
            self.stream = Some(stream);
        }
        Ok(())
    }

    /// Stops reading ahead and returns the stream (for its usage, evidence
    /// or plugin log).
    pub fn finish(mut self) -> Result<SessionStream> {
        // Dropping the receiver ends a thread that waits to hand over a batch.
        drop(std::mem::replace(&mut self.batches, std::sync::mpsc::sync_channel(0).1));
        self.join()?;
        Ok(self.stream.take().expect("joined"))
    }
}

fn plan_size(plan: &Plan) -> usize {
    use trajhost_capabilities::wit::latest::codec::Operation as Op;
    use trajhost_capabilities::wit::latest::sqlite::Value;
    let value = |v: &Value| match v {
        Value::Text(t) => t.len(),
        Value::Blob(b) => b.len(),
        _ => 8,
    };
    let rows = |rows: &[Vec<Value>]| rows.iter().flatten().map(value).sum::<usize>();
    plan.operations
        .iter()
        .map(|op| match op {
            Op::CreateFile(f) => f.bytes.len() + f.path.len(),
            Op::CopyArtifact(c) => c.artifact.len() + c.path.len(),
            Op::InsertRows(i) => rows(&i.rows),
            Op::CreateDatabase(d) => {
                d.schema.iter().map(String::len).sum::<usize>() + d.tables.iter().map(|t| rows(&t.rows)).sum::<usize>()
            }
            Op::AddJsonEntry(j) => j.value.len() + j.initial.as_ref().map_or(0, String::len),
            Op::AppendFile(a) => a.bytes.len() + a.path.len() + a.expect_sha256.len(),
        })
        .sum()
}

/// A session being written: canonical batches in, artifact pieces out.
pub struct SessionSink {
    instance: CodecInstance,
    state: SinkState,
}

enum SinkState {
    /// A 0.2 or later codec's `session-writer`.
    Streaming(Option<ResourceAny>),
    /// A 0.1 codec takes the whole document in one `write` call.
    Collecting { document: String, options: WriteOptions },
}

impl SessionSink {
    /// Hands one batch of canonical records (JSON lines) to the codec and
    /// returns the pieces it has ready.
    pub fn push(&mut self, records: &str) -> Result<Vec<ArtifactChunk>> {
        match &mut self.state {
            SinkState::Collecting { document, .. } => {
                document.push_str(records);
                Ok(Vec::new())
            }
            SinkState::Streaming(writer) => {
                let writer = writer.ok_or_else(|| HostError::Codec {
                    plugin: self.instance.name.clone(),
                    op: Operation::Write,
                    message: "push after finish".into(),
                })?;
                let chunks = self
                    .instance
                    .call(Operation::Write, |store, b| match b {
                        Bindings::V0_3(b) => {
                            b.trajhost_codec_codec().session_writer().call_push(store, writer, records)
                        }
                        Bindings::V0_2(b) => b
                            .trajhost_codec_codec()
                            .session_writer()
                            .call_push(store, writer, records)
                            .map(|r| r.map(|c| c.into_iter().map(Into::into).collect()).map_err(Into::into)),
                        Bindings::V0_1(_) => unreachable!("0.1 codecs collect"),
                    })?
                    .map_err(|e| self.instance.codec_error(Operation::Write, e))?;
                self.instance
                    .check_output(Operation::Write, chunks.iter().map(|c| c.bytes.len() + c.path.len()).sum())?;
                Ok(chunks)
            }
        }
    }

    /// Ends the session: the last pieces, the native id and diagnostics.
    pub fn finish(mut self) -> Result<Written> {
        let written = match std::mem::replace(&mut self.state, SinkState::Streaming(None)) {
            SinkState::Collecting { document, options } => self
                .instance
                .call(Operation::Write, |store, b| match b {
                    Bindings::V0_1(b) => {
                        b.trajhost_codec_codec().call_write(store, &document, &(&options).into()).map(|r| {
                            r.map(Into::into).map_err(trajhost_capabilities::wit::latest::types::CodecError::from)
                        })
                    }
                    Bindings::V0_2(_) | Bindings::V0_3(_) => unreachable!("0.2 and later codecs stream"),
                })?
                .map_err(|e| self.instance.codec_error(Operation::Write, e))?,
            SinkState::Streaming(Some(writer)) => {
                let written = self
                    .instance
                    .call(Operation::Write, |store, b| match b {
                        Bindings::V0_3(b) => b.trajhost_codec_codec().session_writer().call_finish(store, writer),
                        Bindings::V0_2(b) => b
                            .trajhost_codec_codec()
                            .session_writer()
                            .call_finish(store, writer)
                            .map(|r| r.map(Into::into).map_err(Into::into)),
                        Bindings::V0_1(_) => unreachable!("0.1 codecs collect"),
                    })?
                    .map_err(|e| self.instance.codec_error(Operation::Write, e));
                let _ = writer.resource_drop(&mut self.instance.store);
                written?
            }
            SinkState::Streaming(None) => {
                return Err(HostError::Codec {
                    plugin: self.instance.name.clone(),
                    op: Operation::Write,
                    message: "finished twice".into(),
                });
            }
        };
        self.instance
            .check_output(Operation::Write, written.chunks.iter().map(|c| c.bytes.len() + c.path.len()).sum())?;
        Ok(written)
    }

    pub fn usage(&self) -> Usage {
        self.instance.usage()
    }

    pub fn plugin_log(&self) -> String {
        self.instance.plugin_log()
    }

    /// Whether the codec asked for the target choice while writing.
    pub fn target_choice_asked(&self) -> bool {
        self.instance.target_choice_asked()
    }
}

impl Drop for SessionSink {
    fn drop(&mut self) {
        if let SinkState::Streaming(Some(writer)) = std::mem::replace(&mut self.state, SinkState::Streaming(None)) {
            let _ = writer.resource_drop(&mut self.instance.store);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::import_allowed;

    #[test]
    fn allow_list() {
        assert!(import_allowed("trajhost:codec/fs@0.1.0"));
        assert!(import_allowed("wasi:cli/stderr@0.2.6"));
        assert!(import_allowed("wasi:io/streams@0.2.0"));
        assert!(!import_allowed("wasi:filesystem/preopens@0.2.6"));
        assert!(!import_allowed("wasi:sockets/tcp@0.2.6"));
        assert!(import_allowed("trajhost:codec/fs@0.2.0"));
        assert!(import_allowed("trajhost:codec/fs@0.3.0"));
        assert!(!import_allowed("trajhost:codec/fs@0.4.0"));
        assert!(import_allowed("trajhost:codec/target@0.3.0"));
        assert!(import_allowed("trajhost:codec/target@0.2.1"));
        assert!(!import_allowed("trajhost:codec/target@0.1.0"));
        assert!(!import_allowed("wasi:cli/run@0.2.6"));
    }
}
