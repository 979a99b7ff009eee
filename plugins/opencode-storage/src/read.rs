//! `read`: one session of the tree as canonical records, streamed.
//!
//! Order: `meta` (the session file), then the session's messages by
//! `time.created`, then file name (OpenCode's ids sort by creation), each
//! with its parts by file name. The message files are read when the reader
//! opens (to order them); a message's parts when it is reached, so memory is
//! bounded by the message infos plus one message's parts. Diagnostics go out
//! with the last batch.

use std::collections::VecDeque;

use trajhost_codec_sdk::canonical::{Record, SourceSpan};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::records::{BatchWriter, StepParts, Steps};
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{CodecError, ReadOptions, Severity};
use trajhost_opencode_core::session;

use crate::CODEC;
use crate::discover::{cwd, looks_like_session, message_files};
use crate::info::{self, Session};
use crate::layout::{self, SessionPaths};
use crate::message::{Item, Mapper};

/// A session being read.
pub struct Reader {
    home: Dir,
    paths: SessionPaths,
    session_id: String,
    messages: VecDeque<Item>,
    mapper: Mapper,
    writer: BatchWriter,
    done: bool,
}

impl Reader {
    pub fn open(home: Dir, locator: &str, options: &ReadOptions) -> Result<Reader, CodecError> {
        let paths = SessionPaths::from_locator(locator)?;
        let (value, _) = info::load(&home, locator)?;
        if !looks_like_session(&value) {
            return Err(CodecError::Malformed(format!("{locator}: not an OpenCode session file (id, time)")));
        }
        let session = Session::of(&value, &paths.stem);
        let mut mapper = Mapper::default();
        let messages = match message_files(&home, &paths, &session.id) {
            Ok(Some((dir, entries))) => load_messages(&home, &dir, entries, &mut mapper.diags),
            Ok(None) => {
                let detail = if paths.root.is_some() { "message/<session id>" } else { "a loose session file" };
                mapper.diags.add("no-messages", Severity::Info, detail, Some(locator), None);
                VecDeque::new()
            }
            Err(e) => {
                mapper.diags.add("unreadable-directory", Severity::Warning, &e.to_string(), Some(locator), None);
                VecDeque::new()
            }
        };
        let meta = meta(locator, &session, cwd(&home, &paths, &session));
        Ok(Reader {
            home,
            paths,
            session_id: session.id,
            messages,
            mapper,
            writer: BatchWriter::starting_with(options, &meta),
            done: false,
        })
    }

    /// The parts of one message, by file name.
    fn parts_of(&mut self, message: &Item) -> Vec<Item> {
        for dir in self.paths.part_dirs(&self.session_id, &message.id, &message.stem) {
            match self.home.list(&dir) {
                Ok(entries) => return load_items(&self.home, &dir, entries, &mut self.mapper.diags, "part"),
                Err(FsError::NotFound(_)) => continue,
                Err(e) => {
                    let kind = trajhost_codec_sdk::errors::fs_kind(&e);
                    self.mapper.diags.add("unreadable-directory", Severity::Warning, kind, Some(&dir), None);
                    return Vec::new();
                }
            }
        }
        Vec::new()
    }
}

/// The message files of a session, in OpenCode's order.
fn load_messages(
    home: &Dir,
    dir: &str,
    entries: Vec<trajhost_codec_sdk::fs::DirEntry>,
    diags: &mut Diagnostics,
) -> VecDeque<Item> {
    let mut items = load_items(home, dir, entries, diags, "message");
    items.sort_by(|a, b| {
        let created = |i: &Item| {
            info::time(&i.value, "created")
                .or_else(|| i.value.get("metadata").and_then(|m| info::time(m, "created")))
                .unwrap_or(i64::MAX)
        };
        created(a).cmp(&created(b)).then_with(|| a.stem.cmp(&b.stem))
    });
    items.into()
}

/// The `.json` files of a directory, parsed, by file name; anything else is
/// a diagnostic naming it.
fn load_items(
    home: &Dir,
    dir: &str,
    mut entries: Vec<trajhost_codec_sdk::fs::DirEntry>,
    diags: &mut Diagnostics,
    what: &str,
) -> Vec<Item> {
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = Vec::new();
    for entry in entries {
        let path = layout::join(dir, &entry.name);
        let Some(stem) = layout::file_stem(&entry.name).filter(|_| entry.is_file()) else {
            diags.add(
                "unrecognized-file",
                Severity::Warning,
                &format!("not a {what} file (<id>.json)"),
                Some(&path),
                None,
            );
            continue;
        };
        match info::load(home, &path) {
            Ok((value, len)) => {
                let id = trajhost_codec_sdk::json::text_of(&value, "id").unwrap_or(stem).to_string();
                out.push(Item { path, len, id, stem: stem.to_string(), value });
            }
            Err(CodecError::Malformed(_)) => {
                diags.add("malformed-file", Severity::Error, what, Some(&path), None);
            }
            Err(_) => diags.add("unreadable-file", Severity::Warning, what, Some(&path), None),
        }
    }
    out
}

fn meta(locator: &str, session: &Session, cwd: Option<String>) -> Record {
    let info = session::Info {
        id: session.id.clone(),
        version: session.version.clone(),
        cwd,
        title: session.title.clone(),
        parent: session.parent.clone(),
        started: session.created.map(rfc3339_ms),
    };
    session::meta(CODEC, info, SourceSpan { file: locator.to_string(), offset: 0, len: 0 })
}

impl Steps for Reader {
    /// One unit of work; false when nothing is left.
    fn step(&mut self) -> Result<bool, CodecError> {
        let Some(message) = self.messages.pop_front() else {
            self.mapper.finish(&mut self.writer);
            return Ok(false);
        };
        if crate::v1::is_v1(&message.value) {
            let (info, parts) = crate::v1::split(&message);
            self.mapper.message(&mut self.writer, &info, &parts);
            return Ok(true);
        }
        let parts = self.parts_of(&message);
        self.mapper.message(&mut self.writer, &message, &parts);
        Ok(true)
    }

    fn parts(&mut self) -> StepParts<'_> {
        StepParts { writer: &mut self.writer, diags: &mut self.mapper.diags, done: &mut self.done }
    }
}
