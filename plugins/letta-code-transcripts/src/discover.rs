//! `discover` and `inspect`: the conversation folders under each agent
//! folder of `.letta/transcripts/`, from directory listings (one stat per
//! entry) and the head of each `transcript.jsonl` (title, start).

use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::discovery::{self, FileProblems};
use trajhost_codec_sdk::errors::{fs_error, fs_kind};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::paths::plain_name;
use trajhost_codec_sdk::text::title_of;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, Discovery, SessionRef, Severity};

use crate::entries::Entry;
use crate::layout::{PAYLOADS, ROOT, STATE, STATE_LOCK, SessionPaths, TRANSCRIPT, join};

pub const TITLE_CHARS: usize = 80;
/// Bytes of a transcript scanned for its title and start.
pub const HEAD_BYTES: u32 = 64 * 1024;

/// Every `<agent>/<conversation>/transcript.jsonl`; `state.json` beside it
/// is the conversation's own, the agent's `multi-reflection-payloads/` is
/// noted once. Anything else is named in a diagnostic.
pub fn discover(home: &Dir) -> Result<Discovery, CodecError> {
    let mut problems = FileProblems::new();
    let mut sessions = Vec::new();
    for agent in discovery::list(home, ROOT, &mut problems).unwrap_or_default() {
        let agent_dir = join(ROOT, &agent.name);
        if !agent.is_dir() || !plain_name(&agent.name) {
            problems.unrecognized(&agent_dir, "not an agent folder");
            continue;
        }
        for conversation in discovery::list(home, &agent_dir, &mut problems).unwrap_or_default() {
            let dir = join(&agent_dir, &conversation.name);
            if conversation.is_dir() && conversation.name == PAYLOADS {
                problems.add(
                    "unmapped-directory",
                    Severity::Info,
                    &dir,
                    "reflection payloads (slices of transcripts), not sessions",
                );
                continue;
            }
            if !conversation.is_dir() || !plain_name(&conversation.name) {
                problems.unrecognized(&dir, "not a conversation folder");
                continue;
            }
            let Some(files) = discovery::list(home, &dir, &mut problems) else { continue };
            for file in &files {
                if !(file.is_file() && [TRANSCRIPT, STATE, STATE_LOCK].contains(&file.name.as_str())) {
                    problems.unrecognized(&join(&dir, &file.name), "transcript.jsonl or state.json");
                }
            }
            let Some(transcript) = files.iter().find(|f| f.is_file() && f.name == TRANSCRIPT) else {
                problems.add(
                    "no-transcript-file",
                    Severity::Info,
                    &dir,
                    "conversation folder without transcript.jsonl",
                );
                continue;
            };
            let paths = match SessionPaths::from_locator(&join(&dir, TRANSCRIPT)) {
                Ok(p) => p,
                Err(_) => {
                    problems.unrecognized(&dir, "not a conversation folder");
                    continue;
                }
            };
            let size = files
                .iter()
                .filter(|f| f.is_file() && (f.name == TRANSCRIPT || f.name == STATE))
                .map(|f| f.meta.size)
                .sum();
            let mut diags = Diagnostics::new();
            if let Some(session) = session_ref(home, &paths, size, transcript.meta.modified_ms, &mut diags) {
                sessions.push(session);
            }
            problems.absorb(&mut diags, &paths.locator);
        }
    }
    Ok(problems.finish(sessions, Diagnostics::new()))
}

pub fn inspect(home: &Dir, locator: &str) -> Result<SessionRef, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let meta = home.stat(locator).map_err(|e| fs_error(locator, e))?;
    let state = home.stat(&paths.in_dir(STATE)).map(|m| m.size).unwrap_or(0);
    let mut diags = Diagnostics::new();
    session_ref(home, &paths, meta.size + state, meta.modified_ms, &mut diags)
        .ok_or_else(|| CodecError::NotFound(format!("{locator}: no Letta Code transcript entries")))
}

/// What the head of a transcript says.
#[derive(Debug, Default, Clone)]
pub struct Head {
    pub started_at: Option<String>,
    pub first_prompt: Option<String>,
    pub has_entries: bool,
}

pub fn head(home: &Dir, path: &str) -> Result<Head, trajhost_codec_sdk::fs::FsError> {
    let bytes = home.open(path)?.read_at(0, HEAD_BYTES)?;
    let mut head = Head::default();
    for line in bytes.split(|b| *b == b'\n') {
        let Some(entry) = Entry::parse(line) else { continue };
        head.has_entries = true;
        if head.started_at.is_none() {
            head.started_at = entry.captured_at.clone();
        }
        if head.first_prompt.is_none() && entry.kind.as_deref() == Some("user") {
            head.first_prompt = entry.text.as_deref().and_then(|t| title_of(t, TITLE_CHARS));
        }
        if head.first_prompt.is_some() {
            break;
        }
    }
    Ok(head)
}

pub fn session_ref(
    home: &Dir,
    paths: &SessionPaths,
    size: u64,
    modified_ms: Option<i64>,
    diags: &mut Diagnostics,
) -> Option<SessionRef> {
    let head = match head(home, &paths.locator) {
        Ok(head) => head,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, fs_kind(&e), Some(&paths.locator), None);
            return None;
        }
    };
    if !head.has_entries {
        // `ensurePaths` creates the file before the first step is appended.
        diags.add("empty-session-file", Severity::Info, TRANSCRIPT, Some(&paths.locator), None);
        return None;
    }
    Some(SessionRef {
        native_id: paths.native_id.clone(),
        locator: paths.locator.clone(),
        cwd: None,
        started_at: head.started_at,
        updated_at: modified_ms.map(rfc3339_ms),
        size,
        native_version: None,
        title: head.first_prompt,
    })
}
