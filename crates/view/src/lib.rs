//! `trajhost view`: one session as a single self-contained HTML page.
//!
//! The page has no external assets and makes no request: its CSS and script
//! are inline, a Content-Security-Policy allows nothing else (the script by
//! its sha256). The session's canonical records are embedded as they come
//! from the codec, as JSON inside `<script type="application/json">` blocks
//! of about 1 MiB each, with `<`, `>`, `&`, U+2028 and U+2029 written as
//! `\u003c`-style escapes, so no text of the session can close the block or
//! open markup. The script renders records into the DOM with `textContent`
//! only, a few hundred at a time as the reader scrolls, and parses a block
//! the first time it needs one; the search box scans the records themselves,
//! not the rendered DOM. Session facts, the codec's diagnostics and the
//! fidelity notes go into a last block the script shows at the top.
//!
//! Everything streams: each batch the codec returns is written out before
//! the next is read, so memory follows the batch, not the session.

pub mod browse;

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use trajhost_canonical::{Body, Record};
use trajhost_capabilities::wit::latest::types::{Diagnostic, Severity};
use trajhost_inventory::digest::SessionDigest;
use trajhost_inventory::{self as inventory, FoundSession};
use trajhost_registry::catalog::Catalog;

const SCRIPT: &str = include_str!("page.js");
const STYLE: &str = include_str!("page.css");

/// A data block is closed once it holds this many bytes…
const BLOCK_BYTES: usize = 1 << 20;
/// … or this many records.
const BLOCK_RECORDS: usize = 2000;

/// Why a page could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// Reading the session failed (codec error, trap, limit).
    #[error(transparent)]
    Read(#[from] trajhost_runtime::HostError),
    #[error("codec {codec} returned a record that is {message}")]
    NotCanonical { codec: String, message: String },
    #[error("codec {codec} returned no records for {session}")]
    NoRecords { codec: String, session: String },
    /// The output could not be written.
    #[error("writing the page: {0}")]
    Write(#[source] io::Error),
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub codec: String,
    pub records: u64,
    /// Data blocks the records were split into.
    pub blocks: u64,
    pub bytes: u64,
    pub diagnostics: Vec<Diagnostic>,
    pub notes: Vec<String>,
    pub ending: String,
    pub snapshot_id: String,
    /// Secrets masked on the page, by rule.
    pub redactions: trajhost_inventory::redaction::Counts,
}

/// Reads `found` (with `codec_override`, or the codec its native version
/// selects) and writes its page to `out`, with secrets masked when a
/// `redactor` is given (a page is for sharing: the CLI gives one by default).
pub fn render(
    catalog: &Catalog<'_>,
    found: &FoundSession,
    codec_override: Option<&str>,
    redactor: Option<&trajhost_inventory::redaction::Redactor>,
    out: impl Write,
) -> Result<Rendered, ViewError> {
    let (codec, mut stream) = inventory::open(catalog, found, codec_override, inventory::default_read_options())?;
    tracing::info!(codec = %codec.id(), session = %found.session.native_id, "rendering a page");
    let mut redactions = trajhost_inventory::redaction::Counts::default();
    // The title discovery gave (often the first prompt) is on the page too.
    let mut shown = found.clone();
    if let (Some(redactor), Some(title)) = (redactor, &found.session.title) {
        shown.session.title = Some(redactor.redact_text(title, &mut redactions).into_owned());
    }
    let mut page = Page::new(out, &shown, &codec.id())?;
    while let Some(batch) = stream.next_batch()? {
        page.diagnostics(&batch.diagnostics);
        for line in batch.records.lines() {
            match redactor {
                Some(redactor) => page.push_line(&redactor.redact_line(line, &mut redactions))?,
                None => page.push_line(line)?,
            }
        }
    }
    let mut rendered = page.finish()?;
    rendered.redactions = redactions;
    Ok(rendered)
}

/// A page being written: the head first, then records as they come, then
/// the session's facts and the script.
pub struct Page<W: Write> {
    out: Counting<W>,
    codec: String,
    facts: serde_json::Map<String, Value>,
    digest: SessionDigest,
    /// Records in the open block (0: no block is open).
    block_records: usize,
    block_bytes: usize,
    blocks: u64,
    kinds: BTreeMap<&'static str, u64>,
    diagnostics: Vec<Diagnostic>,
    notes: Notes,
}

impl<W: Write> Page<W> {
    /// Writes the head of the page for `found`, read by `codec`.
    pub fn new(out: W, found: &FoundSession, codec: &str) -> Result<Page<W>, ViewError> {
        let s = &found.session;
        let mut facts = serde_json::Map::new();
        facts.insert("harness".into(), json!(found.harness));
        facts.insert("codec".into(), json!(codec));
        facts.insert("native_id".into(), json!(s.native_id));
        facts.insert("native_version".into(), json!(s.native_version));
        facts.insert("cwd".into(), json!(s.cwd));
        facts.insert("title".into(), json!(s.title));
        facts.insert("started_at".into(), json!(s.started_at));
        facts.insert("updated_at".into(), json!(s.updated_at));
        facts.insert("path".into(), json!(s.path.display().to_string()));
        facts.insert("size".into(), json!(s.size));
        facts.insert("generator".into(), json!(concat!("trajhost ", env!("CARGO_PKG_VERSION"))));
        let title = s.title.as_deref().filter(|t| !t.trim().is_empty()).unwrap_or(&s.native_id);
        let title: String = title.chars().take(120).collect();
        let mut page = Page {
            out: Counting { inner: out, bytes: 0 },
            codec: codec.to_string(),
            facts,
            digest: SessionDigest::new(),
            block_records: 0,
            block_bytes: 0,
            blocks: 0,
            kinds: BTreeMap::new(),
            diagnostics: Vec::new(),
            notes: Notes::default(),
        };
        for cause in &found.not_portable {
            page.notes.not_portable.insert(cause.clone());
        }
        page.head(&format!("{title} ({}) — trajhost", found.harness)).map_err(ViewError::Write)?;
        Ok(page)
    }

    fn head(&mut self, title: &str) -> io::Result<()> {
        let out = &mut self.out;
        write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"trajhost {}\">\n<title>",
            content_security_policy(),
            env!("CARGO_PKG_VERSION"),
        )?;
        write_html_text(out, title)?;
        write!(
            out,
            "</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <header id=\"top\"><noscript><p>This page shows the session with its inline script: \
             allow JavaScript for this file to read it.</p></noscript></header>\n\
             <div id=\"bar\"><input id=\"q\" type=\"search\" placeholder=\"Search this session (/)\" \
             autocomplete=\"off\" spellcheck=\"false\" aria-label=\"Search this session\">\
             <span id=\"status\" role=\"status\"></span></div>\n\
             <main id=\"log\"></main>\n<div id=\"more\"></div>\n"
        )
    }

    /// Adds a batch's diagnostics.
    pub fn diagnostics(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            if trajhost_convert::NOT_PORTABLE_CODES.contains(&d.code.as_str()) {
                self.notes.not_portable.insert(format!("{}: {}", d.code, d.detail));
            }
        }
        self.diagnostics.extend_from_slice(diagnostics);
    }

    /// Adds one canonical record line as the codec returned it.
    pub fn push_line(&mut self, line: &str) -> Result<(), ViewError> {
        let record = self
            .digest
            .push_line(line)
            .map_err(|e| ViewError::NotCanonical { codec: self.codec.clone(), message: e.to_string() })?;
        self.follow(&record);
        self.write_record(line).map_err(ViewError::Write)
    }

    fn write_record(&mut self, line: &str) -> io::Result<()> {
        if self.block_records == 0 {
            write!(
                self.out,
                "<script type=\"application/json\" class=\"th-block\" data-first=\"{}\">[",
                self.digest.records() - 1
            )?;
        } else {
            self.out.write_all(b",\n")?;
        }
        self.block_bytes += write_script_json(&mut self.out, line)?;
        self.block_records += 1;
        if self.block_bytes >= BLOCK_BYTES || self.block_records >= BLOCK_RECORDS {
            self.close_block()?;
        }
        Ok(())
    }

    fn close_block(&mut self) -> io::Result<()> {
        if self.block_records > 0 {
            self.out.write_all(b"]</script>\n")?;
            self.blocks += 1;
            self.block_records = 0;
            self.block_bytes = 0;
        }
        Ok(())
    }

    /// Counts and fidelity notes from one record.
    fn follow(&mut self, record: &Record) {
        *self.kinds.entry(record.body.kind()).or_default() += 1;
        let notes = &mut self.notes;
        match &record.body {
            Body::Meta(meta) if self.digest.records() == 1 => {
                for (key, value) in [
                    ("meta_title", &meta.title),
                    ("git_branch", &meta.git_branch),
                    ("meta_started_at", &meta.started_at),
                    ("meta_cwd", &meta.cwd),
                    ("meta_native_version", &meta.native_version),
                ] {
                    if let Some(value) = value {
                        self.facts.insert(key.into(), json!(value));
                    }
                }
                self.facts.insert("schema".into(), json!(meta.schema));
            }
            Body::Meta(_) => notes.subagents += 1,
            Body::User { attachments, .. } => notes.attachments += attachments.len() as u64,
            Body::Reasoning(r) if r.text.is_none() => {
                notes.opaque_reasoning += 1;
                notes.encrypted_reasoning += r.encrypted as u64;
            }
            Body::ToolCall { call_id, arguments, .. } => {
                notes.calls.insert(call_id.clone());
                notes.pending.insert(call_id.clone());
                notes.string_arguments += arguments.is_string() as u64;
            }
            Body::ToolResult { call_id, .. } => {
                notes.pending.remove(call_id);
                notes.orphan_results += !notes.calls.contains(call_id) as u64;
            }
            _ => {}
        }
    }

    /// Writes the session's facts and the script; returns what was written.
    pub fn finish(mut self) -> Result<Rendered, ViewError> {
        if self.digest.records() == 0 {
            return Err(ViewError::NoRecords {
                codec: self.codec.clone(),
                session: self.facts["native_id"].as_str().unwrap_or_default().to_string(),
            });
        }
        let ending = self.digest.ending().name().to_string();
        let snapshot_id = self.digest.snapshot_id();
        let notes = self.notes.describe(&ending);
        let diagnostics: Vec<Value> = self.diagnostics.iter().map(diagnostic_json).collect();
        let mut facts = std::mem::take(&mut self.facts);
        facts.insert("records".into(), json!(self.digest.records()));
        facts.insert("kinds".into(), json!(self.kinds));
        facts.insert("ending".into(), json!(ending));
        facts.insert("snapshot_id".into(), json!(snapshot_id));
        facts.insert("diagnostics".into(), Value::Array(diagnostics));
        facts.insert("notes".into(), json!(notes));
        let facts = serde_json::to_string(&Value::Object(facts)).expect("JSON values serialize");
        let written = (|| -> io::Result<()> {
            self.close_block()?;
            self.out.write_all(b"<script type=\"application/json\" id=\"th-session\">")?;
            write_script_json(&mut self.out, &facts)?;
            write!(self.out, "</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n")?;
            self.out.flush()
        })();
        written.map_err(ViewError::Write)?;
        Ok(Rendered {
            codec: self.codec,
            records: self.digest.records(),
            blocks: self.blocks,
            bytes: self.out.bytes,
            diagnostics: self.diagnostics,
            notes,
            ending,
            snapshot_id,
            redactions: trajhost_inventory::redaction::Counts::default(),
        })
    }
}

/// What a reader of the page should know about what it shows and does not.
#[derive(Default)]
struct Notes {
    /// Calls seen, and those not answered yet.
    calls: HashSet<String>,
    pending: HashSet<String>,
    orphan_results: u64,
    opaque_reasoning: u64,
    encrypted_reasoning: u64,
    attachments: u64,
    string_arguments: u64,
    subagents: u64,
    not_portable: std::collections::BTreeSet<String>,
}

impl Notes {
    fn describe(&self, ending: &str) -> Vec<String> {
        let mut notes = Vec::new();
        if ending != "completed" {
            notes.push(format!(
                "The session ends {ending}: {}",
                match ending {
                    "open" => "its last turn has no final answer from the model.",
                    "aborted" => "its last turn was interrupted.",
                    "error" => "its last turn ended in an error the harness recorded.",
                    _ => "see the last records.",
                }
            ));
        }
        let plural = |n: u64, one: &str, many: &str| if n == 1 { one.to_string() } else { format!("{n} {many}") };
        if !self.pending.is_empty() {
            let n = self.pending.len() as u64;
            notes.push(format!("{} no recorded result.", plural(n, "One tool call has", "tool calls have")));
        }
        if self.orphan_results > 0 {
            notes.push(format!(
                "{} no call before it; shown on its own.",
                plural(self.orphan_results, "One tool result has", "tool results have")
            ));
        }
        if self.opaque_reasoning > 0 {
            notes.push(format!(
                "{} carried as opaque data ({} encrypted): shown as a placeholder, not as text.",
                plural(self.opaque_reasoning, "One reasoning record is", "reasoning records are"),
                self.encrypted_reasoning
            ));
        }
        if self.attachments > 0 {
            notes.push(format!(
                "{} carried by reference: named, not shown.",
                plural(self.attachments, "One attachment is", "attachments are")
            ));
        }
        if self.string_arguments > 0 {
            notes.push(format!(
                "{} arguments the store holds as text that is not JSON: shown as recorded.",
                plural(self.string_arguments, "One tool call has", "tool calls have")
            ));
        }
        if self.subagents > 0 {
            notes.push(format!(
                "{} inline, marked with the agent's id.",
                plural(self.subagents, "One subagent transcript is", "subagent transcripts are")
            ));
        }
        for cause in &self.not_portable {
            notes.push(format!("Not portable to another harness as it is: {cause}."));
        }
        notes
    }
}

/// The page's Content-Security-Policy: nothing but its own inline style and
/// its one script, by hash.
pub fn content_security_policy() -> String {
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{}'; base-uri 'none'; form-action 'none'",
        base64(&Sha256::digest(SCRIPT.as_bytes()))
    )
}

fn diagnostic_json(d: &Diagnostic) -> Value {
    let severity = match d.severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    };
    json!({"code": d.code, "severity": severity, "detail": d.detail, "count": d.count, "file": d.file, "offset": d.offset})
}

/// Writes JSON text for a `<script type="application/json">` block: `<`,
/// `>` and `&` (only ever inside strings in JSON) and U+2028/U+2029 as
/// `\u` escapes, so `</script>` or `<!--` can never appear. Returns the
/// bytes written.
pub fn write_script_json(out: &mut impl Write, json: &str) -> io::Result<usize> {
    let bytes = json.as_bytes();
    let mut written = 0;
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let escape: Option<(&[u8], usize)> = match bytes[i] {
            b'<' => Some((b"\\u003c", 1)),
            b'>' => Some((b"\\u003e", 1)),
            b'&' => Some((b"\\u0026", 1)),
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA8) => Some((b"\\u2028", 3)),
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA9) => Some((b"\\u2029", 3)),
            _ => None,
        };
        match escape {
            Some((replacement, len)) => {
                out.write_all(&bytes[start..i])?;
                out.write_all(replacement)?;
                written += i - start + replacement.len();
                i += len;
                start = i;
            }
            None => i += 1,
        }
    }
    out.write_all(&bytes[start..])?;
    Ok(written + bytes.len() - start)
}

/// Text as HTML character data (and attribute values).
fn write_html_text(out: &mut impl Write, text: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let entity = match c {
            '<' => "&lt;",
            '>' => "&gt;",
            '&' => "&amp;",
            '"' => "&quot;",
            '\'' => "&#39;",
            c if c.is_control() => " ",
            _ => continue,
        };
        out.write_all(&text.as_bytes()[start..i])?;
        out.write_all(entity.as_bytes())?;
        start = i + c.len_utf8();
    }
    out.write_all(&text.as_bytes()[start..])
}

pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n =
            (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> shift) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A writer that counts what went through.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script_json(text: &str) -> String {
        let mut out = Vec::new();
        let n = write_script_json(&mut out, text).unwrap();
        assert_eq!(n, out.len());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn script_json_cannot_close_its_block() {
        let line =
            serde_json::to_string(&json!({"text": "</script><script>alert(1)</script> <!-- a & b \u{2028}\u{2029} é"}))
                .unwrap();
        let escaped = script_json(&line);
        assert!(!escaped.contains('<') && !escaped.contains('>') && !escaped.contains('&'), "{escaped}");
        assert!(!escaped.contains('\u{2028}') && !escaped.contains('\u{2029}'), "{escaped}");
        let back: Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(&line).unwrap());
    }

    #[test]
    fn html_text_is_escaped() {
        let mut out = Vec::new();
        write_html_text(&mut out, "<b a=\"x\">&'\u{7}</b>").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "&lt;b a=&quot;x&quot;&gt;&amp;&#39; &lt;/b&gt;");
    }

    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn the_policy_names_the_script_by_hash() {
        let csp = content_security_policy();
        assert!(csp.starts_with("default-src 'none';"), "{csp}");
        let script_src = csp.split(';').find(|d| d.trim().starts_with("script-src")).unwrap();
        assert!(script_src.contains("'sha256-") && !script_src.contains("unsafe"), "{csp}");
    }
}
