//! Where Factory Droid keeps sessions under a home directory.
//!
//! ```text
//! ~/.factory/sessions/<cwd with "/" → "-">/<sessionId>.jsonl           transcript
//! ~/.factory/sessions/<cwd with "/" → "-">/<sessionId>.settings.json   model, autonomy, token totals
//! ~/.factory/sessions/<cwd with "/" → "-">/<sessionId>.settings.json.bak
//! ```

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::join;

/// Session project directories, relative to the home.
pub const SESSIONS: &str = ".factory/sessions";
/// Extension of transcript files.
pub const JSONL: &str = ".jsonl";
/// Extension of the settings file beside a transcript.
pub const SETTINGS: &str = ".settings.json";
/// The backup Droid keeps of a settings file when it rewrites it.
pub const SETTINGS_BAK: &str = ".settings.json.bak";

/// The paths of one session, relative to the home.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// The file stem: the session id.
    pub native_id: String,
}

impl SessionPaths {
    /// Splits a locator `.factory/sessions/<slug>/<sessionId>.jsonl`.
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        let rest = trajhost_codec_sdk::paths::below_root(locator, SESSIONS, "not under .factory/sessions")?;
        let Some((_, file)) = rest.split_once('/').filter(|(_, f)| !f.contains('/')) else {
            return Err(bad("not <project>/<sessionId>.jsonl"));
        };
        let stem = file.strip_suffix(JSONL).filter(|s| !s.is_empty()).ok_or_else(|| bad("not a .jsonl file"))?;
        Ok(SessionPaths { locator: locator.to_string(), native_id: stem.to_string() })
    }

    /// Settles the session id with the one `session_start` carries: a stem
    /// that is a UUID (Droid names files by it) wins, `true` when the
    /// content disagrees; any other stem (a renamed copy) gives way.
    pub fn identify(&mut self, content_id: Option<&str>) -> bool {
        trajhost_codec_sdk::discovery::identify_uuid_named(&mut self.native_id, content_id)
    }
}
