//! `read`: a session's model context (the current generation's checkpoint
//! chunks) as canonical records.
//!
//! Order: `meta`, then each chunk's items in the manifest's order. A chunk
//! or part whose bytes do not give its digest is still read, and reported
//! (`digest-mismatch`): Vibe itself refuses to resume such a store.

use trajhost_codec_sdk::canonical::{Meta, SourceSpan};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{self, WholeSessionReader};
use trajhost_codec_sdk::time::normalized_rfc3339_ms;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::message::Mapper;
use crate::store::{self, Session};
use crate::{CODEC, HARNESS};

/// A stored file whose bytes do not give the digest the store names.
pub const DIGEST_MISMATCH: &str = "digest-mismatch";

/// A session being read: its records, made at once, handed out in batches.
pub type Reader = WholeSessionReader;

/// Reads the session whose `CURRENT` is `locator`.
pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let session = Session::load(&home, locator)?;
    let chunks = session.checkpoint_chunks(&home)?;
    let meta = Meta {
        cwd: session.cwd(),
        started_at: session.meta.start_time.as_deref().and_then(normalized_rfc3339_ms),
        title: session.meta.title.clone().filter(|t| !t.is_empty()),
        ..records::meta(HARNESS, CODEC, session.id())
    };
    let meta = records::meta_record(meta, Some(SourceSpan { file: locator.to_string(), offset: 0, len: 0 }));
    let mut mapper = Mapper::new(session.model());
    for file in &session.mismatches {
        mapper.diags.add(DIGEST_MISMATCH, Severity::Warning, "stored document", Some(file), None);
    }
    for chunk in &chunks {
        if !chunk.digest_ok {
            mapper.diags.add(DIGEST_MISMATCH, Severity::Warning, "chunk", Some(&chunk.path), None);
        }
        let body = store::body(&chunk.bytes);
        let items: Vec<&serde_json::value::RawValue> = serde_json::from_slice(body)
            .map_err(|e| CodecError::Malformed(format!("{}: not a chunk (a JSON array): {e}", chunk.path)))?;
        for (raw, offset, len) in trajhost_codec_sdk::json::raw_spans(body, &items) {
            mapper.item(&chunk.path, raw.get(), offset, len);
        }
    }
    Ok(WholeSessionReader::new(std::iter::once(meta).chain(mapper.records), mapper.diags, options))
}
