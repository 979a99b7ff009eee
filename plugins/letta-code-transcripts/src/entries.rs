//! `TranscriptEntry` (one line of `transcript.jsonl`) → canonical records.
//!
//! ```text
//! {kind: "user"|"assistant"|"reasoning"|"error", text, captured_at, source_line_id?, source_message_id?}
//! {kind: "tool_call", name?, argsText?, resultText?, resultOk?, captured_at, source_line_id?}
//! ```
//! A tool call and its result share one line: the call, then (when
//! `resultText` is there) the result, `ok` from `resultOk`. `captured_at` is
//! when the step's lines were appended, the only time a line has.

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Reasoning};
use trajhost_codec_sdk::diag::Diagnostics;
pub use trajhost_codec_sdk::known::Handling;
use trajhost_codec_sdk::known::{UNKNOWN_RECORD_TYPE, lookup};
use trajhost_codec_sdk::records::location_id;
use trajhost_codec_sdk::text::type_name;
use trajhost_codec_sdk::{Severity, canonical::Record, canonical::SourceSpan};

/// Every entry kind Letta Code writes (`lineToTranscriptEntry`).
pub const KNOWN_KINDS: &[(&str, Handling)] = &[
    ("user", Handling::Mapped("user")),
    ("assistant", Handling::Mapped("assistant (source_message_id → message_id)")),
    ("reasoning", Handling::Mapped("reasoning")),
    ("error", Handling::Mapped("observation `error`")),
    ("tool_call", Handling::Mapped("tool_call (argsText); tool_result when resultText (resultOk → ok)")),
];

/// One transcript line, every kind's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Entry {
    pub kind: Option<String>,
    pub text: Option<String>,
    pub captured_at: Option<String>,
    pub source_line_id: Option<String>,
    pub source_message_id: Option<String>,
    pub name: Option<String>,
    #[serde(rename = "argsText")]
    pub args_text: Option<String>,
    #[serde(rename = "resultText")]
    pub result_text: Option<String>,
    #[serde(rename = "resultOk")]
    pub result_ok: Option<bool>,
}

impl Entry {
    /// A line is an entry when it is an object with a string `kind`.
    pub fn parse(bytes: &[u8]) -> Option<Entry> {
        let value: Value = serde_json::from_slice(bytes).ok()?;
        value.get("kind")?.as_str()?;
        serde_json::from_value(value).ok()
    }
}

/// The records of the entry at `(offset, len)` of `file`.
pub fn map(entry: &Entry, file: &str, offset: u64, len: u64, diags: &mut Diagnostics) -> Vec<Record> {
    let kind = entry.kind.as_deref().unwrap_or("");
    let text = || entry.text.clone().unwrap_or_default();
    let bodies: Vec<Body> = match kind {
        "user" => vec![Body::User { text: text(), attachments: Vec::new() }],
        "assistant" => vec![Body::Assistant(Assistant {
            text: text(),
            model: None,
            message_id: entry.source_message_id.clone(),
            stop_reason: None,
            usage: None,
        })],
        "reasoning" => vec![Body::Reasoning(Reasoning { text: Some(text()), opaque: None, encrypted: false })],
        "error" => vec![Body::Observation { subtype: "error".into(), text: entry.text.clone() }],
        "tool_call" => {
            let call_id = entry
                .source_line_id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| location_id(file, offset, 0));
            let arguments = match entry.args_text.as_deref() {
                None => Value::Object(Default::default()),
                Some(raw) => serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string())),
            };
            let mut out = vec![Body::ToolCall {
                call_id: call_id.clone(),
                name: entry.name.clone().unwrap_or_else(|| "unknown".into()),
                arguments,
            }];
            if let Some(content) = &entry.result_text {
                out.push(Body::ToolResult { call_id, content: content.clone(), ok: entry.result_ok });
            }
            out
        }
        other => {
            if lookup(KNOWN_KINDS, other).is_none() {
                diags.add(UNKNOWN_RECORD_TYPE, Severity::Warning, &type_name(Some(other)), Some(file), Some(offset));
            }
            Vec::new()
        }
    };
    let first = location_id(file, offset, 0);
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| Record {
            id: location_id(file, offset, i),
            parent: (i > 0).then(|| first.clone()),
            body,
            ts: entry.captured_at.clone(),
            agent: None,
            src: Some(SourceSpan { file: file.to_string(), offset, len }),
        })
        .collect()
}
