//! The glue every codec's `impl Codec` repeats: its `info()` and the
//! methods that only hand over to the codec's own modules.

use crate::CodecInfo;

impl CodecInfo {
    /// A codec's facts: its harness, its version, the native versions it
    /// reads and where a session shows its version. It reads and writes no
    /// format and claims no files until [`reads`](Self::reads),
    /// [`writes`](Self::writes) and [`globs`](Self::globs) say so; the
    /// canonical schema is the SDK's.
    pub fn of(harness: &str, codec_version: &str, native_versions: &str, native_version_source: &str) -> CodecInfo {
        CodecInfo {
            harness: harness.into(),
            codec_version: codec_version.into(),
            native_versions: native_versions.into(),
            native_version_source: native_version_source.into(),
            reads: Vec::new(),
            writes: Vec::new(),
            session_globs: Vec::new(),
            canonical_schema: crate::canonical::SCHEMA.into(),
        }
    }

    /// The formats `read` reads.
    pub fn reads<S: Into<String>>(mut self, formats: impl IntoIterator<Item = S>) -> CodecInfo {
        self.reads = formats.into_iter().map(Into::into).collect();
        self
    }

    /// The formats `write` writes.
    pub fn writes<S: Into<String>>(mut self, formats: impl IntoIterator<Item = S>) -> CodecInfo {
        self.writes = formats.into_iter().map(Into::into).collect();
        self
    }

    /// The one format read and written.
    pub fn reads_and_writes(self, format: &str) -> CodecInfo {
        self.reads([format]).writes([format])
    }

    /// Where sessions live, relative to a home.
    pub fn globs<S: Into<String>>(mut self, globs: impl IntoIterator<Item = S>) -> CodecInfo {
        self.session_globs = globs.into_iter().map(Into::into).collect();
        self
    }
}

/// Inside `impl Codec for …`, the methods that only call the codec's own
/// modules, each named by its method and, where it is not the usual one,
/// the function it calls:
///
/// | written | the method calls |
/// |---|---|
/// | `discover` | `discover::discover(home)` |
/// | `inspect` | `discover::inspect(home, locator)` |
/// | `read` | `read::Reader::open(home, locator, &options)` |
/// | `read_from` | `read::Reader::resume(home, locator, &start, &options)` |
/// | `sniff` | `sniff::sniff(path, head)` |
/// | `write = f` | `f(options)`, which returns the boxed writer |
/// | `writer` | `Ok(Box::new(write::Writer::new(options)))` |
/// | `prepare` | `prepare::prepare(artifacts, target, &options)`, the artifacts loaded from the export |
/// | `prepare_with_choice` | the same with `&choice` last: the target choice, asked before anything is read |
/// | `prepare_from_export` | `prepare::prepare(artifacts, export, target, &options)`: the codec reads the export itself |
/// | `prepare_from_export_with_choice` | the same with `&choice` last, asked first |
///
/// `discover = f` (and so on) calls `f` instead, with the same arguments.
///
/// ```ignore
/// impl Codec for Toy {
///     type Reader = read::Reader;
///     trajhost_codec_sdk::module_methods!(discover, inspect, read, sniff, writer, prepare);
///     fn info() -> CodecInfo { /* … */ }
/// }
/// ```
#[macro_export]
macro_rules! module_methods {
    () => {};
    (discover $(, $($rest:tt)*)?) => { $crate::module_methods!(discover = discover::discover $(, $($rest)*)?); };
    (discover = $f:path $(, $($rest:tt)*)?) => {
        fn discover(home: &$crate::fs::Dir) -> Result<$crate::Discovery, $crate::CodecError> {
            $f(home)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (inspect $(, $($rest:tt)*)?) => { $crate::module_methods!(inspect = discover::inspect $(, $($rest)*)?); };
    (inspect = $f:path $(, $($rest:tt)*)?) => {
        fn inspect(home: &$crate::fs::Dir, locator: &str) -> Result<$crate::SessionRef, $crate::CodecError> {
            $f(home, locator)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (read $(, $($rest:tt)*)?) => { $crate::module_methods!(read = read::Reader::open $(, $($rest)*)?); };
    (read = $f:path $(, $($rest:tt)*)?) => {
        fn read(
            home: $crate::fs::Dir,
            locator: &str,
            options: $crate::ReadOptions,
        ) -> Result<Self::Reader, $crate::CodecError> {
            $f(home, locator, &options)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (read_from $(, $($rest:tt)*)?) => { $crate::module_methods!(read_from = read::Reader::resume $(, $($rest)*)?); };
    (read_from = $f:path $(, $($rest:tt)*)?) => {
        fn read_from(
            home: $crate::fs::Dir,
            locator: &str,
            start: $crate::ResumePoint,
            options: $crate::ReadOptions,
        ) -> Result<Self::Reader, $crate::CodecError> {
            $f(home, locator, &start, &options)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (sniff $(, $($rest:tt)*)?) => { $crate::module_methods!(sniff = sniff::sniff $(, $($rest)*)?); };
    (sniff = $f:path $(, $($rest:tt)*)?) => {
        fn sniff(path: &str, head: &[u8]) -> Option<$crate::Sniffed> {
            $f(path, head)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (write = $f:path $(, $($rest:tt)*)?) => {
        fn write(options: $crate::WriteOptions) -> Result<Box<dyn $crate::SessionWriter>, $crate::CodecError> {
            $f(options)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (writer $(, $($rest:tt)*)?) => {
        fn write(options: $crate::WriteOptions) -> Result<Box<dyn $crate::SessionWriter>, $crate::CodecError> {
            Ok(Box::new(write::Writer::new(options)))
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (prepare $(, $($rest:tt)*)?) => { $crate::module_methods!(prepare = prepare::prepare $(, $($rest)*)?); };
    (prepare = $f:path $(, $($rest:tt)*)?) => {
        fn prepare(
            artifacts: Vec<$crate::ArtifactInfo>,
            export: &$crate::fs::Dir,
            target: &$crate::fs::Dir,
            options: $crate::WriteOptions,
        ) -> Result<$crate::Plan, $crate::CodecError> {
            let artifacts = $crate::load_artifacts(export, &artifacts)?;
            $f(artifacts, target, &options)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (prepare_from_export $(, $($rest:tt)*)?) => {
        fn prepare(
            artifacts: Vec<$crate::ArtifactInfo>,
            export: &$crate::fs::Dir,
            target: &$crate::fs::Dir,
            options: $crate::WriteOptions,
        ) -> Result<$crate::Plan, $crate::CodecError> {
            prepare::prepare(artifacts, export, target, &options)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (prepare_from_export_with_choice $(, $($rest:tt)*)?) => {
        fn prepare(
            artifacts: Vec<$crate::ArtifactInfo>,
            export: &$crate::fs::Dir,
            target: &$crate::fs::Dir,
            options: $crate::WriteOptions,
        ) -> Result<$crate::Plan, $crate::CodecError> {
            // Asked first: the host refuses a --model or --provider given to a codec that never asks.
            let choice = $crate::target::choice();
            prepare::prepare(artifacts, export, target, &options, &choice)
        }
        $crate::module_methods!($($($rest)*)?);
    };
    (prepare_with_choice $(, $($rest:tt)*)?) => {
        $crate::module_methods!(prepare_with_choice = prepare::prepare $(, $($rest)*)?);
    };
    (prepare_with_choice = $f:path $(, $($rest:tt)*)?) => {
        fn prepare(
            artifacts: Vec<$crate::ArtifactInfo>,
            export: &$crate::fs::Dir,
            target: &$crate::fs::Dir,
            options: $crate::WriteOptions,
        ) -> Result<$crate::Plan, $crate::CodecError> {
            // Asked first: the host refuses a --model or --provider given to a codec that never asks.
            let choice = $crate::target::choice();
            let artifacts = $crate::load_artifacts(export, &artifacts)?;
            $f(artifacts, target, &options, &choice)
        }
        $crate::module_methods!($($($rest)*)?);
    };
}

#[cfg(test)]
mod tests {
    use crate::CodecInfo;

    #[test]
    fn info_of_a_codec() {
        let info = CodecInfo::of("toy", "1.0.0", ">=1.0.0, <2.0.0", "`v` of the first line")
            .reads_and_writes("toy-jsonl")
            .globs(["toy/*.jsonl".to_string()]);
        assert_eq!((info.harness.as_str(), info.codec_version.as_str()), ("toy", "1.0.0"));
        assert_eq!((info.reads, info.writes), (vec!["toy-jsonl".to_string()], vec!["toy-jsonl".to_string()]));
        assert_eq!(info.session_globs, ["toy/*.jsonl"]);
        assert_eq!(info.canonical_schema, crate::canonical::SCHEMA);
        let read_only = CodecInfo::of("toy", "1.0.0", "*", "none").reads(["a", "b"]);
        assert!(read_only.writes.is_empty() && read_only.session_globs.is_empty());
    }
}
