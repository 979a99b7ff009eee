//! `write`: canonical records → one block of Aider history markdown, the
//! bytes a fresh `.aider.chat.history.md` would hold after one run:
//! `\n# aider chat started at <start, UTC>\n\n`, then per record what
//! `aider/io.py` writes for it:
//!
//! - `user`: `\n#### <line>  \n` per line (`user_input`);
//! - `assistant`: `\n<text>\n\n` (`ai_output`); a line that would read as
//!   another kind (`# `, `#### `, `> ` at its start) is indented by one
//!   space;
//! - `observation`: `> <line>  \n` per line (`tool_output`). Aider's own
//!   `status` lines come back as they were; anything else is kept in the
//!   file, but `--restore-chat-history` drops `> ` lines, so it is named
//!   `not-carried`.
//!
//! What Aider has no form for is folded into text that `--restore-chat-history`
//! gives back to the model, and named `not-carried` (`<kind> (folded …)`), so
//! the fidelity report shows it: a `tool_call` becomes assistant text
//! `[tool call <name> (<id>)] <arguments>`, a `tool_result` user text
//! `[tool result (<id>)]` (`, failed` when it failed) and its output, a
//! `compaction` user text `[summary of the conversation so far]` and its
//! summary. `system` and `reasoning` are not written (Aider sends its own
//! system prompt), nor are attachments.
//!
//! The native id is the one `read` gives the block: a fresh file's first
//! block starts at offset 1.

use std::collections::BTreeMap;

use trajhost_codec_sdk::canonical::Body;
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::Civil;
use trajhost_codec_sdk::writer::CanonicalDocument;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WholeDocument, WriteOptions, Written};

use crate::history::{Block, FILE, HEADER, STATUS, USER};
use crate::{HARNESS, STATUS_SUBTYPE, session};

/// Largest canonical document written (it is held whole).
const MAX_DOCUMENT_BYTES: usize = 1 << 30;

/// The writer `Codec::write` returns: the document collected, then [`write`].
pub fn boxed(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
    Ok(WholeDocument::boxed(options, write))
}

/// The block for `document` (canonical JSON lines).
pub fn write(document: &str, _options: &WriteOptions) -> Result<Written, CodecError> {
    let mut diags = Diagnostics::new();
    let doc = CanonicalDocument::parse(document, MAX_DOCUMENT_BYTES, &mut diags)?;
    let own = doc.is_from(HARNESS);
    let started = header_time(doc.start_ms().unwrap_or(0));
    let mut out = format!("\n{HEADER}{started}\n\n");
    let mut lost: BTreeMap<String, usize> = BTreeMap::new();
    let mut note = |what: String| *lost.entry(what).or_default() += 1;
    for record in &doc.records {
        match &record.body {
            Body::Meta(_) => {}
            Body::User { text, attachments } => {
                if !attachments.is_empty() {
                    note("attachment".into());
                }
                user(&mut out, text);
            }
            Body::Assistant(reply) => {
                if reply.usage.is_some() && !own {
                    note("assistant usage".into());
                }
                assistant(&mut out, &reply.text, &mut note);
            }
            Body::ToolCall { call_id, name, arguments } => {
                note("tool_call (folded into assistant text)".into());
                let args = serde_json::to_string(arguments).unwrap_or_default();
                assistant(&mut out, &format!("[tool call {name} ({call_id})] {args}"), &mut note);
            }
            Body::ToolResult { call_id, content, ok } => {
                note("tool_result (folded into user text)".into());
                let failed = if *ok == Some(false) { ", failed" } else { "" };
                user(&mut out, &format!("[tool result ({call_id}){failed}]\n{content}"));
            }
            Body::Compaction { summary, .. } => {
                note("compaction (folded into user text)".into());
                user(&mut out, &format!("[summary of the conversation so far]\n{summary}"));
            }
            Body::Observation { subtype, text } => {
                if !(own && subtype == STATUS_SUBTYPE) {
                    note(format!("observation/{subtype} (a `> ` line, which Aider does not restore)"));
                }
                let text = text.as_deref().unwrap_or(subtype);
                for line in text.lines() {
                    out.push_str(&format!("{STATUS}{line}  \n"));
                }
            }
            Body::System { .. } => note("system".into()),
            Body::Reasoning(_) => note("reasoning".into()),
        }
    }
    for (what, count) in lost {
        let detail = if count > 1 { format!("{what} ×{count}") } else { what };
        diags.add("not-carried", Severity::Info, &detail, None, None);
    }
    let block = Block { offset: 1, started: &started, text: "" };
    Ok(Written {
        native_id: session::native_id(FILE, &block),
        chunks: vec![Artifact { path: FILE.into(), bytes: out.into_bytes() }],
        diagnostics: diags.drain(),
    })
}

/// `YYYY-MM-DD HH:MM:SS` of an epoch time (UTC), as the header writes it.
pub fn header_time(ms: i64) -> String {
    let c = Civil::from_ms(ms);
    format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", c.year, c.month, c.day, c.hour, c.minute, c.second)
}

/// `user_input`: every line behind `#### `, each ending in the markdown
/// line break.
fn user(out: &mut String, text: &str) {
    out.push('\n');
    let lines: Vec<&str> = if text.is_empty() { vec![""] } else { text.lines().collect() };
    for line in lines {
        out.push_str(&format!("{USER}{}  \n", line.trim_end()));
    }
}

/// `ai_output`: the reply between blank lines, lines that would read as
/// another kind indented.
fn assistant(out: &mut String, text: &str, note: &mut impl FnMut(String)) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    out.push('\n');
    for line in text.lines() {
        if line.starts_with("# ") || line.starts_with(USER) || line.starts_with(STATUS) {
            note("assistant line start (`# `, `#### ` or `> ` indented by one space)".into());
            out.push(' ');
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
}
