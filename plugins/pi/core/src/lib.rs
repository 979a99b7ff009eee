//! The Pi session format, shared by the Pi (`plugins/pi`) and Oh My Pi
//! (`plugins/omp`) codecs. Oh My Pi is a fork of Pi that keeps Pi's JSONL
//! tree (format version 3) and adds a title slot line, more entry types and
//! a different folder rule; a [`Flavor`] names those differences, and every
//! operation here takes one.
//!
//! Module map:
//! - [`layout`]: sessions folders, cwd-derived folder names, file names;
//! - [`native`]: lenient access to the JSON of one line;
//! - [`head`]: session facts from the head of a file (discover, `meta`);
//! - [`discover`]: `discover` and `inspect`;
//! - [`read`]: the two-pass reader (the tree, then the active branch);
//! - [`records`]: entry types → canonical records, and the `KNOWN_*` lists;
//! - [`write`]: canonical records → one session file;
//! - [`prepare`]: the install plan for a target home.
//!
//! This crate exports no component: the codec crates do, so both can link it.

pub mod discover;
pub mod head;
pub mod layout;
pub mod native;
pub mod pi_ai;
pub mod prepare;
pub mod read;
pub mod records;
#[cfg(not(target_arch = "wasm32"))]
#[cfg(not(target_arch = "wasm32"))]
pub mod testkit;
pub mod time;
pub mod write;

use trajhost_codec_sdk::CodecInfo;

#[doc(hidden)]
pub use trajhost_codec_sdk as sdk;

pub use records::{Handling, KNOWN_MESSAGE_ROLES, OMP_ENTRY_TYPES, PI_ENTRY_TYPES};

/// The codec version (the workspace version, shared by both codecs).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How a harness derives the folder of a cwd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirRule {
    /// `--<abs cwd>--`.
    Pi,
    /// `-<home-relative>`, `-tmp-<tmp-relative>`, else Pi's.
    Omp,
}

/// What differs between Pi and Oh My Pi.
#[derive(Debug)]
pub struct Flavor {
    /// Harness id, as `info` and `meta.harness` say it.
    pub harness: &'static str,
    /// `harness@version`, as `meta.codec` says it.
    pub codec: &'static str,
    /// The format name in `info.reads`/`writes`.
    pub format: &'static str,
    /// Sessions root relative to the home.
    pub sessions_dir: &'static str,
    pub dir_rule: DirRule,
    /// Files start with Oh My Pi's fixed-width title slot line; `write` writes one.
    pub title_slot: bool,
    /// `model_change` carries `model: "provider/modelId"` (Oh My Pi) instead
    /// of `provider` + `modelId` (Pi).
    pub combined_model_change: bool,
    /// User messages carry `attribution: "user"`.
    pub user_attribution: bool,
    /// Every entry type the harness is known to write, and its handling.
    pub entry_types: &'static [(&'static str, Handling)],
    /// The CLI program and its resume flag, for the resume command.
    pub program: &'static str,
    pub resume_flag: &'static str,
    /// What `info.native-versions` says.
    pub native_versions: &'static str,
}

/// Pi (`@mariozechner/pi-coding-agent`; fixtures of 0.73.1). Reads format
/// versions 1 to 3 (Pi itself migrates 1 and 2 on load), writes 3.
pub static PI: Flavor = Flavor {
    harness: "pi",
    codec: concat!("pi@", env!("CARGO_PKG_VERSION")),
    format: "pi-session-jsonl",
    sessions_dir: ".pi/agent/sessions",
    dir_rule: DirRule::Pi,
    title_slot: false,
    combined_model_change: false,
    user_attribution: false,
    entry_types: PI_ENTRY_TYPES,
    program: "pi",
    resume_flag: "--session",
    native_versions: ">=1.0.0, <4.0.0",
};

/// Oh My Pi (`@oh-my-pi/pi-coding-agent`; fixtures of 18.2.3). Reads format
/// versions 1 to 3 like Pi, writes 3.
pub static OMP: Flavor = Flavor {
    harness: "oh-my-pi",
    codec: concat!("oh-my-pi@", env!("CARGO_PKG_VERSION")),
    format: "omp-session-jsonl",
    sessions_dir: ".omp/agent/sessions",
    dir_rule: DirRule::Omp,
    title_slot: true,
    combined_model_change: true,
    user_attribution: true,
    entry_types: OMP_ENTRY_TYPES,
    program: "omp",
    resume_flag: "--resume",
    native_versions: ">=1.0.0, <4.0.0",
};

/// `info` of a flavor's codec.
pub fn info(flavor: &Flavor) -> CodecInfo {
    CodecInfo::of(
        flavor.harness,
        VERSION,
        flavor.native_versions,
        "`version` of the `session` header line: the session format version \
             (the CLI does not record its own version in the file)",
    )
    .reads_and_writes(flavor.format)
    .globs([format!("{}/*/*.jsonl", flavor.sessions_dir)])
}

/// Defines and exports the codec of one [`Flavor`], `$codec`: Pi and Oh My
/// Pi differ only in it.
#[macro_export]
macro_rules! flavor_codec {
    ($(#[$attr:meta])* $codec:ident, $flavor:expr) => {
        $(#[$attr])*
        pub struct $codec;

        impl $crate::sdk::Codec for $codec {
            type Reader = $crate::read::Reader;

            fn info() -> $crate::sdk::CodecInfo {
                $crate::info(&$flavor)
            }

            fn discover(home: &$crate::sdk::fs::Dir) -> Result<$crate::sdk::Discovery, $crate::sdk::CodecError> {
                $crate::discover::discover(&$flavor, home)
            }

            fn inspect(
                home: &$crate::sdk::fs::Dir,
                locator: &str,
            ) -> Result<$crate::sdk::SessionRef, $crate::sdk::CodecError> {
                $crate::discover::inspect(home, locator)
            }

            fn read(
                home: $crate::sdk::fs::Dir,
                locator: &str,
                options: $crate::sdk::ReadOptions,
            ) -> Result<Self::Reader, $crate::sdk::CodecError> {
                $crate::read::Reader::open(&$flavor, home, locator, &options)
            }

            fn read_from(
                home: $crate::sdk::fs::Dir,
                locator: &str,
                start: $crate::sdk::ResumePoint,
                options: $crate::sdk::ReadOptions,
            ) -> Result<Self::Reader, $crate::sdk::CodecError> {
                $crate::read::Reader::resume(&$flavor, home, locator, &start, &options)
            }

            fn write(
                options: $crate::sdk::WriteOptions,
            ) -> Result<Box<dyn $crate::sdk::SessionWriter>, $crate::sdk::CodecError> {
                Ok($crate::sdk::WholeDocument::boxed(options, |session, options| {
                    $crate::write::write(&$flavor, session, options)
                }))
            }

            fn prepare(
                artifacts: Vec<$crate::sdk::ArtifactInfo>,
                export: &$crate::sdk::fs::Dir,
                target: &$crate::sdk::fs::Dir,
                options: $crate::sdk::WriteOptions,
            ) -> Result<$crate::sdk::Plan, $crate::sdk::CodecError> {
                let artifacts = $crate::sdk::load_artifacts(export, &artifacts)?;
                $crate::prepare::prepare(&$flavor, artifacts, target, &options)
            }
        }

        $crate::sdk::export_codec!($codec);
    };
}
