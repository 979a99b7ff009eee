//! The session document and what `discover` needs from it.
//!
//! Exchanges stay borrowed raw JSON: each one's byte span in the file is
//! where its records point (`src`), and an exchange that does not parse is
//! reported alone while the others are read.

use serde::Deserialize;
use serde_json::value::RawValue;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms};

use crate::exchange::Entry;
use crate::layout;

/// Largest session file read (the CLI rewrites the whole file every turn).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Characters of the first prompt used as a title.
const TITLE_CHARS: usize = 80;

/// The session document. `agentState`, `rootTaskUuid`, `terminalId` and the
/// sub-agent totals hold nothing a record carries but the model.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<'a> {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub modified: Option<String>,
    #[serde(default, borrow)]
    pub chat_history: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    pub agent_state: Option<AgentState>,
}

/// `agentState`: the model chosen (`modelId`, "" for the tenant's default).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentState {
    pub model_id: Option<String>,
}

impl<'a> Document<'a> {
    /// Parses a session file's bytes; an error says why it is not one.
    pub fn parse(bytes: &'a [u8]) -> Result<Document<'a>, String> {
        let doc: Document<'a> = serde_json::from_slice(bytes).map_err(|e| format!("not a JSON object ({e})"))?;
        if doc.chat_history.is_none() {
            return Err("no `chatHistory` array".into());
        }
        Ok(doc)
    }

    /// The session id: `sessionId`, else the file name without `.json`
    /// (`false`: a document that names no session).
    pub fn native_id(&self, locator: &str) -> (String, bool) {
        trajhost_codec_sdk::paths::named_or_file_id(self.session_id.as_deref(), locator, layout::JSON)
    }

    /// The raw exchanges with their byte spans (offset, length) in `bytes`.
    pub fn entries(&self, bytes: &[u8]) -> Vec<(&'a RawValue, u64, u64)> {
        trajhost_codec_sdk::json::raw_spans(bytes, self.chat_history.as_deref().unwrap_or_default())
    }

    fn parsed(&self) -> impl Iterator<Item = Entry> + '_ {
        self.chat_history.iter().flatten().filter_map(|raw| serde_json::from_str::<Entry>(raw.get()).ok())
    }

    /// The title discover lists: the first prompt (the store keeps none).
    pub fn listed_title(&self) -> Option<String> {
        self.parsed().find_map(|e| {
            let text = e.exchange?.prompt();
            trajhost_codec_sdk::text::title_of(text.trim(), TITLE_CHARS)
        })
    }

    /// The working directory: the first IDE state's workspace folder.
    pub fn cwd(&self) -> Option<String> {
        self.parsed().find_map(|e| e.exchange?.cwd())
    }

    /// The chosen model (`agentState.modelId`), unless it is the default.
    pub fn model(&self) -> Option<String> {
        self.agent_state.as_ref()?.model_id.clone().filter(|m| !m.is_empty())
    }

    /// When the session started: `created`, or an earlier node time (the
    /// CLI creates the file after the first response node arrived).
    pub fn started_at(&self) -> Option<String> {
        let created = self.created.as_deref().and_then(parse_rfc3339);
        let first = self.parsed().filter_map(|e| e.exchange?.first_ms()).min();
        match (created, first) {
            (Some(c), Some(f)) => Some(c.min(f)),
            (c, f) => c.or(f),
        }
        .map(rfc3339_ms)
    }
}

/// The bytes of a session file.
pub fn load(home: &Dir, locator: &str) -> Result<Vec<u8>, CodecError> {
    trajhost_codec_sdk::errors::read_document(home, locator, MAX_FILE_BYTES)
}
