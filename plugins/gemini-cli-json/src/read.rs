//! `read`: one session document as canonical records.
//!
//! The document is one JSON value, so it is parsed whole (memory grows with
//! the file, which Gemini CLI itself rewrote whole on every change); the
//! records are then handed out in batches. Order: `meta`, then each
//! message's records in the document's order.

use trajhost_codec_sdk::canonical::{Meta, SourceSpan};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{self, WholeSessionReader};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::conversation::{self, Document};
use crate::message::Mapper;
use crate::{CODEC, HARNESS, layout};

/// A session being read: its records, made at once, handed out in batches.
pub type Reader = WholeSessionReader;

/// Reads the session at `locator` whole.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    layout::check_locator(locator)?;
    let bytes = conversation::load(&home, locator)?;
    let doc = Document::parse(&bytes)
        .map_err(|why| CodecError::Malformed(format!("{locator}: not a Gemini CLI session: {why}")))?;
    let cwd = layout::project_dir(locator).and_then(|dir| layout::project_root(&home, &dir, &mut None));
    let (native_id, named) = doc.native_id(locator);
    let started_at = doc.started_at();
    let meta = Meta { cwd, title: doc.title(), started_at, ..records::meta(HARNESS, CODEC, &native_id) };
    let meta = records::meta_record(meta, Some(SourceSpan { file: locator.to_string(), offset: 0, len: 0 }));
    let mut mapper = Mapper::new(locator);
    if !named {
        mapper.diags.add(crate::discover::NO_SESSION_ID, Severity::Warning, "sessionId", Some(locator), None);
    }
    for (raw, offset, len) in doc.messages(&bytes) {
        mapper.message(raw.get(), offset, len);
    }
    Ok(WholeSessionReader::new(std::iter::once(meta).chain(mapper.records), mapper.diags, options))
}
