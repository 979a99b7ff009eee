//! `read`: one session document as canonical records.
//!
//! The document is one JSON value, so it is parsed whole (the CLI itself
//! rewrites it whole every model call); the records are then handed out in
//! batches. Order: `meta`, then each exchange's records in order.

use trajhost_codec_sdk::canonical::{Meta, SourceSpan};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{self, WholeSessionReader};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::exchange::Mapper;
use crate::session::{self, Document};
use crate::{CODEC, HARNESS, layout};

/// A session being read: its records, made at once, handed out in batches.
pub type Reader = WholeSessionReader;

/// Reads the session at `locator` whole.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    layout::check_locator(locator)?;
    let bytes = session::load(&home, locator)?;
    let doc = Document::parse(&bytes)
        .map_err(|why| CodecError::Malformed(format!("{locator}: not an Auggie session: {why}")))?;
    let (native_id, named) = doc.native_id(locator);
    let meta = Meta { cwd: doc.cwd(), started_at: doc.started_at(), ..records::meta(HARNESS, CODEC, &native_id) };
    let meta = records::meta_record(meta, Some(SourceSpan { file: locator.to_string(), offset: 0, len: 0 }));
    let mut mapper = Mapper::new(locator, doc.model());
    if !named {
        mapper.diags.add(crate::discover::NO_SESSION_ID, Severity::Warning, "sessionId", Some(locator), None);
    }
    for (raw, offset, len) in doc.entries(&bytes) {
        mapper.entry(raw.get(), offset, len);
    }
    Ok(WholeSessionReader::new(std::iter::once(meta).chain(mapper.records), mapper.diags, options))
}
