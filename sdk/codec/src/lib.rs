//! # trajhost codec SDK
//!
//! Everything a codec author needs to turn one harness's native session store
//! into trajhost's canonical records, as a sandboxed WebAssembly component:
//!
//! - [`bindings`]: the wit-bindgen bindings of `trajhost:codec@0.3.0` (the
//!   crate carries its own copy of the WIT in `wit/`, so it builds outside
//!   the trajhost workspace);
//! - the [`Codec`] trait (every operation but `info`, `discover` and `read` has
//!   a default) and the [`export_codec!`] macro, or [`codec_identity!`],
//!   which declares a codec's identity (harness, versions, formats, globs)
//!   once and writes its constants, its `impl Codec` and that call;
//! - [`fs::Dir`] / [`fs::File`] over the host's read-only filesystem
//!   capability, and [`sqlite::Database`] over its read-only SQLite;
//! - [`jsonl::JsonLines`], a JSON-lines reader that tracks byte offsets and
//!   tells a torn tail from corruption;
//! - [`records::BatchWriter`] and [`diag::Diagnostics`] to build batches, and
//!   [`records::Steps`] / [`records::next_batch`] for a reader that works one
//!   step at a time;
//! - [`target`]: the user's model / provider / untested-version choices for
//!   `write` and `prepare`;
//! - [`time`] (RFC 3339 / ISO 8601 without a date crate) and [`hash::Fnv`]
//!   (a deterministic hash);
//! - [`writer`], the writer kit: [`writer::CanonicalInput`] (pushed text
//!   into records), [`writer::ids`] (deterministic ids),
//!   [`writer::JsonlAssembler`] (native lines into artifact pieces),
//!   [`writer::HeldRecords`] (records held until the header can be written)
//!   and [`writer::install`] (the pieces of a `prepare` plan), so a codec's
//!   `write` is its mapping and nothing else.
//!
//! The same codec crate also compiles natively (for benchmarks and tests):
//! then `fs::Dir` reads the real filesystem through `std::fs`.
//!
//! ## A minimal codec
//!
//! ```ignore
//! use trajhost_codec_sdk::prelude::*;
//!
//! struct Toy;
//!
//! impl Codec for Toy {
//!     type Reader = ToyReader;
//!     fn info() -> CodecInfo { CodecInfo { harness: "toy".into(), /* … */ } }
//!     fn discover(home: &Dir) -> Result<Discovery, CodecError> { /* list files */ }
//!     fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<ToyReader, CodecError> {
//!         Ok(ToyReader { lines: JsonLines::open(&home, locator)?, /* … */ })
//!     }
//! }
//! trajhost_codec_sdk::export_codec!(Toy);
//! ```
//!
//! `sdk/README.md` walks through a complete example.

pub mod diag;
pub mod discovery;
pub mod errors;
pub mod fs;
pub mod genai;
mod glue;
pub mod hash;
pub mod head;
pub mod identity;
pub mod jcs;
pub mod json;
pub mod jsonl;
pub mod known;
pub mod lenient;
pub mod paths;
pub mod records;
pub mod resume;
pub mod shell;
pub mod sql;
pub mod sqlite;
pub mod target;
pub mod text;
pub mod time;
pub mod writer;

pub use trajhost_canonical as canonical;

/// The wit-bindgen bindings of the codec world.
#[allow(missing_docs, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        world: "codec-plugin",
        path: "wit",
        pub_export_macro: true,
        export_macro_name: "export_bindings",
        default_bindings_module: "trajhost_codec_sdk::bindings",
    });
}

use bindings::exports::trajhost::codec::codec as export;
pub use export::{
    AddJsonEntry, AppendFile, ArtifactChunk, ArtifactInfo, Batch, CodecInfo, CopyArtifact, CreateDatabase, CreateFile,
    Discovery, InsertRows, Operation, Plan, ReadOptions, ResumePoint, SessionRef, Sniffed, TableRows, WriteOptions,
    Written,
};
/// A native file (or a piece of one) relative to a target home.
pub type Artifact = ArtifactChunk;
pub use bindings::trajhost::codec::types::{CodecError, Diagnostic, Severity};

/// The API version of the WIT package this SDK binds.
pub const API_VERSION: &str = "0.3.0";
/// This SDK's version.
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One harness codec. Implement it and call [`export_codec!`].
pub trait Codec {
    /// The streaming reader `read` returns.
    type Reader: SessionReader + 'static;

    /// The native versions this codec's writer writes for (a semver range),
    /// when they differ from those it reads (`info().native-versions`).
    /// `prepare` picks, among a harness's writing codecs, the one whose range
    /// holds the target's version, as reading picks a reader. Embedded by
    /// [`export_codec!`] in a `trajhost:writes-for` custom section, so the
    /// host knows it without running the codec. Empty: the read range.
    const WRITES_FOR: &'static str = "";

    /// Static facts about the codec.
    fn info() -> CodecInfo;

    /// Sessions under a granted home directory.
    fn discover(home: &fs::Dir) -> Result<Discovery, CodecError>;

    /// The session-ref of the session at `locator`. The default runs
    /// `discover` and picks it out; a file outside the session globs (one the
    /// host sniffed as this codec's, e.g. a renamed copy) gets a ref from its
    /// name and size. Override it when discovery is costly or the content
    /// names the session.
    fn inspect(home: &fs::Dir, locator: &str) -> Result<SessionRef, CodecError> {
        if let Some(found) = Self::discover(home)?.sessions.into_iter().find(|s| s.locator == locator) {
            return Ok(found);
        }
        loose_file_ref(home, locator)
    }

    /// Whether a file is in this codec's format, from its path (as data) and
    /// its first bytes (up to 64 KiB). The host asks when a path lies outside
    /// every codec's session globs. The default recognizes nothing.
    fn sniff(_path: &str, _head: &[u8]) -> Option<Sniffed> {
        None
    }

    /// Starts reading one session. `home` is an owned handle to the granted
    /// directory, so the reader may open further files later.
    fn read(home: fs::Dir, locator: &str, options: ReadOptions) -> Result<Self::Reader, CodecError>;

    /// Continues reading at `start`, a point an earlier reader returned
    /// ([`resume`]): `meta` as `read` would make it now, then the records
    /// from `start.records` on. The default cannot resume.
    fn read_from(
        _home: fs::Dir,
        _locator: &str,
        _start: ResumePoint,
        _options: ReadOptions,
    ) -> Result<Self::Reader, CodecError> {
        Err(CodecError::Unsupported("read-from".into()))
    }

    /// Starts writing a session: the host pushes canonical batches into the
    /// returned writer. [`WholeDocument`] adapts a function that needs the
    /// whole document at once.
    fn write(_options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
        Err(CodecError::Unsupported("write".into()))
    }

    /// Plans how to install an export's artifacts into a target home. The
    /// artifacts' bytes are readable in `export` ([`load_artifacts`] reads
    /// them all; `Operation::CopyArtifact` installs one without reading it).
    fn prepare(
        _artifacts: Vec<ArtifactInfo>,
        _export: &fs::Dir,
        _target: &fs::Dir,
        _options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        Err(CodecError::Unsupported("prepare".into()))
    }
}

/// A session being written, batch by batch.
pub trait SessionWriter {
    /// One batch of canonical records (JSON lines, `meta` first). Returns the
    /// artifact pieces ready so far; pieces of one path are appended.
    fn push(&mut self, records: &str) -> Result<Vec<ArtifactChunk>, CodecError>;
    /// No more records: the remaining pieces, the native id, diagnostics.
    fn finish(&mut self) -> Result<Written, CodecError>;
}

/// The function a [`WholeDocument`] calls with the collected document.
type WholeWrite = Box<dyn FnOnce(&str, &WriteOptions) -> Result<Written, CodecError>>;

/// A writer for formats that need the whole document at once: collects the
/// pushed records and calls `write` at `finish`. Memory grows with the
/// session; stream when the format allows.
pub struct WholeDocument {
    document: String,
    options: WriteOptions,
    write: Option<WholeWrite>,
}

impl WholeDocument {
    /// The writer, boxed for [`Codec::write`].
    pub fn boxed(
        options: WriteOptions,
        write: impl FnOnce(&str, &WriteOptions) -> Result<Written, CodecError> + 'static,
    ) -> Box<dyn SessionWriter> {
        Box::new(WholeDocument { document: String::new(), options, write: Some(Box::new(write)) })
    }
}

impl SessionWriter for WholeDocument {
    fn push(&mut self, records: &str) -> Result<Vec<ArtifactChunk>, CodecError> {
        self.document.push_str(records);
        if !records.is_empty() && !records.ends_with('\n') {
            self.document.push('\n');
        }
        Ok(Vec::new())
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        let write = self.write.take().ok_or_else(|| CodecError::Other("writer finished twice".into()))?;
        let document = std::mem::take(&mut self.document);
        write(&document, &self.options)
    }
}

/// Reads every artifact of an export (for `prepare`s that look at bytes).
pub fn load_artifacts(export: &fs::Dir, artifacts: &[ArtifactInfo]) -> Result<Vec<Artifact>, CodecError> {
    artifacts
        .iter()
        .map(|a| Ok(Artifact { path: a.path.clone(), bytes: export.read_to_end(&a.path, u64::MAX)? }))
        .collect()
}

/// A session-ref for a file outside the usual layout: its stem is the id.
pub fn loose_file_ref(home: &fs::Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let meta = home.stat(locator)?;
    let name = locator.rsplit('/').next().unwrap_or(locator);
    let stem = name.split('.').next().filter(|s| !s.is_empty()).unwrap_or(name);
    Ok(SessionRef {
        native_id: stem.to_string(),
        locator: locator.to_string(),
        cwd: None,
        started_at: None,
        updated_at: None,
        size: meta.size,
        native_version: None,
        title: None,
    })
}

/// What a whole write produced, pieces joined per file (native tests).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone)]
pub struct WrittenFiles {
    pub native_id: String,
    pub artifacts: Vec<Artifact>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Writes a whole canonical document natively, pushed in batches of
/// [`NATIVE_WRITE_BATCH_LINES`] lines as the host would, and joins the pieces
/// per path. For benchmarks and tests.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_document<C: Codec>(document: &str, options: WriteOptions) -> Result<WrittenFiles, CodecError> {
    let mut writer = C::write(options)?;
    let mut files: Vec<Artifact> = Vec::new();
    let add = |chunks: Vec<ArtifactChunk>, files: &mut Vec<Artifact>| {
        for chunk in chunks {
            match files.iter_mut().find(|f| f.path == chunk.path) {
                Some(file) => file.bytes.extend_from_slice(&chunk.bytes),
                None => files.push(chunk),
            }
        }
    };
    let lines: Vec<&str> = document.split_inclusive('\n').collect();
    for batch in lines.chunks(NATIVE_WRITE_BATCH_LINES) {
        let chunks = writer.push(&batch.concat())?;
        add(chunks, &mut files);
    }
    let written = writer.finish()?;
    add(written.chunks, &mut files);
    Ok(WrittenFiles { native_id: written.native_id, artifacts: files, diagnostics: written.diagnostics })
}

/// Lines per batch in [`write_document`]: small, so tests exercise streaming.
#[cfg(not(target_arch = "wasm32"))]
pub const NATIVE_WRITE_BATCH_LINES: usize = 7;

/// Runs `prepare` natively on artifacts held in memory: they are put in a
/// temporary export directory first, as the host would. For tests.
#[cfg(not(target_arch = "wasm32"))]
pub fn prepare_artifacts<C: Codec>(
    artifacts: Vec<Artifact>,
    target: &fs::Dir,
    options: WriteOptions,
) -> Result<Plan, CodecError> {
    let export = tempfile::tempdir().map_err(|e| CodecError::Io(e.to_string()))?;
    let mut infos = Vec::new();
    for artifact in &artifacts {
        let path = std::path::Path::new(&artifact.path);
        if path.is_absolute() || path.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
            return Err(CodecError::Other(format!("artifact path {:?} is not a plain relative path", artifact.path)));
        }
        let file = export.path().join(path);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| CodecError::Io(e.to_string()))?;
        }
        std::fs::write(&file, &artifact.bytes).map_err(|e| CodecError::Io(e.to_string()))?;
        let sha256 = crate::hash::sha256_hex(&artifact.bytes);
        infos.push(ArtifactInfo { path: artifact.path.clone(), size: artifact.bytes.len() as u64, sha256 });
    }
    C::prepare(infos, &fs::Dir::native(export.path()), target, options)
}

/// A session being read, batch by batch.
pub trait SessionReader {
    /// The next batch, or `None` when the session is exhausted.
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError>;

    /// Once exhausted: where a later read can continue ([`resume`]).
    fn resume_point(&self) -> Option<ResumePoint> {
        None
    }
}

/// Reads a whole session natively into canonical JSON lines: what the host
/// would receive, without the sandbox. Used by benchmarks and tests.
pub fn read_all<C: Codec>(
    home: fs::Dir,
    locator: &str,
    options: ReadOptions,
    mut sink: impl FnMut(&Batch),
) -> Result<(), CodecError> {
    let mut reader = C::read(home, locator, options)?;
    while let Some(batch) = reader.next_batch()? {
        sink(&batch);
    }
    Ok(())
}

impl From<fs::FsError> for CodecError {
    fn from(error: fs::FsError) -> Self {
        match error {
            fs::FsError::NotFound(m) => CodecError::NotFound(m),
            fs::FsError::LimitExceeded(m) => CodecError::LimitExceeded(m),
            other => CodecError::Io(other.to_string()),
        }
    }
}

/// Glue between a [`Codec`] and the generated export traits.
#[doc(hidden)]
pub struct Export<C>(std::marker::PhantomData<C>);

#[doc(hidden)]
pub struct ExportedReader<R>(std::cell::RefCell<R>);

impl<R: SessionReader + 'static> export::GuestSessionReader for ExportedReader<R> {
    fn next_batch(&self) -> Result<Option<Batch>, CodecError> {
        self.0.borrow_mut().next_batch()
    }

    fn resume_point(&self) -> Option<ResumePoint> {
        self.0.borrow().resume_point()
    }
}

#[doc(hidden)]
pub struct ExportedWriter(std::cell::RefCell<Box<dyn SessionWriter>>);

impl export::GuestSessionWriter for ExportedWriter {
    fn push(&self, records: String) -> Result<Vec<ArtifactChunk>, CodecError> {
        self.0.borrow_mut().push(&records)
    }

    fn finish(&self) -> Result<Written, CodecError> {
        self.0.borrow_mut().finish()
    }
}

impl<C: Codec + 'static> export::Guest for Export<C> {
    type SessionReader = ExportedReader<C::Reader>;
    type SessionWriter = ExportedWriter;

    fn info() -> CodecInfo {
        C::info()
    }

    fn discover(home: &bindings::trajhost::codec::fs::Dir) -> Result<Discovery, CodecError> {
        C::discover(&fs::Dir::from_borrow(home)?)
    }

    fn inspect(home: &bindings::trajhost::codec::fs::Dir, locator: String) -> Result<SessionRef, CodecError> {
        C::inspect(&fs::Dir::from_borrow(home)?, &locator)
    }

    fn read(
        home: &bindings::trajhost::codec::fs::Dir,
        locator: String,
        options: ReadOptions,
    ) -> Result<export::SessionReader, CodecError> {
        let reader = C::read(fs::Dir::from_borrow(home)?, &locator, options)?;
        Ok(export::SessionReader::new(ExportedReader(std::cell::RefCell::new(reader))))
    }

    fn read_from(
        home: &bindings::trajhost::codec::fs::Dir,
        locator: String,
        start: ResumePoint,
        options: ReadOptions,
    ) -> Result<export::SessionReader, CodecError> {
        let reader = C::read_from(fs::Dir::from_borrow(home)?, &locator, start, options)?;
        Ok(export::SessionReader::new(ExportedReader(std::cell::RefCell::new(reader))))
    }

    fn sniff(path: String, head: Vec<u8>) -> Option<Sniffed> {
        C::sniff(&path, &head)
    }

    fn write(options: WriteOptions) -> Result<export::SessionWriter, CodecError> {
        let writer = C::write(options)?;
        Ok(export::SessionWriter::new(ExportedWriter(std::cell::RefCell::new(writer))))
    }

    fn prepare(
        artifacts: Vec<ArtifactInfo>,
        export: &bindings::trajhost::codec::fs::Dir,
        target: &bindings::trajhost::codec::fs::Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        C::prepare(artifacts, &fs::Dir::from_borrow(export)?, &fs::Dir::from_borrow(target)?, options)
    }
}

/// Exports a [`Codec`] as the component's `trajhost:codec/codec` and embeds
/// the SDK and API versions in a `trajhost:sdk` custom section.
#[macro_export]
macro_rules! export_codec {
    ($codec:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            type TrajhostExportedCodec = $crate::Export<$codec>;
    $crate::bindings::export_bindings!(TrajhostExportedCodec with_types_in $crate::bindings);

            #[unsafe(link_section = "trajhost:sdk")]
            #[used]
            static TRAJHOST_SDK_SECTION: [u8; $crate::SDK_SECTION.len()] = $crate::sdk_section();

            #[unsafe(link_section = "trajhost:writes-for")]
            #[used]
            static TRAJHOST_WRITES_FOR_SECTION: [u8; <$codec as $crate::Codec>::WRITES_FOR.len()] =
                $crate::section_bytes(<$codec as $crate::Codec>::WRITES_FOR);
        };
    };
}

/// `sdk=<version>;api=<version>`, embedded by [`export_codec!`].
#[doc(hidden)]
pub const SDK_SECTION: &str = concat!("sdk=", env!("CARGO_PKG_VERSION"), ";api=0.3.0");

#[doc(hidden)]
pub const fn sdk_section<const N: usize>() -> [u8; N] {
    section_bytes(SDK_SECTION)
}

/// The bytes of `text` as an array (the contents of a custom section).
#[doc(hidden)]
pub const fn section_bytes<const N: usize>(text: &str) -> [u8; N] {
    let bytes = text.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

/// The names most codecs need.
pub mod prelude {
    pub use crate::canonical::{self, Body, Record, SourceSpan};
    pub use crate::diag::Diagnostics;
    pub use crate::fs::{Dir, EntryKind, File, FsError};
    pub use crate::jsonl::{JsonLines, Line};
    pub use crate::records::{BatchWriter, StepParts, Steps};
    pub use crate::{
        Artifact, ArtifactChunk, ArtifactInfo, Batch, Codec, CodecError, CodecInfo, Diagnostic, Discovery, Operation,
        Plan, ReadOptions, SessionReader, SessionRef, SessionWriter, Severity, Sniffed, WholeDocument, WriteOptions,
        Written,
    };
}
