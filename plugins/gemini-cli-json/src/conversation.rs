//! The `ConversationRecord` document and what `discover` needs from it.
//!
//! Messages stay borrowed raw JSON: each one's byte span in the file is
//! where its records point (`src`), and a message that does not parse is
//! reported alone while the others are read.

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;

use crate::message::{Message, harness_context_kind};

/// Largest session file read (the harness rewrote the whole file on every
/// change; real ones stay far below).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Characters of the first prompt used as a title when there is no summary.
const TITLE_CHARS: usize = 80;

/// `ConversationRecord` (`chatRecordingService.ts` before 0.39). Keys other
/// than these (`kind:"chat"`, `meta`, `directories`) carry nothing a session
/// record needs.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<'a> {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub project_hash: Option<String>,
    #[serde(default)]
    pub start_time: Option<String>,
    #[serde(default)]
    pub last_updated: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default, borrow)]
    pub messages: Option<Vec<&'a RawValue>>,
}

impl<'a> Document<'a> {
    /// Parses a session file's bytes; an error says why it is not one.
    pub fn parse(bytes: &'a [u8]) -> Result<Document<'a>, String> {
        let doc: Document<'a> = serde_json::from_slice(bytes).map_err(|e| format!("not a JSON object ({e})"))?;
        if doc.messages.is_none() {
            return Err("no `messages` array".into());
        }
        Ok(doc)
    }

    /// The session id: `sessionId`, else the file name without `.json`
    /// (`false`: a document that names no session).
    pub fn native_id(&self, locator: &str) -> (String, bool) {
        trajhost_codec_sdk::paths::named_or_file_id(self.session_id.as_deref(), locator, crate::layout::JSON)
    }

    /// The raw messages with their byte spans (offset, length) in `bytes`.
    pub fn messages(&self, bytes: &[u8]) -> Vec<(&'a RawValue, u64, u64)> {
        trajhost_codec_sdk::json::raw_spans(bytes, self.messages.as_deref().unwrap_or_default())
    }

    /// The session summary, else the first prompt the person typed.
    pub fn title(&self) -> Option<String> {
        if let Some(summary) = self.summary.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            return Some(summary.to_string());
        }
        self.messages.iter().flatten().find_map(|raw| {
            let m: Message = serde_json::from_str(raw.get()).ok()?;
            if m.kind.as_deref() != Some("user") {
                return None;
            }
            prompt_title(&m.content.text())
        })
    }

    /// The header's `startTime`, else the first message's timestamp.
    pub fn started_at(&self) -> Option<String> {
        self.start_time.clone().filter(|s| !s.is_empty()).or_else(|| {
            self.messages.iter().flatten().find_map(|raw| {
                #[derive(Deserialize)]
                struct Ts {
                    timestamp: Option<String>,
                }
                serde_json::from_str::<Ts>(raw.get()).ok()?.timestamp
            })
        })
    }
}

/// The title a prompt gives a session without a summary; `None` for text
/// that is no prompt (empty, a slash command, harness context).
pub fn prompt_title(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() || t.starts_with('/') || t.starts_with('?') || harness_context_kind(t).is_some() {
        return None;
    }
    trajhost_codec_sdk::text::title_of(t, TITLE_CHARS)
}

/// The bytes of a session file.
pub fn load(home: &Dir, locator: &str) -> Result<Vec<u8>, CodecError> {
    trajhost_codec_sdk::errors::read_document(home, locator, MAX_FILE_BYTES)
}
