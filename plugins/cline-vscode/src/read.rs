//! `read`: one task as canonical records, streamed in batches: `meta`, then
//! the API history's messages in order.
//!
//! The API history is one JSON document, so the reader holds its bytes (up
//! to [`MAX_API_BYTES`]) and the byte span of each message, parsing a
//! message only when its turn comes; its records carry that span.
//!
//! **Times.** Newer builds store `ts` on each API message. Otherwise a
//! message's time comes from `ui_messages.json`: Cline stamps each UI
//! message with `conversationHistoryIndex`, the index of the last API
//! message when it was shown, so message `i` gets the time of the first UI
//! message that saw `i - 1` as the last one (the first message: the first
//! UI message).

use std::collections::{BTreeMap, VecDeque};

use trajhost_cline_core::message::{self, At, Made, Transcript};
use trajhost_codec_sdk::canonical::{Meta, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::records::{self, location_id};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::discover;
use crate::layout::{self, TaskPaths};
use crate::messages::{self, Ctx, Pairing};
use crate::native::{ApiMessage, UiMessage};
use crate::{CODEC, HARNESS};

/// Largest API history read.
pub const MAX_API_BYTES: u64 = 512 << 20;
/// Largest `ui_messages.json` read for times.
pub const MAX_UI_BYTES: u64 = 256 << 20;

/// The reader: the API history's messages, one at a time.
pub type Reader = Transcript<Messages>;

/// API messages, with what carries over between them.
pub struct Messages {
    /// First UI time per `conversationHistoryIndex`.
    ui_times: BTreeMap<i64, i64>,
    pairing: Pairing,
}

impl message::Messages for Messages {
    type Message<'a> = ApiMessage<'a>;

    fn map(&mut self, message: &ApiMessage<'_>, at: &At<'_>, diags: &mut Diagnostics) -> (Option<String>, Vec<Made>) {
        let ts =
            message.ts.0.and_then(valid_ms).or_else(|| self.ui_times.get(&(at.index - 1)).copied()).map(rfc3339_ms);
        let base = location_id(at.file, at.offset, 0);
        let mut cx = Ctx { file: at.file, offset: at.offset, base: &base, diags };
        let bodies = messages::map(message, &mut self.pairing, &mut cx);
        let made = bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| Made {
                id: location_id(at.file, at.offset, i),
                parent: (i > 0).then(|| base.clone()),
                body,
            })
            .collect();
        (ts, made)
    }
}

/// Opens the task at `locator`.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let paths = TaskPaths::from_locator(locator)?;
    let bytes = home.read_to_end(&paths.api, MAX_API_BYTES).map_err(|e| fs_error(&paths.api, e))?;
    let raw: Vec<&serde_json::value::RawValue> = serde_json::from_slice(&bytes)
        .map_err(|e| CodecError::Malformed(format!("{}: not a Cline API history ({:?})", paths.api, e.classify())))?;
    let spans = message::spans(&bytes, &raw);
    drop(raw);
    let mut diags = Diagnostics::new();
    let ui_times = ui_times(&home, &paths, &mut diags);
    let item = discover::item_of(&home, &paths, &mut diags);
    let modified = home.stat(&paths.api).ok().and_then(|m| m.modified_ms);
    let facts = discover::facts(&home, &paths, item, modified, &mut diags);
    let started_at = facts.started_at.clone().or_else(|| ui_times.values().min().copied().map(rfc3339_ms));
    let meta = Meta {
        native_version: facts.version.clone(),
        cwd: facts.cwd.clone(),
        title: facts.title.clone(),
        started_at,
        ..records::meta(HARNESS, CODEC, &facts.native_id)
    };
    let meta = records::meta_record(meta, Some(SourceSpan { file: paths.api.clone(), offset: 0, len: 0 }));
    for side in layout::STATE_FILES {
        if home.stat(&paths.file(side)).is_ok() {
            // Context-truncation and settings state: no conversation.
            diags.add("unmapped-file", Severity::Info, side, Some(&paths.file(side)), None);
        }
    }
    let messages = Messages { ui_times, pairing: Pairing::default() };
    Ok(Transcript::new(paths.api, bytes, spans, messages, VecDeque::from([meta]), diags, options))
}

fn valid_ms(ms: i64) -> Option<i64> {
    (0..100_000_000_000_000).contains(&ms).then_some(ms)
}

/// The first UI time per `conversationHistoryIndex` (see the module docs);
/// no file: none.
fn ui_times(home: &Dir, paths: &TaskPaths, diags: &mut Diagnostics) -> BTreeMap<i64, i64> {
    let mut out = BTreeMap::new();
    let mut path = paths.file(layout::UI_MESSAGES);
    if home.stat(&path).is_err() && home.stat(&paths.file(layout::LEGACY_UI_MESSAGES)).is_ok() {
        path = paths.file(layout::LEGACY_UI_MESSAGES);
    }
    let bytes = match home.read_to_end(&path, MAX_UI_BYTES) {
        Ok(b) => b,
        Err(FsError::NotFound(_)) => return out,
        Err(e) => {
            diags.add("unreadable-file", Severity::Warning, trajhost_codec_sdk::errors::fs_kind(&e), Some(&path), None);
            return out;
        }
    };
    let Ok(messages) = serde_json::from_slice::<Vec<UiMessage>>(&bytes) else {
        diags.add("malformed-file", Severity::Warning, "ClineMessage[]", Some(&path), None);
        return out;
    };
    for m in messages {
        let (Some(ts), Some(index)) = (m.ts.0.and_then(valid_ms), m.conversation_history_index.0) else { continue };
        let at = out.entry(index).or_insert(ts);
        *at = (*at).min(ts);
    }
    // The first message predates every index: the task's first UI message.
    if let Some(first) = out.values().min().copied() {
        out.entry(-1).and_modify(|t| *t = (*t).min(first)).or_insert(first);
    }
    out
}
