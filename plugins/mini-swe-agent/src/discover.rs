//! `discover` and `inspect`: the trajectories in mini's global config
//! folder.
//!
//! `.config/mini-swe-agent/` is mini's config folder too: its `.env` (what
//! `mini-extra config` sets) and YAML configs are the harness's own and not
//! sessions; any other file there is named in a diagnostic.

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::detail_of;
use trajhost_codec_sdk::fs::{Dir, Metadata};
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::document::{self, Document};
use crate::{STORE, TRAJ_SUFFIX};

/// Files of the config folder that are mini's configuration.
fn is_config(name: &str) -> bool {
    name == ".env" || name.ends_with(".yaml") || name.ends_with(".yml")
}

pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut sessions = Vec::new();
    let mut problems = FileProblems::new();
    let mut entries = discovery::list(home, STORE, &mut problems).unwrap_or_default();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in entries {
        let locator = join(STORE, &entry.name);
        if !entry.name.ends_with(TRAJ_SUFFIX) {
            if !(entry.is_file() && is_config(&entry.name)) {
                problems.unrecognized(&locator, "a mini-swe-agent trajectory (*.traj.json)");
            }
            continue;
        }
        if !entry.is_file() {
            problems.unrecognized(&locator, "a trajectory file, not a directory");
            continue;
        }
        if entry.meta.size == 0 {
            problems.empty(&locator, "json");
            continue;
        }
        match session_ref(home, &locator, &entry.meta) {
            Ok(s) => sessions.push(s),
            Err(CodecError::Malformed(why)) => problems.malformed_head(&locator, &why),
            Err(e) => problems.add("unreadable-file", Severity::Warning, &locator, &detail_of(&locator, &e)),
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The session-ref of one file, as `discover` gives it; a loose copy (the
/// host sniffed it) is read where it lies.
pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    document::check_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
    session_ref(home, locator, &meta)
}

fn session_ref(home: &Dir, locator: &str, meta: &Metadata) -> Result<SessionRef, CodecError> {
    let bytes = document::load(home, locator)?;
    let doc = Document::parse(&bytes)
        .map_err(|why| CodecError::Malformed(format!("not a mini-swe-agent trajectory: {why}")))?;
    Ok(SessionRef {
        native_id: doc.native_id(),
        locator: locator.to_string(),
        cwd: doc.cwd(),
        started_at: doc.started_at(),
        updated_at: meta.modified_ms.map(rfc3339_ms),
        size: meta.size,
        native_version: doc.native_version(),
        title: doc.title(),
    })
}
