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
//!   [`v1`]: the first message shape (parts inline in the message file);
//! - [`write`]: canonical records → the per-project tree of OpenCode < 0.6
//!   (the layout 0.5.29 reads); [`prepare`]: those files into the target's
//!   project tree, and the resume command.
//!
//! Two JSON layouts lived in 0.x: the per-project trees
//! (`project/<slug>/storage/session/{info,message,part}`, to 0.5.x) and from
//! 0.6.0 the global tree (`storage/{session/<projectID>,message,part}`, to
//! the SQLite store of 1.x). This codec reads both and writes the first
//! ([`WRITES_FOR`]): the one OpenCode 0.5.29 reads (it has no `import`
//! command, so the files are the way in). The `opencode` codec writes for
//! 1.x; no codec writes the global tree of 0.6–0.x yet.

pub mod discover;
pub mod info;
pub mod layout;
pub mod message;
pub mod prepare;
pub mod read;
pub mod sniff;
pub mod v1;
pub mod write;

use trajhost_codec_sdk::{Codec, CodecInfo};

/// The harness id (shared with the other OpenCode codec).
pub use trajhost_opencode_core::HARNESS;
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
/// The format written: the per-project JSON tree of OpenCode before 0.6.
pub const WRITES: &str = "opencode-project-storage-json";
/// OpenCode versions whose per-project tree the writer writes: up to 0.6.0,
/// which moved sessions into the global tree (its first storage migration).
/// Verified with 0.5.29.
pub const WRITES_FOR: &str = ">=0.0.1, <0.6.0";

/// Whether `version` lies in [`WRITES_FOR`].
pub fn writes_for(version: &str) -> bool {
    !layout::version_at_least(version, (0, 6, 0)) && layout::version_at_least(version, (0, 0, 1))
}
// The record types and their handling, shared with the other OpenCode codec.
pub use trajhost_opencode_core::{Handling, KNOWN_RECORD_TYPES, handling, type_name};

/// The OpenCode storage-tree codec.
pub struct OpenCodeStorage;

impl Codec for OpenCodeStorage {
    type Reader = read::Reader;

    const WRITES_FOR: &'static str = WRITES_FOR;

    fn info() -> CodecInfo {
        CodecInfo::of(
            HARNESS,
            VERSION,
            NATIVE_VERSIONS,
            "`version` of the session file (the OpenCode version that created the session)",
        )
        .reads([READS])
        .writes([WRITES])
        .globs([
            format!("{}/{}/*/*.json", layout::STORAGE, layout::SESSION),
            format!("{}/*/{}/{}/*/*.json", layout::PROJECTS, layout::PROJECT_STORAGE, layout::SESSION),
        ])
    }

    trajhost_codec_sdk::module_methods! { discover, inspect, read, sniff, writer, prepare_from_export }
}

trajhost_codec_sdk::export_codec!(OpenCodeStorage);
