//! `discover` and `inspect`: conversations from directory listings (one stat
//! per entry, by the host's listing), their `manifest.json` and
//! `conversation.json`, and the head of each `messages.jsonl`.
//!
//! Each codec lists the conversations of its own layout ([`Format::layout_of`]
//! their manifest): the schema-1 codec those of schema 1, without a manifest
//! or of a format never seen; the schema-2 codec those of schema 2. So a
//! conversation is listed once, and the codec of its layout reads it (and is
//! the one a target home's layout points prepare at).

use serde_json::Value;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::{fs_error, fs_kind};
use trajhost_codec_sdk::fs::{Dir, DirEntry, FsError};
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::paths::join;
use trajhost_codec_sdk::text::{title_of, type_name};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::Format;
use crate::head::Head;
use crate::layout::{CONVERSATION, CONVERSATIONS, MANIFEST, MESSAGES, SessionPaths, plain_name};
use crate::records::{Row, classify};

pub const TITLE_CHARS: usize = 80;
/// Largest side JSON file read.
pub const MAX_JSON_BYTES: u64 = 4 << 20;

/// What a conversation's side files and head say.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    pub head: Head,
    pub manifest_created_at: Option<String>,
    pub title: Option<String>,
    pub agent_id: Option<String>,
}

/// Every conversation folder under `conversations/` in `layout`; the
/// folder's side files (`manifest.json`, `conversation.json`,
/// `system-prompt.json`) are its own. Anything else there is named in a
/// diagnostic (by the schema-1 codec: folders of no layout are its own).
pub fn discover(home: &Dir, layout: Format) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for folder in discovery::list(home, CONVERSATIONS, &mut problems).unwrap_or_default() {
        let dir = join(CONVERSATIONS, &folder.name);
        if !folder.is_dir() || !plain_name(&folder.name) {
            if layout == Format::Messages {
                problems.unrecognized(&dir, "not a conversation folder");
            }
            continue;
        }
        if layout_of_folder(home, &dir) != layout {
            continue;
        }
        let Some(files) = discovery::list(home, &dir, &mut problems) else { continue };
        if !files.iter().any(|f| f.is_file() && f.name == MESSAGES) {
            problems.add("no-messages-file", Severity::Info, &dir, "conversation folder without messages.jsonl");
            continue;
        }
        let Ok(paths) = SessionPaths::from_locator(&join(&dir, MESSAGES)) else {
            problems.unrecognized(&dir, "not a conversation folder");
            continue;
        };
        let mut diags = Diagnostics::new();
        if let Some((session, _)) = session_ref(home, &paths, &files, &mut diags) {
            sessions.push(session);
        }
        problems.absorb(&mut diags, &paths.locator);
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

/// The conversation at `locator`, when it is in `layout` (another layout's
/// is its own codec's: not found here, naming that codec).
pub fn inspect(home: &Dir, locator: &str, layout: Format) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let files = home.list(&paths.dir).map_err(|e| fs_error(&paths.dir, e))?;
    let found = layout_of_folder(home, &paths.dir);
    if found != layout {
        return Err(CodecError::NotFound(format!(
            "{locator}: a schema-{} ({}) conversation, read by {}",
            found.schema_version(),
            found.message_format(),
            found.codec()
        )));
    }
    let mut diags = Diagnostics::new();
    session_ref(home, &paths, &files, &mut diags)
        .map(|(s, _)| s)
        .ok_or_else(|| CodecError::NotFound(format!("{locator}: no Letta Code messages")))
}

/// The layout of a conversation folder: its manifest's; without one, a
/// transcript that opens with a schema-2 `session` header is schema 2 (a
/// written export before `prepare` adds the manifest), anything else schema
/// 1 (an unversioned legacy transcript is never in entries). A manifest that
/// does not parse is reported by [`session_ref`].
pub fn layout_of_folder(home: &Dir, dir: &str) -> Format {
    if let Some(manifest) = read_json(home, &join(dir, MANIFEST), &mut Diagnostics::new()) {
        return Format::layout_of(Some(&manifest));
    }
    let head = home.open(&join(dir, MESSAGES)).and_then(|f| f.read_at(0, FIRST_LINE_BYTES)).unwrap_or_default();
    let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
    match serde_json::from_slice::<Value>(first) {
        Ok(value) if matches!(classify(&value), Row::Header(_)) => Format::Entries,
        _ => Format::Messages,
    }
}

/// Most of a transcript's first line read to tell its format (a `session`
/// header is short).
const FIRST_LINE_BYTES: u32 = 16 * 1024;

pub fn session_ref(
    home: &Dir,
    paths: &SessionPaths,
    files: &[DirEntry],
    diags: &mut Diagnostics,
) -> Option<(SessionRef, Facts)> {
    let messages = files.iter().find(|f| f.is_file() && f.name == MESSAGES)?;
    let head = match Head::scan(home, &paths.locator) {
        Ok(head) => head,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(&paths.locator), None);
            return None;
        }
    };
    if !head.has_rows {
        // An agent's default conversation before its first message.
        diags.add("empty-session", Severity::Info, MESSAGES, Some(&paths.dir), None);
        return None;
    }
    let manifest = read_json(home, &paths.in_dir(MANIFEST), diags).unwrap_or(Value::Null);
    if let Some(format) =
        str_of(&manifest, "message_format").filter(|f| !Format::ALL.iter().any(|k| k.message_format() == *f))
    {
        diags.add("unknown-format", Severity::Warning, &type_name(Some(format)), Some(&paths.dir), None);
    }
    let conversation = read_json(home, &paths.in_dir(CONVERSATION), diags).unwrap_or(Value::Null);
    let facts = Facts {
        manifest_created_at: str_of(&manifest, "created_at").map(str::to_string),
        title: str_of(&conversation, "summary")
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
            .or_else(|| head.first_prompt.as_deref().and_then(|p| title_of(p, TITLE_CHARS))),
        agent_id: str_of(&conversation, "agent_id").map(str::to_string),
        head,
    };
    // A folder not named by its key is identified by its conversation.json.
    let native_id = match (paths.named_by_key, str_of(&conversation, "id")) {
        (false, Some("default")) => facts.agent_id.as_ref().map(|a| format!("default:{a}")),
        (false, Some(id)) => Some(id.to_string()),
        _ => None,
    };
    let session = SessionRef {
        native_id: native_id.unwrap_or_else(|| paths.native_id.clone()),
        locator: paths.locator.clone(),
        cwd: facts.head.cwd.clone(),
        started_at: facts.head.started_at.clone().or(facts.manifest_created_at.clone()),
        updated_at: messages.meta.modified_ms.map(rfc3339_ms),
        size: files.iter().filter(|f| f.is_file()).map(|f| f.meta.size).sum(),
        native_version: facts.head.version.clone(),
        title: facts.title.clone(),
    };
    Some((session, facts))
}

fn read_json(home: &Dir, path: &str, diags: &mut Diagnostics) -> Option<Value> {
    match home.read_to_end(path, MAX_JSON_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|_| diags.add("malformed-file", Severity::Warning, "json", Some(path), None))
            .ok(),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(path), None);
            None
        }
    }
}
