//! `write`: a canonical session → one OpenCode import document, the JSON
//! `opencode export` prints and `opencode import <file>` loads:
//!
//! ```text
//! {"info": {id, slug, projectID, directory, path, title, version, time{created, updated}},
//!  "messages": [{"info": <message>, "parts": [<part>…]}…]}
//! user message        {id, sessionID, role "user", time{created}, agent "build", model{providerID, modelID}}
//!   parts             text; compaction{auto} for a canonical compaction
//! assistant message   {id, sessionID, role "assistant", parentID (the user message), mode/agent "build",
//!                      path{cwd, root}, modelID, providerID, cost, tokens{input, output, reasoning, cache{read, write}},
//!                      time{created, completed}, finish; summary true for a compaction's summary}
//!   parts             step-start, reasoning…, text, tool{callID, tool, state{status completed|error,
//!                      input, output|error, title, metadata, time}}…, step-finish{reason, tokens, cost}
//! ```
//!
//! A model response is the canonical run `reasoning* assistant? tool_call*`
//! and the tool results that follow it: one assistant message whose tool
//! parts carry their results. `opencode import` sets the project, directory
//! and path from where it runs, so `prepare`'s command runs it in the cwd.
//!
//! Filled and named in a `defaulted` diagnostic: usage the source did not
//! record (zeros: OpenCode's `tokens` are required), a model without a
//! name (`unknown`), the provider (`unknown` unless the session came from
//! OpenCode… which records no provider in canonical form either, so always
//! `unknown`), a tool call without a result (an `error` state). Not carried
//! (`not-carried`): system prompts, opaque reasoning, observations, image
//! attachments, subagent transcripts, results without their call.

use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::writer::CanonicalDocument;
use trajhost_codec_sdk::{Artifact, CodecError, Severity, WriteOptions, Written};
use trajhost_opencode_core::written::{Tool, tool_state};

use crate::HARNESS;
use crate::ids::Ids;
use crate::layout::IMPORT_DIR;
use crate::time::parse_rfc3339;

/// Largest canonical document accepted.
pub const MAX_DOCUMENT_BYTES: usize = 512 << 20;
/// The version the document claims when the source is another harness: the
/// one its import was verified against.
pub use crate::flavor::WRITTEN_VERSION;
/// `providerID` of written messages (the canonical record has no provider).
pub const UNKNOWN: &str = "unknown";

pub fn write(session: &str, options: &WriteOptions) -> Result<Written, CodecError> {
    let mut diags = Diagnostics::new();
    let document = CanonicalDocument::parse(session, MAX_DOCUMENT_BYTES, &mut diags)?;
    let start_ms = document.start_ms().unwrap_or_else(|| {
        diags.add("defaulted", Severity::Warning, "session.time", None, None);
        0
    });
    let same_harness = document.is_from(HARNESS);
    let CanonicalDocument { meta, records } = document;
    let mut ids = Ids::new(session.as_bytes());
    let native_id = match options.native_id.as_deref() {
        Some(id)
            if id.starts_with("ses_") && id.len() > 4 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
        {
            id.to_string()
        }
        Some(_) => {
            return Err(CodecError::Other("write-options.native-id must be an OpenCode session id (ses_…)".into()));
        }
        None => ids.session(start_ms),
    };
    let cwd = options.cwd.clone().or_else(|| meta.as_ref().and_then(|m| m.cwd.clone())).unwrap_or_else(|| {
        diags.add("defaulted", Severity::Warning, "session.directory", None, None);
        "/".to_string()
    });
    let mut doc = Document {
        session: native_id.clone(),
        cwd: cwd.clone(),
        ids,
        messages: Vec::new(),
        last_user: None,
        open: None,
        last_ms: start_ms,
        model: first_model(&records),
        diags,
    };
    for record in &records {
        doc.record(record);
    }
    doc.close();
    let Document { messages, mut diags, last_ms, .. } = doc;
    let title = meta.as_ref().and_then(|m| m.title.clone()).unwrap_or_else(|| "Imported session".to_string());
    let version = meta
        .as_ref()
        .filter(|_| same_harness)
        .and_then(|m| m.native_version.clone())
        .unwrap_or_else(|| WRITTEN_VERSION.to_string());
    let info = json!({
        "id": native_id,
        "slug": slug(&native_id),
        "projectID": "global",
        "directory": cwd,
        "path": "",
        "title": title,
        "version": version,
        "time": {"created": start_ms, "updated": last_ms.max(start_ms)},
    });
    let document = json!({"info": info, "messages": messages});
    let mut bytes = serde_json::to_vec_pretty(&document).expect("document serializes");
    bytes.push(b'\n');
    Ok(Written {
        native_id: native_id.clone(),
        chunks: vec![Artifact { path: format!("{IMPORT_DIR}/{native_id}.json"), bytes }],
        diagnostics: diags.drain(),
    })
}

/// A readable slug from the id (OpenCode's are random word pairs).
fn slug(id: &str) -> String {
    format!("imported-{}", id.trim_start_matches("ses_").chars().rev().take(8).collect::<String>().to_ascii_lowercase())
}

fn first_model(records: &[Record]) -> Option<String> {
    records.iter().find_map(|r| match &r.body {
        Body::Assistant(a) => a.model.clone().filter(|m| !m.is_empty()),
        _ => None,
    })
}

/// The assistant message being gathered.
struct Open {
    id: String,
    ms: i64,
    end_ms: i64,
    reasoning: Vec<(String, i64)>,
    assistant: Option<Assistant>,
    tools: Vec<Tool>,
    summary: bool,
}

struct Document {
    session: String,
    cwd: String,
    ids: Ids,
    messages: Vec<Value>,
    last_user: Option<String>,
    open: Option<Open>,
    last_ms: i64,
    model: Option<String>,
    diags: Diagnostics,
}

impl Document {
    fn defaulted(&mut self, what: &str) {
        self.diags.add("defaulted", Severity::Info, what, None, None);
    }

    fn part(&mut self, message: &str, mut fields: Value) -> Value {
        let id = self.ids.ascending("prt");
        if let Value::Object(map) = &mut fields {
            map.insert("id".into(), Value::from(id));
            map.insert("sessionID".into(), Value::from(self.session.clone()));
            map.insert("messageID".into(), Value::from(message));
        }
        fields
    }

    fn open_at(&mut self, ms: i64) -> &mut Open {
        if self.open.is_none() {
            let id = self.ids.ascending("msg");
            self.open = Some(Open {
                id,
                ms,
                end_ms: ms,
                reasoning: Vec::new(),
                assistant: None,
                tools: Vec::new(),
                summary: false,
            });
        }
        self.open.as_mut().expect("just opened")
    }

    fn record(&mut self, record: &Record) {
        let ms = record.ts.as_deref().and_then(parse_rfc3339).unwrap_or(self.last_ms);
        match &record.body {
            Body::Reasoning(r) => {
                if self.open.as_ref().is_some_and(|o| o.assistant.is_some() || !o.tools.is_empty()) {
                    self.close();
                }
                if r.opaque.is_some() {
                    self.diags.not_carried("opaque-reasoning");
                }
                if let Some(text) = r.text.clone().filter(|t| !t.is_empty()) {
                    self.open_at(ms).reasoning.push((text, ms));
                }
            }
            Body::Assistant(a) => {
                if self.open.as_ref().is_some_and(|o| o.assistant.is_some() || !o.tools.is_empty()) {
                    self.close();
                }
                self.open_at(ms).assistant = Some(a.clone());
            }
            Body::ToolCall { call_id, name, arguments } => {
                if self.open.as_ref().is_some_and(|o| o.tools.iter().any(|t| t.4.is_some())) {
                    // Calls after results: a new model response.
                    self.close();
                }
                let arguments = match arguments {
                    Value::Object(_) => arguments.clone(),
                    other => {
                        self.defaulted("tool.state.input (not an object, wrapped as {\"input\": …})");
                        json!({ "input": other })
                    }
                };
                self.open_at(ms).tools.push((call_id.clone(), name.clone(), arguments, ms, None));
            }
            Body::ToolResult { call_id, content, ok } => {
                let slot =
                    self.open.as_mut().and_then(|o| o.tools.iter_mut().find(|t| t.0 == *call_id && t.4.is_none()));
                match slot {
                    Some(tool) => {
                        tool.4 = Some((content.clone(), *ok, ms));
                        if let Some(open) = self.open.as_mut() {
                            open.end_ms = open.end_ms.max(ms);
                        }
                    }
                    None => self.diags.not_carried("orphan-tool-result"),
                }
            }
            Body::User { text, attachments } => {
                self.close();
                for _ in attachments {
                    self.diags.not_carried("attachment");
                }
                let id = self.ids.ascending("msg");
                let part = self.part(&id, json!({"type": "text", "text": text}));
                self.user_message(&id, ms, vec![part]);
            }
            Body::Compaction { summary, trigger } => {
                self.close();
                if summary.is_empty() {
                    self.diags.not_carried("opaque-compaction");
                    return;
                }
                let id = self.ids.ascending("msg");
                let part = self.part(&id, json!({"type": "compaction", "auto": trigger.as_deref() != Some("manual")}));
                self.user_message(&id, ms, vec![part]);
                let open = self.open_at(ms);
                open.summary = true;
                open.assistant = Some(Assistant { text: summary.clone(), ..Assistant::default() });
                self.close();
            }
            Body::System { .. } => self.diags.not_carried("system"),
            Body::Observation { subtype, .. } => {
                let what = format!("observation/{}", crate::type_name(subtype));
                self.diags.not_carried(&what);
            }
            Body::Meta(_) => {}
        }
        self.last_ms = self.last_ms.max(ms);
    }

    fn user_message(&mut self, id: &str, ms: i64, parts: Vec<Value>) {
        let model = self.model.clone().unwrap_or_else(|| UNKNOWN.to_string());
        let info = json!({
            "id": id,
            "sessionID": self.session,
            "role": "user",
            "time": {"created": ms},
            "agent": crate::flavor::AGENT,
            "model": {"providerID": UNKNOWN, "modelID": model},
        });
        self.messages.push(json!({"info": info, "parts": parts}));
        self.last_user = Some(id.to_string());
    }

    /// Writes the gathered assistant message.
    fn close(&mut self) {
        let Some(open) = self.open.take() else { return };
        let assistant = open.assistant.clone().unwrap_or_default();
        let model = match assistant.model.clone().filter(|m| !m.is_empty()) {
            Some(m) => {
                self.model = Some(m.clone());
                m
            }
            None if open.summary => self.model.clone().unwrap_or_else(|| UNKNOWN.to_string()),
            None => {
                self.defaulted("assistant.modelID");
                UNKNOWN.to_string()
            }
        };
        let usage = match &assistant.usage {
            Some(u) => u.clone(),
            None => {
                if !open.summary {
                    self.defaulted("assistant.tokens");
                }
                Default::default()
            }
        };
        let (input, output) = (usage.input.unwrap_or(0), usage.output.unwrap_or(0));
        let (read, write, reasoning) =
            (usage.cache_read.unwrap_or(0), usage.cache_write.unwrap_or(0), usage.reasoning.unwrap_or(0));
        let tokens = json!({
            "total": input + output + read + write + reasoning,
            "input": input, "output": output, "reasoning": reasoning,
            "cache": {"read": read, "write": write},
        });
        let cost = usage.cost_usd.unwrap_or(0.0);
        let has_calls = !open.tools.is_empty();
        let finish = match assistant.stop_reason.as_deref() {
            Some("tool-calls" | "stop" | "length" | "error" | "content-filter" | "other" | "unknown") => {
                assistant.stop_reason.clone().unwrap_or_default()
            }
            _ if has_calls => "tool-calls".to_string(),
            Some("max_tokens" | "max_output_tokens") => "length".to_string(),
            _ => "stop".to_string(),
        };
        let id = open.id.clone();
        let mut parts = vec![self.part(&id, json!({"type": "step-start"}))];
        for (text, ms) in &open.reasoning {
            let part = self.part(&id, json!({"type": "reasoning", "text": text, "time": {"start": ms, "end": ms}}));
            parts.push(part);
        }
        if !assistant.text.is_empty() {
            let part = self
                .part(&id, json!({"type": "text", "text": assistant.text, "time": {"start": open.ms, "end": open.ms}}));
            parts.push(part);
        }
        for (call_id, name, input, ms, result) in &open.tools {
            let (state, defaulted) = tool_state(input, *ms, result.as_ref());
            if let Some(what) = defaulted {
                self.defaulted(what);
            }
            let part = self.part(&id, json!({"type": "tool", "tool": name, "callID": call_id, "state": state}));
            parts.push(part);
        }
        let finish_part = json!({"type": "step-finish", "reason": finish, "tokens": tokens, "cost": cost});
        parts.push(self.part(&id, finish_part));
        let mut info = json!({
            "id": id,
            "sessionID": self.session,
            "role": "assistant",
            "parentID": self.last_user.clone().unwrap_or_default(),
            "mode": crate::flavor::AGENT,
            "agent": crate::flavor::AGENT,
            "path": {"cwd": self.cwd, "root": "/"},
            "cost": cost,
            "tokens": tokens,
            "modelID": model,
            "providerID": UNKNOWN,
            "time": {"created": open.ms, "completed": open.end_ms},
            "finish": finish,
        });
        if open.summary {
            info["summary"] = Value::Bool(true);
        }
        if self.last_user.is_none() {
            self.defaulted("assistant.parentID");
        }
        self.messages.push(json!({"info": info, "parts": parts}));
    }
}
