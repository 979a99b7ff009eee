//! The readable form of a session for `trajhost read` without `--json`.

use std::io::{self, Write};

use trajhost::canonical::{Body, Record};
use trajhost::inventory::FoundSession;
use trajhost::registry::CodecRecord;

use super::terminal::safe_field;

/// Longest tool result shown in full.
const MAX_RESULT_CHARS: usize = 2000;

pub struct Transcript {
    header: String,
    records: u64,
}

impl Transcript {
    pub fn new(found: &FoundSession, codec: &CodecRecord) -> Transcript {
        let s = &found.session;
        let header = format!(
            "session  {} {}\nnative   {} (codec {})\ncwd      {}\nfile     {}\n",
            found.harness,
            safe_field(&s.native_id),
            safe_field(s.native_version.as_deref().unwrap_or("unknown version")),
            codec.id(),
            safe_field(s.cwd.as_deref().unwrap_or("-")),
            safe_field(&s.path.display().to_string()),
        );
        Transcript { header, records: 0 }
    }

    pub fn write(&mut self, out: &mut impl Write, record: &Record) -> io::Result<()> {
        if self.records == 0 {
            writeln!(out, "{}", self.header)?;
        }
        self.records += 1;
        let ts = record.ts.as_deref().map(|t| format!("[{}] ", &t[..t.len().min(19)])).unwrap_or_default();
        let agent = record.agent.as_deref().map(|a| format!("<{a}> ")).unwrap_or_default();
        match &record.body {
            Body::Meta(meta) => {
                if meta.parent_session.is_some() {
                    writeln!(out, "{ts}{agent}── subagent transcript ({}) ──", meta.native_id)?;
                }
            }
            Body::System { text } => block(out, &format!("{ts}{agent}system"), text)?,
            Body::User { text, attachments } => {
                let extra = if attachments.is_empty() {
                    String::new()
                } else {
                    format!(" (+{} attachments)", attachments.len())
                };
                block(out, &format!("{ts}{agent}user{extra}"), text)?
            }
            Body::Assistant(a) => {
                let model = a.model.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
                if !a.text.is_empty() {
                    block(out, &format!("{ts}{agent}assistant{model}"), &a.text)?;
                }
            }
            Body::Reasoning(r) => match &r.text {
                Some(text) => block(out, &format!("{ts}{agent}reasoning"), text)?,
                None => writeln!(out, "{ts}{agent}reasoning [opaque{}]", if r.encrypted { ", encrypted" } else { "" })?,
            },
            Body::ToolCall { call_id, name, arguments } => {
                writeln!(out, "{ts}{agent}tool call {name} [{call_id}]")?;
                writeln!(out, "    {}", arguments)?;
            }
            Body::ToolResult { call_id, content, ok } => {
                let status = match ok {
                    Some(true) => " ok",
                    Some(false) => " FAILED",
                    None => "",
                };
                block(out, &format!("{ts}{agent}tool result{status} [{call_id}]"), &truncate(content))?
            }
            Body::Observation { subtype, text } => writeln!(
                out,
                "{ts}{agent}· {subtype}{}",
                text.as_deref().map(|t| format!(": {}", one_line(t))).unwrap_or_default()
            )?,
            Body::Compaction { summary, .. } => block(out, &format!("{ts}{agent}compaction summary"), summary)?,
        }
        Ok(())
    }

    pub fn finish(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "\n{} records", self.records)
    }
}

fn block(out: &mut impl Write, title: &str, text: &str) -> io::Result<()> {
    writeln!(out, "{title}")?;
    for line in text.lines() {
        writeln!(out, "    {line}")?;
    }
    Ok(())
}

fn truncate(text: &str) -> String {
    if text.chars().count() <= MAX_RESULT_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(MAX_RESULT_CHARS).collect();
    format!("{head}\n… ({} more bytes)", text.len() - head.len())
}

fn one_line(text: &str) -> String {
    let line: String = text.lines().next().unwrap_or("").chars().take(120).collect();
    line
}
