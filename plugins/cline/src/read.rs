//! `read`: one session as canonical records, streamed in batches.
//!
//! Order: `meta` (from the index row or the manifest), the system prompt
//! as a `system` record, then the messages in file order.
//!
//! Cline stores a transcript as one JSON document, so the reader holds that
//! file's bytes (up to [`MAX_MESSAGES_BYTES`]) and the byte span of each
//! message; a message is parsed only when its turn comes, and its records
//! carry its exact span (`src.offset`/`src.len` into `<id>.messages.json`).

use std::collections::VecDeque;

use trajhost_cline_core::message::{self, At, Made, Transcript};
use trajhost_codec_sdk::canonical::{Body, Meta, Record, SCHEMA, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::location_id;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::discover::{self, fs_error};
use crate::layout::{self, SessionPaths};
use crate::messages;
use crate::native::{Message, MessagesFile};
use crate::time::from_epoch_ms;
use crate::{CODEC, HARNESS};

/// Largest transcript read.
pub const MAX_MESSAGES_BYTES: u64 = 512 << 20;

/// The reader: the document's messages, one at a time.
pub type Reader = Transcript<Messages>;

/// Cline CLI messages: which calls of the last assistant message are
/// still unanswered (see [`messages::Pairing`]).
#[derive(Default)]
pub struct Messages {
    pairing: messages::Pairing,
}

impl message::Messages for Messages {
    type Message<'a> = Message<'a>;

    fn map(&mut self, message: &Message<'_>, at: &At<'_>, diags: &mut Diagnostics) -> (Option<String>, Vec<Made>) {
        let id = message.id.clone().filter(|i| !i.is_empty()).unwrap_or_else(|| location_id(at.file, at.offset, 0));
        let ts = message.ts.and_then(from_epoch_ms);
        (ts, messages::map(message, &id, at.file, at.offset, &mut self.pairing, diags))
    }
}

/// Opens the session at `locator`.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let paths = SessionPaths::from_locator(locator)?;
    let bytes = home.read_to_end(&paths.messages, MAX_MESSAGES_BYTES).map_err(|e| fs_error(&paths.messages, e))?;
    let mut diags = Diagnostics::new();
    let parsed: MessagesFile<'_> = serde_json::from_slice(&bytes).map_err(|e| {
        CodecError::Malformed(format!("{}: not a Cline messages document ({:?})", paths.messages, e.classify()))
    })?;
    let spans = message::spans(&bytes, &parsed.messages);
    if parsed.session_id.as_deref().is_some_and(|id| id != paths.id) {
        diags.add("session-id-mismatch", Severity::Warning, "sessionId", Some(&paths.messages), None);
    }
    let facts = discover::facts(&home, &paths, &mut diags);
    let mut pending = VecDeque::new();
    pending.push_back(Record {
        id: paths.id.clone(),
        body: Body::Meta(Meta {
            schema: SCHEMA.into(),
            harness: HARNESS.into(),
            native_id: paths.id.clone(),
            native_version: facts.version.clone().or_else(|| parsed.origin.version.clone()),
            cwd: facts.cwd.clone(),
            title: facts.title.clone(),
            git_branch: None,
            started_at: facts.started_at.clone(),
            parent_session: facts.parent_session.clone(),
            parent_call: None,
            codec: Some(CODEC.into()),
        }),
        parent: None,
        ts: facts.started_at.clone(),
        agent: None,
        src: Some(SourceSpan { file: paths.messages.clone(), offset: 0, len: 0 }),
    });
    if let Some(raw) = parsed.system_prompt
        && let Ok(text) = serde_json::from_str::<String>(raw.get())
        && !text.is_empty()
    {
        let (offset, len) = message::span(bytes.as_ptr() as usize, raw);
        pending.push_back(Record {
            id: format!("{}:system", paths.id),
            body: Body::System { text },
            parent: None,
            ts: facts.started_at.clone(),
            agent: None,
            src: Some(SourceSpan { file: paths.messages.clone(), offset: offset as u64, len: len as u64 }),
        });
    }
    let compaction = format!("{}/{}{}", paths.dir, paths.id, layout::COMPACTION_SUFFIX);
    if home.stat(&compaction).is_ok() {
        // Compaction state of the harness; the transcript holds what the
        // model saw afterwards.
        diags.add("unmapped-file", Severity::Info, "<id>.compaction.json", Some(&compaction), None);
    }
    drop(parsed);
    Ok(Transcript::new(paths.messages, bytes, spans, Messages::default(), pending, diags, options))
}
