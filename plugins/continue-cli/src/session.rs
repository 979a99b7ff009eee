//! The session document and what `discover` needs from it.
//!
//! History items stay borrowed raw JSON: each one's byte span in the file
//! is where its records point (`src`), and an item that does not parse is
//! reported alone while the others are read.

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::rfc3339_epoch_ms;

use crate::history::Item;
use crate::layout::{self, IndexEntry, UNTITLED};

/// Largest session file read (the CLI rewrites the whole file every turn).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Characters of the first prompt used as a title.
const TITLE_CHARS: usize = 80;

/// The session document (`Session` of the CLI). `usage` (the session's
/// totals) repeats what the assistant items hold.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<'a> {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub workspace_directory: Option<String>,
    #[serde(default, borrow)]
    pub history: Option<Vec<&'a RawValue>>,
}

impl<'a> Document<'a> {
    /// Parses a session file's bytes; an error says why it is not one.
    pub fn parse(bytes: &'a [u8]) -> Result<Document<'a>, String> {
        let doc: Document<'a> = serde_json::from_slice(bytes).map_err(|e| format!("not a JSON object ({e})"))?;
        if doc.history.is_none() {
            return Err("no `history` array".into());
        }
        Ok(doc)
    }

    /// The session id: `sessionId`, else the file name without `.json`
    /// (`false`: a document that names no session).
    pub fn native_id(&self, locator: &str) -> (String, bool) {
        trajhost_codec_sdk::paths::named_or_file_id(self.session_id.as_deref(), locator, layout::JSON)
    }

    /// The raw history items with their byte spans (offset, length) in `bytes`.
    pub fn items(&self, bytes: &[u8]) -> Vec<(&'a RawValue, u64, u64)> {
        trajhost_codec_sdk::json::raw_spans(bytes, self.history.as_deref().unwrap_or_default())
    }

    /// The session's title, unless it is the placeholder every new session
    /// has.
    pub fn title(&self) -> Option<String> {
        self.title.as_deref().map(str::trim).filter(|t| !t.is_empty() && *t != UNTITLED).map(str::to_string)
    }

    /// The title discover lists: the session's, else its first prompt.
    pub fn listed_title(&self) -> Option<String> {
        self.title().or_else(|| {
            self.history.iter().flatten().find_map(|raw| {
                let item: Item = serde_json::from_str(raw.get()).ok()?;
                let message = item.message?;
                if message.role.as_deref() != Some("user") {
                    return None;
                }
                trajhost_codec_sdk::text::title_of(message.content.text().trim(), TITLE_CHARS)
            })
        })
    }

    /// The working directory.
    pub fn cwd(&self) -> Option<String> {
        self.workspace_directory.clone().filter(|c| !c.is_empty())
    }
}

/// When the session started: its index entry's `dateCreated`.
pub fn started_at(entry: Option<&IndexEntry>) -> Option<String> {
    entry.and_then(IndexEntry::created_ms).and_then(rfc3339_epoch_ms)
}

/// The bytes of a session file.
pub fn load(home: &Dir, locator: &str) -> Result<Vec<u8>, CodecError> {
    trajhost_codec_sdk::errors::read_document(home, locator, MAX_FILE_BYTES)
}
