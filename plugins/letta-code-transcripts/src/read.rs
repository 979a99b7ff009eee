//! `read`: one transcript as canonical records, streamed in batches:
//! `meta`, then each line's records in file order. A line that is not an
//! entry is `malformed-line` (or `torn-tail` when it is the unterminated
//! last line of a file being appended to).

use std::collections::VecDeque;

use trajhost_codec_sdk::canonical::{Meta, Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::errors::fs_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::jsonl::{JsonLines, report_bad_line};
use trajhost_codec_sdk::records::{self, BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};

use crate::discover;
use crate::entries::{self, Entry};
use crate::layout::{STATE, SessionPaths};
use crate::{CODEC, HARNESS};

pub struct Reader {
    file: String,
    writer: BatchWriter,
    diags: Diagnostics,
    pending: VecDeque<Record>,
    lines: Option<JsonLines>,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let paths = SessionPaths::from_locator(locator)?;
        let lines = JsonLines::open(&home, locator).map_err(|e| fs_error(locator, e))?;
        let head = discover::head(&home, locator).unwrap_or_default();
        let mut diags = Diagnostics::new();
        if home.stat(&paths.in_dir(STATE)).is_ok() {
            // Reflection progress of the memory subagent, no conversation.
            diags.add("unmapped-file", Severity::Info, STATE, Some(&paths.in_dir(STATE)), None);
        }
        let meta = Meta {
            title: head.first_prompt.clone(),
            started_at: head.started_at,
            ..records::meta(HARNESS, CODEC, &paths.native_id)
        };
        let meta = records::meta_record(meta, Some(SourceSpan { file: locator.to_string(), offset: 0, len: 0 }));
        Ok(Reader {
            file: locator.to_string(),
            writer: BatchWriter::starting_with(options, &meta),
            diags,
            pending: VecDeque::new(),
            lines: Some(lines),
            done: false,
        })
    }
}

impl Steps for Reader {
    fn step(&mut self) -> Result<bool, CodecError> {
        if self.writer.release(&mut self.pending) {
            return Ok(true);
        }
        let Some(lines) = self.lines.as_mut() else { return Ok(false) };
        match lines.next_line() {
            Some(Ok(line)) => {
                if line.bytes.iter().all(u8::is_ascii_whitespace) {
                    return Ok(true);
                }
                let Some(entry) = Entry::parse(line.bytes) else {
                    report_bad_line(&mut self.diags, &line, "transcript line", &self.file);
                    return Ok(true);
                };
                let (offset, len) = (line.offset, line.len);
                self.pending.extend(entries::map(&entry, &self.file, offset, len, &mut self.diags));
            }
            Some(Err(e)) => return Err(fs_error(lines.path(), e)),
            None => self.lines = None,
        }
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.diags, done: &mut self.done }
    }
}
