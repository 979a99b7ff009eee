//! # trajhost codec SDK
//!
//! Everything a codec author needs to turn one harness's native session store
//! into trajhost's canonical records, as a sandboxed WebAssembly component:
//!
//! - [`bindings`]: the wit-bindgen bindings of `trajhost:codec@0.1.0`;
//! - the [`Codec`] trait (every operation but `info`, `discover` and `read` has
//!   a default) and the [`export_codec!`] macro;
//! - [`fs::Dir`] / [`fs::File`] over the host's read-only filesystem
//!   capability, and [`sqlite::Database`] over its read-only SQLite;
//! - [`jsonl::JsonLines`], a JSON-lines reader that tracks byte offsets and
//!   tells a torn tail from corruption;
//! - [`records::BatchWriter`] and [`diag::Diagnostics`] to build batches;
//! - [`time`] (RFC 3339 / ISO 8601 without a date crate) and [`hash::Fnv`]
//!   (a deterministic hash).
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
pub mod hash;
pub mod head;
pub mod json;
pub mod jsonl;
pub mod paths;
pub mod records;
pub mod sql;
pub mod sqlite;
pub mod text;
pub mod time;

pub use trajhost_canonical as canonical;

/// The wit-bindgen bindings of the codec world.
#[allow(missing_docs, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        world: "codec-plugin",
        path: "../../wit/since_v0.1.0",
        pub_export_macro: true,
        export_macro_name: "export_bindings",
        default_bindings_module: "trajhost_codec_sdk::bindings",
    });
}

use bindings::exports::trajhost::codec::codec as export;
pub use export::{
    Artifact, Batch, CodecInfo, Discovery, Operation, Plan, ReadOptions, SessionRef, WriteOptions,
    Written,
};
pub use bindings::trajhost::codec::types::{CodecError, Diagnostic, Severity};

/// The API version of the WIT package this SDK binds.
pub const API_VERSION: &str = "0.1.0";
/// This SDK's version.
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One harness codec. Implement it and call [`export_codec!`].
pub trait Codec {
    /// The streaming reader `read` returns.
    type Reader: SessionReader + 'static;

    /// Static facts about the codec.
    fn info() -> CodecInfo;

    /// Sessions under a granted home directory.
    fn discover(home: &fs::Dir) -> Result<Discovery, CodecError>;

    /// The session-ref of the session at `locator`. The default runs
    /// `discover` and picks it out; override it when that is costly.
    fn inspect(home: &fs::Dir, locator: &str) -> Result<SessionRef, CodecError> {
        Self::discover(home)?
            .sessions
            .into_iter()
            .find(|s| s.locator == locator)
            .ok_or_else(|| CodecError::NotFound(locator.to_string()))
    }

    /// Starts reading one session. `home` is an owned handle to the granted
    /// directory, so the reader may open further files later.
    fn read(home: fs::Dir, locator: &str, options: ReadOptions) -> Result<Self::Reader, CodecError>;

    /// Turns a canonical document (records as JSON lines) into native files.
    fn write(_session: &str, _options: WriteOptions) -> Result<Written, CodecError> {
        Err(CodecError::Unsupported("write".into()))
    }

    /// Plans how to install written artifacts into a target home.
    fn prepare(
        _artifacts: Vec<Artifact>,
        _target: &fs::Dir,
        _options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        Err(CodecError::Unsupported("prepare".into()))
    }
}

/// A session being read, batch by batch.
pub trait SessionReader {
    /// The next batch, or `None` when the session is exhausted.
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError>;
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
}

impl<C: Codec + 'static> export::Guest for Export<C> {
    type SessionReader = ExportedReader<C::Reader>;

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

    fn write(session: String, options: WriteOptions) -> Result<Written, CodecError> {
        C::write(&session, options)
    }

    fn prepare(
        artifacts: Vec<Artifact>,
        target: &bindings::trajhost::codec::fs::Dir,
        options: WriteOptions,
    ) -> Result<Plan, CodecError> {
        C::prepare(artifacts, &fs::Dir::from_borrow(target)?, options)
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
        };
    };
}

/// `sdk=<version>;api=<version>`, embedded by [`export_codec!`].
#[doc(hidden)]
pub const SDK_SECTION: &str = concat!("sdk=", env!("CARGO_PKG_VERSION"), ";api=0.1.0");

#[doc(hidden)]
pub const fn sdk_section<const N: usize>() -> [u8; N] {
    let bytes = SDK_SECTION.as_bytes();
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
    pub use crate::records::BatchWriter;
    pub use crate::{
        Artifact, Batch, Codec, CodecError, CodecInfo, Diagnostic, Discovery, Plan, ReadOptions,
        SessionReader, SessionRef, Severity, WriteOptions, Written,
    };
}
