//! `write`: a canonical session → the files of OpenCode's per-project JSON
//! tree, the layout of the releases before 0.6 (verified against 0.5.29):
//!
//! ```text
//! .local/share/opencode/project/<project>/storage/session/info/<ses>.json              Session.Info
//! .local/share/opencode/project/<project>/storage/session/message/<ses>/<msg>.json     MessageV2.Info
//! .local/share/opencode/project/<project>/storage/session/part/<ses>/<msg>/<prt>.json  MessageV2.Part
//! ```
//!
//! 0.6.0 moved every project's tree into one global tree
//! (`storage/session/<projectID>/<ses>.json`, `storage/message/<ses>/…`,
//! `storage/part/<msg>/…`, its first storage migration), which 1.x later
//! imported into `opencode.db`. This writer writes the older layout only
//! ([`crate::WRITES_FOR`]); the `opencode` codec writes for 1.x.
//!
//! `<project>` is `global` in the export: where the session belongs is the
//! target's business (its git root), so `prepare` moves the files to the
//! project directory OpenCode will look in.
//!
//! The files, field by field as OpenCode 0.5.29 writes them
//! (fixtures/opencode/0.5.29; `JSON.stringify(…, null, 2)`, one object each;
//! every part also has `id`, `messageID`, `sessionID`):
//!
//! ```text
//! info       {id, version, title, time{created, updated}}          (no directory, no projectID)
//! user       {id, role "user", sessionID, time{created}}
//!   parts    text{text}
//! assistant  {id, role "assistant", sessionID, system [], mode "build", path{cwd, root}, cost,
//!             tokens{input, output, reasoning, cache{read, write}}, modelID, providerID,
//!             time{created, completed}; summary true for a compaction's summary}
//!   parts    step-start, reasoning…, text, tool{callID, tool, state{status completed|error, input,
//!             output|error, title, metadata, time{start, end}}}…, step-finish{tokens, cost}
//! ```
//!
//! 0.5.29 records no `finish` on a message and no `reason` on a
//! `step-finish`, and fills `system` with the system prompt it sent (written
//! empty here: OpenCode builds the prompt anew on every turn).
//!
//! One assistant message per model step (the canonical run `reasoning*
//! assistant? tool_call*` and the results that follow), so the order of the
//! written parts is the order of the records: a call, its result, then the
//! text of the next step. Ids increase in that order ([`Ids`], seeded by the
//! meta line: the same session gives the same files).
//!
//! Streamed: a user message's files go out when it is read; an assistant
//! message's when its step ends; the session file last (it holds the last
//! time). Memory holds one model step.
//!
//! Filled and named in a `defaulted` diagnostic: usage the source did not
//! record (zeros: the fields are required), a model without a name, the
//! provider (`unknown`: canonical records name none), a tool call without a
//! result (an `error` state). Not carried (`not-carried`): system prompts,
//! opaque reasoning, observations, attachments, subagent transcripts, results
//! without their call, a compaction's trigger (0.5 has no compaction part).

use serde_json::{Value, json};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Record};
use trajhost_codec_sdk::diag::Diagnostics;
use trajhost_codec_sdk::time::parse_rfc3339;
use trajhost_codec_sdk::writer::CanonicalInput;
use trajhost_codec_sdk::{Artifact, CodecError, SessionWriter, Severity, WriteOptions, Written};
use trajhost_opencode_core::ids::{self, Ids};
use trajhost_opencode_core::written::{Tool, tool_state};

use crate::HARNESS;
use crate::layout;

/// The OpenCode version a session file claims when the source is not an
/// OpenCode session of this layout: the one its resume was verified with.
pub const OPENCODE_VERSION: &str = "0.5.29";
/// `providerID` of written messages (canonical records name no provider).
pub const UNKNOWN: &str = "unknown";
/// The project directory of the export (`prepare` moves the files).
pub const EXPORT_PROJECT: &str = "global";

/// The session's files in the export, relative to the home.
pub fn export_root() -> String {
    format!("{}/{EXPORT_PROJECT}/{}/{}", layout::PROJECTS, layout::PROJECT_STORAGE, layout::SESSION)
}

/// The model step being gathered.
struct Open {
    id: String,
    ms: i64,
    end_ms: i64,
    reasoning: Vec<(String, i64)>,
    assistant: Option<Assistant>,
    tools: Vec<Tool>,
    summary: bool,
}

/// The session, once its id is known.
struct Session {
    id: String,
    root: String,
    cwd: String,
    ids: Ids,
    start_ms: i64,
    last_ms: i64,
    last_user: Option<String>,
    open: Option<Open>,
    model: Option<String>,
}

/// The streaming writer.
pub struct Writer {
    options: WriteOptions,
    meta: Option<Meta>,
    meta_line: Option<String>,
    session: Option<Session>,
    input: CanonicalInput,
    chunks: Vec<Artifact>,
    diags: Diagnostics,
}

impl Writer {
    pub fn new(options: WriteOptions) -> Writer {
        Writer {
            options,
            meta: None,
            meta_line: None,
            session: None,
            input: CanonicalInput::new(),
            chunks: Vec::new(),
            diags: Diagnostics::new(),
        }
    }

    /// The session's id, paths and ids, from the meta (else the first record).
    fn open(&mut self, first_line: &str, first_ts: Option<&str>) -> Result<(), CodecError> {
        let start_ms = self
            .meta
            .as_ref()
            .and_then(|m| m.started_at.as_deref())
            .or(first_ts)
            .and_then(parse_rfc3339)
            .unwrap_or_else(|| {
                self.diags.add("no-timestamp", Severity::Warning, "session.time", None, None);
                0
            });
        let mut ids = Ids::new(self.meta_line.as_deref().unwrap_or(first_line).as_bytes());
        let id = match self.options.native_id.as_deref() {
            Some(id) if ids::is_id(id, "ses") => id.to_string(),
            Some(_) => {
                return Err(CodecError::Other("write-options.native-id must be an OpenCode session id (ses_…)".into()));
            }
            None => ids.session(start_ms),
        };
        let cwd =
            self.options.cwd.clone().or_else(|| self.meta.as_ref().and_then(|m| m.cwd.clone())).unwrap_or_else(|| {
                self.diags.add("no-cwd", Severity::Warning, "assistant.path.cwd", None, None);
                "/".to_string()
            });
        self.session = Some(Session {
            id,
            root: export_root(),
            cwd,
            ids,
            start_ms,
            last_ms: start_ms,
            last_user: None,
            open: None,
            model: None,
        });
        Ok(())
    }

    fn not_carried(&mut self, what: &str, severity: Severity) {
        self.diags.add("not-carried", severity, what, None, None);
    }

    fn defaulted(&mut self, what: &str) {
        self.diags.add("defaulted", Severity::Info, what, None, None);
    }

    /// A file of the session, whole (as 0.5.29 writes them: two-space
    /// indents, no newline at the end).
    fn file(&mut self, path: String, value: &Value) {
        let bytes = serde_json::to_vec_pretty(value).expect("JSON serializes");
        self.chunks.push(Artifact { path, bytes });
    }

    fn s(&mut self) -> &mut Session {
        self.session.as_mut().expect("opened before records")
    }

    fn record(&mut self, record: Record) {
        if record.agent.is_some() {
            self.not_carried("subagent-transcript", Severity::Warning);
            return;
        }
        let last = self.s().last_ms;
        let ms = record.ts.as_deref().and_then(parse_rfc3339).unwrap_or(last);
        match record.body {
            Body::Reasoning(r) => {
                if self.s().open.as_ref().is_some_and(|o| o.assistant.is_some() || !o.tools.is_empty()) {
                    self.close();
                }
                if r.opaque.is_some() {
                    self.not_carried("opaque-reasoning", Severity::Info);
                }
                if let Some(text) = r.text.filter(|t| !t.is_empty()) {
                    self.open_at(ms).reasoning.push((text, ms));
                }
            }
            Body::Assistant(a) => {
                if self.s().open.as_ref().is_some_and(|o| o.assistant.is_some() || !o.tools.is_empty()) {
                    self.close();
                }
                self.open_at(ms).assistant = Some(a);
            }
            Body::ToolCall { call_id, name, arguments } => {
                if self.s().open.as_ref().is_some_and(|o| o.tools.iter().any(|t| t.4.is_some())) {
                    // Calls after results: a new model step.
                    self.close();
                }
                let arguments = match arguments {
                    Value::Object(_) => arguments,
                    other => {
                        self.defaulted("tool.state.input (not an object, wrapped as {\"input\": …})");
                        json!({ "input": other })
                    }
                };
                self.open_at(ms).tools.push((call_id, name, arguments, ms, None));
            }
            Body::ToolResult { call_id, content, ok } => {
                let open = self.s().open.as_mut();
                let slot = open.and_then(|o| {
                    o.end_ms = o.end_ms.max(ms);
                    o.tools.iter_mut().find(|t| t.0 == call_id && t.4.is_none())
                });
                match slot {
                    Some(tool) => tool.4 = Some((content, ok, ms)),
                    None => self.not_carried("orphan-tool-result", Severity::Warning),
                }
            }
            Body::User { text, attachments } => {
                self.close();
                for _ in &attachments {
                    self.not_carried("attachment", Severity::Warning);
                }
                let id = self.s().ids.ascending("msg");
                self.user_message(&id, ms);
                self.part(&id, json!({"type": "text", "text": text}));
            }
            Body::Compaction { summary, trigger } => {
                self.close();
                if summary.is_empty() {
                    self.not_carried("opaque-compaction", Severity::Warning);
                } else {
                    if trigger.is_some() {
                        self.not_carried("compaction-trigger", Severity::Info);
                    }
                    let open = self.open_at(ms);
                    open.summary = true;
                    open.assistant = Some(Assistant { text: summary, ..Assistant::default() });
                    self.close();
                }
            }
            Body::System { .. } => self.not_carried("system", Severity::Info),
            Body::Observation { subtype, .. } => {
                let what = format!("observation/{}", crate::type_name(&subtype));
                self.not_carried(&what, Severity::Info);
            }
            Body::Meta(_) => self.not_carried("additional-meta", Severity::Info),
        }
        let s = self.s();
        s.last_ms = s.last_ms.max(ms);
    }

    fn open_at(&mut self, ms: i64) -> &mut Open {
        let s = self.s();
        if s.open.is_none() {
            let id = s.ids.ascending("msg");
            s.open = Some(Open {
                id,
                ms,
                end_ms: ms,
                reasoning: Vec::new(),
                assistant: None,
                tools: Vec::new(),
                summary: false,
            });
        }
        s.open.as_mut().expect("just opened")
    }

    fn message_path(&self, message: &str) -> String {
        let s = self.session.as_ref().expect("opened");
        format!("{}/{}/{}/{message}{}", s.root, layout::MESSAGE, s.id, layout::JSON)
    }

    /// A part of `message` (its id, session and message ids added), written out.
    fn part(&mut self, message: &str, mut fields: Value) {
        let s = self.s();
        let id = s.ids.ascending("prt");
        let session = s.id.clone();
        let path = format!("{}/{}/{session}/{message}/{id}{}", s.root, layout::PART, layout::JSON);
        if let Value::Object(map) = &mut fields {
            map.insert("id".into(), Value::from(id));
            map.insert("messageID".into(), Value::from(message));
            map.insert("sessionID".into(), Value::from(session));
        }
        self.file(path, &fields);
    }

    fn user_message(&mut self, id: &str, ms: i64) {
        let s = self.s();
        s.last_user = Some(id.to_string());
        let info = json!({"id": id, "role": "user", "sessionID": s.id, "time": {"created": ms}});
        let path = self.message_path(id);
        self.file(path, &info);
    }

    /// Writes the gathered model step: its message file, then its parts.
    fn close(&mut self) {
        let Some(open) = self.s().open.take() else { return };
        let assistant = open.assistant.clone().unwrap_or_default();
        let model = match assistant.model.clone().filter(|m| !m.is_empty()) {
            Some(m) => {
                self.s().model = Some(m.clone());
                m
            }
            None if open.summary => self.s().model.clone().unwrap_or_else(|| UNKNOWN.to_string()),
            None => {
                self.defaulted("assistant.modelID");
                self.s().model.clone().unwrap_or_else(|| UNKNOWN.to_string())
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
        let tokens = json!({
            "input": usage.input.unwrap_or(0),
            "output": usage.output.unwrap_or(0),
            "reasoning": usage.reasoning.unwrap_or(0),
            "cache": {"read": usage.cache_read.unwrap_or(0), "write": usage.cache_write.unwrap_or(0)},
        });
        let cost = usage.cost_usd.unwrap_or(0.0);
        let id = open.id.clone();
        let (cwd, session) = {
            let s = self.s();
            (s.cwd.clone(), s.id.clone())
        };
        if self.s().last_user.is_none() && !open.summary {
            self.defaulted("assistant.parentID (no user message before it)");
        }
        let mut info = json!({
            "id": id,
            "role": "assistant",
            "sessionID": session,
            "system": [],
            "mode": "build",
            "path": {"cwd": cwd, "root": cwd},
            "cost": cost,
            "tokens": tokens,
            "modelID": model,
            "providerID": UNKNOWN,
            "time": {"created": open.ms, "completed": open.end_ms},
        });
        if open.summary {
            info["summary"] = Value::Bool(true);
        }
        let path = self.message_path(&id);
        self.file(path, &info);
        self.part(&id, json!({"type": "step-start"}));
        for (text, ms) in &open.reasoning {
            self.part(&id, json!({"type": "reasoning", "text": text, "time": {"start": ms, "end": ms}}));
        }
        if !assistant.text.is_empty() {
            let text = json!({"type": "text", "text": assistant.text, "time": {"start": open.ms, "end": open.ms}});
            self.part(&id, text);
        }
        for (call_id, name, input, ms, result) in &open.tools {
            let (state, defaulted) = tool_state(input, *ms, result.as_ref());
            if let Some(what) = defaulted {
                self.defaulted(what);
            }
            self.part(&id, json!({"type": "tool", "callID": call_id, "tool": name, "state": state}));
        }
        self.part(&id, json!({"type": "step-finish", "tokens": tokens, "cost": cost}));
    }
}

impl SessionWriter for Writer {
    fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
        for line in records.lines() {
            let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
            if self.session.is_none() {
                if let Body::Meta(m) = &record.body
                    && self.meta.is_none()
                {
                    self.meta = Some(m.clone());
                    self.meta_line = Some(line.to_string());
                    if m.started_at.is_some() {
                        self.open(line, None)?;
                    }
                    continue;
                }
                self.open(line, record.ts.as_deref())?;
            }
            self.record(record);
        }
        Ok(std::mem::take(&mut self.chunks))
    }

    fn finish(&mut self) -> Result<Written, CodecError> {
        if self.session.is_none() {
            if self.meta.is_none() {
                return Err(CodecError::Malformed("the canonical document holds no records".into()));
            }
            let line = self.meta_line.clone().unwrap_or_default();
            self.open(&line, None)?;
        }
        self.close();
        let s = self.session.take().expect("opened");
        let meta = self.meta.as_ref();
        let title = meta.and_then(|m| m.title.clone()).unwrap_or_else(|| "Imported session".to_string());
        let version = meta
            .filter(|m| m.harness == HARNESS)
            .and_then(|m| m.native_version.clone())
            .filter(|v| crate::writes_for(v))
            .unwrap_or_else(|| OPENCODE_VERSION.to_string());
        let info = json!({
            "id": s.id,
            "version": version,
            "title": title,
            "time": {"created": s.start_ms, "updated": s.last_ms.max(s.start_ms)},
        });
        let path = format!("{}/{}/{}{}", s.root, layout::INFO, s.id, layout::JSON);
        self.file(path, &info);
        Ok(Written { native_id: s.id, chunks: std::mem::take(&mut self.chunks), diagnostics: self.diags.drain() })
    }
}
