//! A codec's identity, declared once: [`codec_identity!`](crate::codec_identity)
//! writes the constants every codec crate exports (`HARNESS`, `VERSION`,
//! `CODEC`, `NATIVE_VERSIONS`), the codec's unit struct, its `impl Codec`
//! (`info()` from those constants and the formats and globs given, the
//! [`module_methods!`](crate::module_methods) named, any further items) and
//! the [`export_codec!`](crate::export_codec) call, so a codec's `lib.rs`
//! holds only its format's own facts.

/// Declares a codec: its harness, the native versions it reads, where a
/// session shows its version, what it reads and writes, where its sessions
/// live, its reader and the methods that hand over to its modules.
///
/// ```ignore
/// trajhost_codec_sdk::codec_identity! {
///     /// The Toy codec.
///     codec: Toy,
///     harness: "toy",
///     /// Toy versions whose logs this codec reads.
///     native_versions: ">=1.0.0, <2.0.0",
///     version_shows: "`v` of the first line",
///     formats: reads_and_writes("toy-jsonl"),
///     globs: ["toy/*.jsonl"],
///     reader: read::Reader,
///     methods: { discover, inspect, read, writer, prepare },
/// }
/// ```
///
/// That is, in the crate's root:
///
/// - `HARNESS` (the harness id), `VERSION` (the crate's version), `CODEC`
///   (`harness@version`, as `meta.codec` says it) and `NATIVE_VERSIONS`
///   (with the doc given before `native_versions`);
/// - `pub struct Toy;` (with the doc given before `codec`) and its
///   `impl Codec`: `type Reader`, `info()` as
///   `CodecInfo::of(HARNESS, VERSION, NATIVE_VERSIONS, version_shows)`
///   followed by the `formats` calls (`reads([…])`, `writes([…])`,
///   `reads_and_writes(…)`) and `.globs(…)`, then
///   `module_methods! { … }`;
/// - `export_codec!(Toy)`.
///
/// Optional, in this order after `globs`: `writes_for: <range>,` (the
/// codec's [`Codec::WRITES_FOR`](crate::Codec::WRITES_FOR)); after
/// `methods`: `impl { … }`, further items of the `impl Codec` (a method
/// that does more than call a module).
#[macro_export]
macro_rules! codec_identity {
    (
        $(#[$codec_doc:meta])*
        codec: $codec:ident,
        harness: $harness:literal,
        $(#[$native_doc:meta])*
        native_versions: $native:expr,
        version_shows: $source:expr,
        formats: $($format:ident($($format_args:tt)*)).+,
        globs: $globs:expr,
        $(writes_for: $writes_for:expr,)?
        reader: $reader:ty,
        methods: { $($methods:tt)* }
        $(, impl { $($items:tt)* })?
        $(,)?
    ) => {
        /// The harness id.
        pub const HARNESS: &str = $harness;
        /// This codec's version.
        pub const VERSION: &str = ::core::env!("CARGO_PKG_VERSION");
        /// `harness@version`, as `meta.codec` says it.
        pub const CODEC: &str = ::core::concat!($harness, "@", ::core::env!("CARGO_PKG_VERSION"));
        $(#[$native_doc])*
        pub const NATIVE_VERSIONS: &str = $native;

        $(#[$codec_doc])*
        pub struct $codec;

        impl $crate::Codec for $codec {
            type Reader = $reader;

            $(const WRITES_FOR: &'static str = $writes_for;)?

            fn info() -> $crate::CodecInfo {
                $crate::CodecInfo::of(HARNESS, VERSION, NATIVE_VERSIONS, $source)
                    $(.$format($($format_args)*))+
                    .globs($globs)
            }

            $crate::module_methods! { $($methods)* }

            $($($items)*)?
        }

        $crate::export_codec!($codec);
    };
}
