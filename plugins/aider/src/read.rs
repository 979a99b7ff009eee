//! `read`: one block as canonical records.
//!
//! `meta` (the header: start, and the version the banner names), then one
//! record per message: `#### ` runs are `user`, reply runs `assistant` (the
//! banner's model; the usage the next `> Tokens: N sent, M received.` line
//! gives), `> ` runs `observation` `status`. Records have no native id:
//! their ids are their byte locations.

use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record, SourceSpan, Usage};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::records::{WholeSessionReader, location_id, meta, meta_record};
use trajhost_codec_sdk::{CodecError, ReadOptions};

use crate::history::{self, Kind};
use crate::{CODEC, HARNESS, STATUS_SUBTYPE, session};

/// A session being read: its records, made at once, handed out in batches.
pub type Reader = WholeSessionReader;

pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
    let (file, id) = session::split_locator(locator);
    let text = session::load(&home, file)?;
    let block = session::find(&text, file, id)?;
    let (records, diags) = block_records(file, &block);
    Ok(WholeSessionReader::new(records, diags, options))
}

/// The records of one block of `file`.
pub fn block_records(file: &str, block: &history::Block<'_>) -> (Vec<Record>, Diagnostics) {
    let messages = history::messages(block);
    let head = Meta {
        native_version: history::version(&messages),
        started_at: session::started_at(block),
        ..meta(HARNESS, CODEC, &session::native_id(file, block))
    };
    // The header names the session but holds no record: an empty span at it.
    let header = SourceSpan { file: file.to_string(), offset: block.offset as u64, len: 0 };
    let mut records = vec![meta_record(head, Some(header))];
    let model = history::model(&messages);
    for message in messages {
        let body = match message.kind {
            Kind::User => Body::User { text: message.text, attachments: Vec::new() },
            Kind::Assistant => {
                Body::Assistant(Assistant { text: message.text, model: model.clone(), ..Assistant::default() })
            }
            Kind::Status => {
                if let Some(usage) = tokens(&message.text)
                    && let Some(Body::Assistant(reply)) = records.last_mut().map(|r| &mut r.body)
                    && reply.usage.is_none()
                {
                    reply.usage = Some(usage);
                }
                Body::Observation { subtype: STATUS_SUBTYPE.into(), text: Some(message.text) }
            }
        };
        records.push(Record {
            id: location_id(file, message.offset, 0),
            body,
            parent: None,
            ts: None,
            agent: None,
            src: Some(SourceSpan { file: file.to_string(), offset: message.offset, len: message.len }),
        });
    }
    (records, Diagnostics::new())
}

/// `Tokens: 100 sent, 20 received.` (plain counts only: Aider writes `1.2k`
/// above a thousand, which is no count).
fn tokens(status: &str) -> Option<Usage> {
    let line = status.lines().find_map(|l| l.strip_prefix("Tokens: "))?;
    let count = |word: &str| -> Option<u64> {
        line.split(',').map(str::trim).find_map(|part| part.strip_suffix(word)?.trim().parse().ok())
    };
    let (input, output) = (count(" sent")?, count(" received").or_else(|| count(" received."))?);
    Some(Usage { input: Some(input), output: Some(output), ..Usage::default() })
}

#[cfg(test)]
mod tests {
    #[test]
    fn token_lines() {
        let u = super::tokens("Tokens: 100 sent, 20 received.").unwrap();
        assert_eq!((u.input, u.output), (Some(100), Some(20)));
        assert!(super::tokens("Tokens: 1.2k sent, 20 received.").is_none());
        assert!(super::tokens("Added 1 line").is_none());
    }
}
