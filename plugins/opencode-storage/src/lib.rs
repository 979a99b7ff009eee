//! trajhost codec for OpenCode's legacy JSON storage tree, the store OpenCode
//! kept before its SQLite database (`opencode.db`, read by the `opencode`
//! codec `0.1.0`) and imported into it once (`storage/json-migration.ts`):
//!
//! ```text
//! ~/.local/share/opencode/storage/session/<projectID>/<sessionID>.json   Session.Info
//! ~/.local/share/opencode/storage/message/<sessionID>/<messageID>.json   MessageV2.Info
//! ~/.local/share/opencode/storage/part/<messageID>/<partID>.json         MessageV2.Part
//! ```
//!
//! plus `project/`, `todo/`, `permission/`, `session_share/`, `session_diff/`
//! and the `migration` marker, which hold nothing of a transcript. The oldest
//! trees kept `session/info/<id>.json`, `session/message/<sessionID>/…` and
//! `session/part/<sessionID>/<messageID>/…` (one tree per project before 0.6,
//! `~/.local/share/opencode/project/<slug>/storage/`), and the first releases kept a
//! message's parts inline in its file ([`v1`]); those are read too.
//!
//! Module map:
//! - [`layout`]: the tree, locators (the session file) and where a session's
//!   messages and a message's parts are;
//! - [`info`]: the session file (`Session.Info`);
//! - [`discover`]: `discover` and `inspect`; [`sniff`]: a loose session file;
//! - [`read`]: the batch reader; [`message`]: messages and parts → records;
//!   [`v1`]: the first message shape (parts inline in the message file).
//!
//! Writing is not implemented (a legacy layout); the `opencode` codec writes.

pub mod discover;
pub mod info;
pub mod layout;
pub mod message;
pub mod read;
pub mod sniff;
pub mod v1;

use trajhost_codec_sdk::canonical::SCHEMA;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, CodecError, CodecInfo, Discovery, ReadOptions, SessionRef, Sniffed};

pub use trajhost_codec_sdk::known::Handling;

/// The harness id (the same harness as the SQLite codec).
pub const HARNESS: &str = "opencode";
/// This codec's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `harness@version`, as `meta.codec` says it.
pub const CODEC: &str = concat!("opencode@", env!("CARGO_PKG_VERSION"));
/// OpenCode versions that kept the JSON tree: from the first releases to
/// the SQLite migration in 1.x (wide: the exact release is not pinned, and a
/// migrated home keeps its tree).
pub const NATIVE_VERSIONS: &str = ">=0.0.1, <2.0.0";
/// The format read.
pub const READS: &str = "opencode-storage-json";

/// Every message role (`message/<role>`) and part type (`part/<type>`)
/// OpenCode is known to write (`session/message-v2.ts`).
pub const KNOWN_RECORD_TYPES: &[(&str, Handling)] = &[
    ("message/user", Handling::Mapped("user")),
    ("message/assistant", Handling::Mapped("assistant (compaction when summary)")),
    ("part/text", Handling::Mapped("user or assistant text; system when synthetic")),
    ("part/reasoning", Handling::Mapped("reasoning")),
    ("part/tool", Handling::Mapped("tool_call, tool_result")),
    ("part/step-finish", Handling::Mapped("assistant.stop_reason")),
    ("part/file", Handling::Mapped("user attachment; observation file on assistant messages")),
    ("part/compaction", Handling::Mapped("compaction (summary = the next summary message)")),
    ("part/subtask", Handling::Mapped("observation subtask")),
    ("part/agent", Handling::Mapped("observation agent")),
    ("part/retry", Handling::Mapped("observation retry")),
    ("part/patch", Handling::Mapped("observation patch")),
    // Step boundaries and file-system snapshot hashes.
    ("part/step-start", Handling::Reported),
    ("part/snapshot", Handling::Reported),
];

/// How `kind` is handled; `None` for a type never seen.
pub fn handling(kind: &str) -> Option<Handling> {
    trajhost_codec_sdk::known::lookup(KNOWN_RECORD_TYPES, kind)
}

/// A type name safe for a diagnostic detail (no content).
pub fn type_name(kind: &str) -> String {
    let clean: String =
        kind.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')).take(64).collect();
    if clean.is_empty() { "<odd>".to_string() } else { clean }
}

/// The OpenCode storage-tree codec.
pub struct OpenCodeStorage;

impl Codec for OpenCodeStorage {
    type Reader = read::Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: HARNESS.into(),
            codec_version: VERSION.into(),
            native_versions: NATIVE_VERSIONS.into(),
            native_version_source: "`version` of the session file (the OpenCode version that created the session)"
                .into(),
            reads: vec![READS.into()],
            writes: Vec::new(),
            session_globs: vec![
                format!("{}/{}/*/*.json", layout::STORAGE, layout::SESSION),
                format!("{}/*/{}/{}/*/*.json", layout::PROJECTS, layout::PROJECT_STORAGE, layout::SESSION),
            ],
            canonical_schema: SCHEMA.into(),
        }
    }

    fn discover(home: &Dir) -> Result<Discovery, CodecError> {
        discover::discover(home)
    }

    fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
        discover::inspect(home, locator)
    }

    fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
        sniff::sniff(path, head)
    }

    fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
        read::Reader::open(home, locator, &options)
    }
}

trajhost_codec_sdk::export_codec!(OpenCodeStorage);
