//! `discover`: the legacy session files under a home.
//!
//! Only `chats/session-*.json` of each project directory is this codec's
//! layout; everything else in `chats/` (the JSONL log, subagent folders,
//! stray files) is the JSONL codec's to place or report. A session file
//! that is not a `ConversationRecord` is a diagnostic naming it.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef};

use crate::conversation::{self, Document};
use crate::layout::{self, CHATS, TMP_ROOT};

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    let mut registry = None;
    for project in discovery::list(home, TMP_ROOT, &mut problems).unwrap_or_default().iter().filter(|e| e.is_dir()) {
        let project_dir = layout::join(TMP_ROOT, &project.name);
        let chats_dir = layout::join(&project_dir, CHATS);
        let Some(mut entries) = discovery::list(home, &chats_dir, &mut problems) else { continue };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let mut cwd: Option<Option<String>> = None;
        for entry in entries.iter().filter(|e| layout::is_session_name(&e.name)) {
            let locator = layout::join(&chats_dir, &entry.name);
            if !entry.is_file() {
                problems.unrecognized(&locator, "a legacy session file (session-*.json), not a directory");
                continue;
            }
            if entry.meta.size == 0 {
                problems.empty(&locator, "json");
                continue;
            }
            let cwd = cwd.get_or_insert_with(|| layout::project_root(home, &project_dir, &mut registry)).clone();
            problems.place(&locator, session_ref(home, &locator, &entry.meta, cwd), "sessionId", &mut sessions);
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one file, as `discover` gives it; a loose copy (the
/// host sniffed it) is read where it lies, without a project root.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    layout::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
    let cwd = layout::project_dir(locator).and_then(|dir| layout::project_root(home, &dir, &mut None));
    session_ref(home, locator, &meta, cwd).map(|(s, _)| s)
}

/// A document without `sessionId` (named by its file).
pub use trajhost_codec_sdk::discovery::NO_SESSION_ID;

fn session_ref(
    home: &Dir,
    locator: &str,
    meta: &Metadata,
    cwd: Option<String>,
) -> Result<(SessionRef, bool), CodecError> {
    let bytes = conversation::load(home, locator)?;
    let doc =
        Document::parse(&bytes).map_err(|why| CodecError::Malformed(format!("not a Gemini CLI session: {why}")))?;
    let (native_id, named) = doc.native_id(locator);
    let session = SessionRef {
        native_id,
        locator: locator.to_string(),
        cwd,
        started_at: doc.started_at(),
        updated_at: doc.last_updated.clone().filter(|s| !s.is_empty()).or_else(|| meta.modified_ms.map(rfc3339_ms)),
        size: meta.size,
        native_version: None,
        title: doc.title(),
    };
    Ok((session, named))
}
