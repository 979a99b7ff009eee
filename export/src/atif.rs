//! Canonical records → Harbor's Agent Trajectory Interchange Format,
//! `ATIF-v1.7` (harbor RFC 0001 and its `harbor.models.trajectories`).
//!
//! - a `user` record is a `user` step, a `system` record a `system` step;
//! - a model call (a run of reasoning / assistant / tool-call records of one
//!   agent) is one `agent` step: `message` its text, `reasoning_content` its
//!   readable reasoning, `tool_calls` its calls, `metrics` its recorded usage,
//!   and `observation.results` the results of those calls (each
//!   `source_call_id` one of the step's `tool_call_id`s);
//! - observations, compactions, and results whose call is in an earlier step
//!   or nowhere are `system` steps, marked in `extra.trajhost`;
//! - a subagent's records form an embedded trajectory in
//!   `subagent_trajectories` (`trajectory_id` = the subagent id);
//! - what ATIF has no field for goes to `extra` (docs/export.md lists it);
//!   `final_metrics` only when some usage was recorded.
//!
//! The main steps are written as they complete; the object's other keys
//! (`agent`, `final_metrics`, …) follow the steps, which JSON allows.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use serde_json::{Map, Value, json};
use trajhost_canonical::{Body, Meta, Record, Usage};

use crate::ExportError;

pub const SCHEMA_VERSION: &str = "ATIF-v1.7";

/// The step being built.
struct Step {
    source: &'static str,
    timestamp: Option<String>,
    message: String,
    reasoning: Vec<String>,
    model: Option<String>,
    tool_calls: Vec<Value>,
    call_ids: HashSet<String>,
    results: Vec<Value>,
    metrics: Vec<(String, Usage)>,
    extra: Map<String, Value>,
    ids: Vec<String>,
    message_ids: Vec<String>,
}

impl Step {
    fn new(source: &'static str, record: &Record) -> Step {
        Step {
            source,
            timestamp: record.ts.clone().filter(|t| crate::time::unix_nanos(t).is_some()),
            message: String::new(),
            reasoning: Vec::new(),
            model: None,
            tool_calls: Vec::new(),
            call_ids: HashSet::new(),
            results: Vec::new(),
            metrics: Vec::new(),
            extra: timestamp_extra(record),
            ids: vec![record.id.clone()],
            message_ids: Vec::new(),
        }
    }
}

/// A raw timestamp that is not ISO 8601 goes to extra.
fn timestamp_extra(record: &Record) -> Map<String, Value> {
    let mut extra = Map::new();
    if let Some(ts) = &record.ts
        && crate::time::unix_nanos(ts).is_none()
    {
        extra.insert("raw_timestamp".into(), json!(ts));
    }
    extra
}

/// Totals over the steps that recorded usage.
#[derive(Default)]
struct Totals {
    prompt: Option<u64>,
    completion: Option<u64>,
    cached: Option<u64>,
    cost: Option<f64>,
}

fn add(slot: &mut Option<u64>, value: Option<u64>) {
    if let Some(v) = value {
        *slot = Some(slot.unwrap_or(0) + v);
    }
}

/// One agent's step sequence (the session's own, or a subagent's).
#[derive(Default)]
struct Sequence {
    open: Option<Step>,
    steps: u64,
    /// Call ids of steps already written: their late results are system steps.
    answered_elsewhere: HashSet<String>,
    models: BTreeMap<String, u64>,
    totals: Totals,
    /// A subagent's steps, serialized (the main sequence streams instead).
    buffer: Vec<u8>,
}

/// Writes one session as one ATIF trajectory (a JSON object, then a newline).
pub struct AtifWriter<W: Write> {
    out: W,
    meta: Meta,
    main: Sequence,
    subagents: BTreeMap<String, Sequence>,
}

impl<W: Write> AtifWriter<W> {
    pub fn new(meta_record: &Record, mut out: W) -> Result<AtifWriter<W>, ExportError> {
        let Body::Meta(meta) = &meta_record.body else { return Err(ExportError::NoMeta(meta_record.id.clone())) };
        out.write_all(b"{\"schema_version\":")?;
        serde_json::to_writer(&mut out, SCHEMA_VERSION).map_err(std::io::Error::from)?;
        out.write_all(b",\"session_id\":")?;
        serde_json::to_writer(&mut out, &meta.native_id).map_err(std::io::Error::from)?;
        out.write_all(b",\"steps\":[")?;
        Ok(AtifWriter { out, meta: meta.clone(), main: Sequence::default(), subagents: BTreeMap::new() })
    }

    pub fn push(&mut self, record: &Record) -> Result<(), ExportError> {
        let (sequence, out): (&mut Sequence, Option<&mut W>) = match &record.agent {
            None => (&mut self.main, Some(&mut self.out)),
            Some(agent) => (self.subagents.entry(agent.clone()).or_default(), None),
        };
        push(sequence, out, record)
    }

    /// Closes the trajectory; returns the writer.
    pub fn finish(mut self) -> Result<W, ExportError> {
        let mut notes = Vec::new();
        if self.main.open.is_none() && self.main.steps == 0 {
            // ATIF needs one step: an empty session is a system step saying so.
            let mut step = Step::new(
                "system",
                &Record {
                    id: String::new(),
                    body: Body::System { text: String::new() },
                    parent: None,
                    ts: self.meta.started_at.clone(),
                    agent: None,
                    src: None,
                },
            );
            step.ids.clear();
            step.extra.insert("trajhost".into(), json!({"kind": "empty_session"}));
            self.main.open = Some(step);
            notes.push("the session recorded no messages; its one step is a placeholder");
        }
        flush(&mut self.main, Some(&mut self.out))?;
        self.out.write_all(b"]")?;
        let mut rest = Map::new();
        rest.insert("agent".into(), agent(&self.meta, &self.main));
        if let Some(metrics) = final_metrics(&self.main) {
            rest.insert("final_metrics".into(), metrics);
        }
        let m = &self.meta;
        let mut trajhost = Map::new();
        trajhost.insert("harness".into(), json!(m.harness));
        trajhost.insert("native_id".into(), json!(m.native_id));
        for (key, value) in [
            ("native_version", &m.native_version),
            ("cwd", &m.cwd),
            ("title", &m.title),
            ("git_branch", &m.git_branch),
            ("started_at", &m.started_at),
            ("parent_session", &m.parent_session),
            ("parent_call", &m.parent_call),
            ("codec", &m.codec),
        ] {
            if let Some(value) = value {
                trajhost.insert(key.into(), json!(value));
            }
        }
        trajhost.insert("schema".into(), json!(trajhost_canonical::SCHEMA));
        rest.insert("extra".into(), json!({"trajhost": trajhost}));
        if !notes.is_empty() {
            rest.insert("notes".into(), json!(notes.join("; ")));
        }
        for (key, value) in &rest {
            self.out.write_all(b",")?;
            serde_json::to_writer(&mut self.out, key).map_err(std::io::Error::from)?;
            self.out.write_all(b":")?;
            serde_json::to_writer(&mut self.out, value).map_err(std::io::Error::from)?;
        }
        if !self.subagents.is_empty() {
            self.out.write_all(b",\"subagent_trajectories\":[")?;
            let subagents = std::mem::take(&mut self.subagents);
            for (i, (id, mut sequence)) in subagents.into_iter().enumerate() {
                flush::<W>(&mut sequence, None)?;
                if i > 0 {
                    self.out.write_all(b",")?;
                }
                self.out.write_all(b"{\"schema_version\":")?;
                serde_json::to_writer(&mut self.out, SCHEMA_VERSION).map_err(std::io::Error::from)?;
                let head = json!({"session_id": m.native_id, "trajectory_id": id});
                for key in ["session_id", "trajectory_id"] {
                    write!(self.out, ",\"{key}\":{}", head[key])?;
                }
                self.out.write_all(b",\"steps\":[")?;
                self.out.write_all(&sequence.buffer)?;
                self.out.write_all(b"],\"agent\":")?;
                let mut sub_agent = agent(m, &sequence);
                sub_agent["name"] = json!(format!("{} subagent", m.harness));
                serde_json::to_writer(&mut self.out, &sub_agent).map_err(std::io::Error::from)?;
                if let Some(metrics) = final_metrics(&sequence) {
                    self.out.write_all(b",\"final_metrics\":")?;
                    serde_json::to_writer(&mut self.out, &metrics).map_err(std::io::Error::from)?;
                }
                self.out.write_all(b"}")?;
            }
            self.out.write_all(b"]")?;
        }
        self.out.write_all(b"}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn agent(meta: &Meta, sequence: &Sequence) -> Value {
    let mut agent = json!({"name": meta.harness, "version": meta.native_version.as_deref().unwrap_or("unknown")});
    if let Some((model, _)) = sequence.models.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0))) {
        agent["model_name"] = json!(model);
    }
    if let Some(codec) = &meta.codec {
        agent["extra"] = json!({"codec": codec});
    }
    agent
}

fn final_metrics(sequence: &Sequence) -> Option<Value> {
    let t = &sequence.totals;
    if t.prompt.is_none() && t.completion.is_none() && t.cached.is_none() && t.cost.is_none() {
        return None;
    }
    let mut m = Map::new();
    if let Some(v) = t.prompt {
        m.insert("total_prompt_tokens".into(), json!(v));
    }
    if let Some(v) = t.completion {
        m.insert("total_completion_tokens".into(), json!(v));
    }
    if let Some(v) = t.cached {
        m.insert("total_cached_tokens".into(), json!(v));
    }
    if let Some(v) = t.cost {
        m.insert("total_cost_usd".into(), json!(v));
    }
    m.insert("total_steps".into(), json!(sequence.steps));
    Some(Value::Object(m))
}

fn push<W: Write>(seq: &mut Sequence, mut out: Option<&mut W>, record: &Record) -> Result<(), ExportError> {
    let in_agent_step = seq.open.as_ref().is_some_and(|s| s.source == "agent");
    match &record.body {
        Body::Meta(_) => {}
        Body::User { text, attachments } => {
            flush(seq, out.as_deref_mut())?;
            let mut step = Step::new("user", record);
            step.message = text.clone();
            if !attachments.is_empty() {
                step.extra.insert("attachments".into(), serde_json::to_value(attachments).unwrap_or_default());
            }
            seq.open = Some(step);
            flush(seq, out)?;
        }
        Body::System { text } => {
            flush(seq, out.as_deref_mut())?;
            let mut step = Step::new("system", record);
            step.message = text.clone();
            seq.open = Some(step);
            flush(seq, out)?;
        }
        Body::Reasoning(r) => {
            let step = agent_step(seq, out, record, in_agent_step)?;
            if let Some(text) = &r.text {
                step.reasoning.push(text.clone());
            }
            if let Some(opaque) = &r.opaque {
                let list = step.extra.entry("opaque_reasoning").or_insert_with(|| json!([]));
                if let Value::Array(list) = list {
                    list.push(json!({"opaque": opaque, "encrypted": r.encrypted}));
                }
            }
        }
        Body::Assistant(a) => {
            let split = match (&a.message_id, seq.open.as_ref().and_then(|s| s.message_ids.last())) {
                (Some(new), Some(last)) => in_agent_step && new != last,
                _ => false,
            };
            let step = agent_step(seq, out, record, in_agent_step && !split)?;
            if !a.text.is_empty() {
                if !step.message.is_empty() {
                    step.message.push_str("\n\n");
                }
                step.message.push_str(&a.text);
            }
            if let Some(model) = &a.model {
                match &step.model {
                    None => step.model = Some(model.clone()),
                    Some(first) if first != model => {
                        let models = step.extra.entry("models").or_insert_with(|| json!([first]));
                        if let Value::Array(list) = models
                            && !list.contains(&json!(model))
                        {
                            list.push(json!(model));
                        }
                    }
                    Some(_) => {}
                }
            }
            let key = a.message_id.clone().unwrap_or_else(|| record.id.clone());
            if let Some(id) = &a.message_id
                && !step.message_ids.contains(id)
            {
                step.message_ids.push(id.clone());
            }
            if let Some(reason) = &a.stop_reason {
                step.extra.insert("stop_reason".into(), json!(reason));
            }
            if let Some(usage) = &a.usage {
                match step.metrics.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = usage.clone(),
                    None => step.metrics.push((key, usage.clone())),
                }
            }
        }
        Body::ToolCall { call_id, name, arguments } => {
            let step = agent_step(seq, out, record, in_agent_step)?;
            let mut call = json!({"tool_call_id": call_id, "function_name": name});
            match arguments {
                Value::Object(_) => call["arguments"] = arguments.clone(),
                other => {
                    call["arguments"] = json!({});
                    call["extra"] = json!({"raw_arguments": other});
                }
            }
            step.call_ids.insert(call_id.clone());
            step.tool_calls.push(call);
        }
        Body::ToolResult { call_id, content, ok } => {
            let mut result = json!({"source_call_id": call_id, "content": content});
            if let Some(ok) = ok {
                result["extra"] = json!({"ok": ok});
            }
            if let Some(step) = seq.open.as_mut().filter(|s| s.call_ids.contains(call_id)) {
                step.ids.push(record.id.clone());
                step.results.push(result);
                return Ok(());
            }
            // The call is in an earlier step, or in none: a system step whose result names no call of its own.
            let late = seq.answered_elsewhere.contains(call_id);
            flush(seq, out.as_deref_mut())?;
            let mut step = Step::new("system", record);
            result.as_object_mut().expect("object").remove("source_call_id");
            let mut extra = json!({"call_id": call_id});
            if let Some(ok) = ok {
                extra["ok"] = json!(ok);
            }
            result["extra"] = extra;
            step.results.push(result);
            step.extra.insert(
                "trajhost".into(),
                json!({"kind": if late { "late_tool_result" } else { "orphan_tool_result" }}),
            );
            seq.open = Some(step);
            flush(seq, out)?;
        }
        Body::Observation { subtype, text } => {
            flush(seq, out.as_deref_mut())?;
            let mut step = Step::new("system", record);
            step.message = text.clone().unwrap_or_default();
            step.extra.insert("trajhost".into(), json!({"kind": "observation", "subtype": subtype}));
            seq.open = Some(step);
            flush(seq, out)?;
        }
        Body::Compaction { summary, trigger } => {
            flush(seq, out.as_deref_mut())?;
            let mut step = Step::new("system", record);
            step.message = summary.clone();
            step.extra.insert("trajhost".into(), json!({"kind": "compaction", "trigger": trigger}));
            seq.open = Some(step);
            flush(seq, out)?;
        }
    }
    Ok(())
}

/// The open agent step (continuing it when `continue_open`), else a new one.
fn agent_step<'s, W: Write>(
    seq: &'s mut Sequence,
    out: Option<&mut W>,
    record: &Record,
    continue_open: bool,
) -> Result<&'s mut Step, ExportError> {
    // Results already given close the model call: the next record is the next call.
    let answered = seq.open.as_ref().is_some_and(|s| !s.results.is_empty());
    if !continue_open || answered {
        flush(seq, out)?;
        seq.open = Some(Step::new("agent", record));
    } else if let Some(step) = seq.open.as_mut() {
        step.ids.push(record.id.clone());
    }
    Ok(seq.open.as_mut().expect("open step"))
}

/// Writes the open step, if any.
fn flush<W: Write>(seq: &mut Sequence, out: Option<&mut W>) -> Result<(), ExportError> {
    let Some(step) = seq.open.take() else { return Ok(()) };
    seq.steps += 1;
    let mut value = Map::new();
    value.insert("step_id".into(), json!(seq.steps));
    if let Some(ts) = &step.timestamp {
        value.insert("timestamp".into(), json!(ts));
    }
    value.insert("source".into(), json!(step.source));
    if let Some(model) = &step.model {
        *seq.models.entry(model.clone()).or_default() += 1;
        value.insert("model_name".into(), json!(model));
    }
    value.insert("message".into(), json!(step.message));
    if !step.reasoning.is_empty() {
        value.insert("reasoning_content".into(), json!(step.reasoning.join("\n\n")));
    }
    if !step.tool_calls.is_empty() {
        value.insert("tool_calls".into(), Value::Array(step.tool_calls));
    }
    if !step.results.is_empty() {
        value.insert("observation".into(), json!({"results": step.results}));
    }
    if let Some(metrics) = metrics(&step.metrics, &mut seq.totals) {
        value.insert("metrics".into(), metrics);
    }
    let mut extra = step.extra;
    if !step.ids.is_empty() {
        extra.insert("record_ids".into(), json!(step.ids));
    }
    if !step.message_ids.is_empty() {
        extra.insert("message_ids".into(), json!(step.message_ids));
    }
    if !extra.is_empty() {
        value.insert("extra".into(), Value::Object(extra));
    }
    seq.answered_elsewhere.extend(step.call_ids);
    match out {
        Some(out) => {
            if seq.steps > 1 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, &value).map_err(std::io::Error::from)?;
        }
        None => {
            if seq.steps > 1 {
                seq.buffer.push(b',');
            }
            serde_json::to_writer(&mut seq.buffer, &value).map_err(std::io::Error::from)?;
        }
    }
    Ok(())
}

/// ATIF metrics of a step: `prompt_tokens` includes cached tokens (canonical
/// `input` excludes cache reads and writes), `cached_tokens` the cache reads;
/// cache writes and reasoning tokens go to `metrics.extra`. `None` without usage.
fn metrics(usage: &[(String, Usage)], totals: &mut Totals) -> Option<Value> {
    if usage.is_empty() {
        return None;
    }
    let sum = |f: fn(&Usage) -> Option<u64>| -> Option<u64> {
        let values: Vec<u64> = usage.iter().filter_map(|(_, u)| f(u)).collect();
        (!values.is_empty()).then(|| values.iter().sum())
    };
    let (input, output) = (sum(|u| u.input), sum(|u| u.output));
    let (cache_read, cache_write, reasoning) = (sum(|u| u.cache_read), sum(|u| u.cache_write), sum(|u| u.reasoning));
    let costs: Vec<f64> = usage.iter().filter_map(|(_, u)| u.cost_usd).collect();
    let mut m = Map::new();
    let prompt = input.map(|i| i + cache_read.unwrap_or(0) + cache_write.unwrap_or(0));
    if let Some(v) = prompt {
        m.insert("prompt_tokens".into(), json!(v));
    }
    if let Some(v) = output {
        m.insert("completion_tokens".into(), json!(v));
    }
    if let Some(v) = cache_read {
        m.insert("cached_tokens".into(), json!(v));
    }
    let cost = (!costs.is_empty()).then(|| costs.iter().sum::<f64>());
    if let Some(v) = cost {
        m.insert("cost_usd".into(), json!(v));
    }
    let mut extra = Map::new();
    if let Some(v) = cache_write {
        extra.insert("cache_write_tokens".into(), json!(v));
    }
    if let Some(v) = reasoning {
        extra.insert("reasoning_tokens".into(), json!(v));
    }
    if !extra.is_empty() {
        m.insert("extra".into(), Value::Object(extra));
    }
    add(&mut totals.prompt, prompt);
    add(&mut totals.completion, output);
    add(&mut totals.cached, cache_read);
    if let Some(c) = cost {
        totals.cost = Some(totals.cost.unwrap_or(0.0) + c);
    }
    (!m.is_empty()).then_some(Value::Object(m))
}

/// Exports a whole session held in memory (tests, small sessions).
pub fn to_value(records: &[Record]) -> Result<Value, ExportError> {
    let first = records.first().ok_or_else(|| ExportError::NoMeta(String::new()))?;
    let mut writer = AtifWriter::new(first, Vec::new())?;
    for record in &records[1..] {
        writer.push(record)?;
    }
    let bytes = writer.finish()?;
    Ok(serde_json::from_slice(&bytes).map_err(std::io::Error::from)?)
}

pub use crate::validate::validate;

#[cfg(test)]
mod tests {
    use super::*;
    use trajhost_canonical::Assistant;

    fn record(id: &str, body: Body) -> Record {
        Record { id: id.into(), body, parent: None, ts: Some("2026-01-01T00:00:00Z".into()), agent: None, src: None }
    }

    #[test]
    fn steps_are_sequential_and_results_name_their_step_calls() {
        let mut sub = record("s1", Body::User { text: "sub task".into(), attachments: vec![] });
        sub.agent = Some("agent-7".into());
        let records = vec![
            record(
                "m",
                Body::Meta(Meta {
                    harness: "claude-code".into(),
                    native_id: "x".into(),
                    native_version: Some("2.1".into()),
                    ..Default::default()
                }),
            ),
            record("u", Body::User { text: "hi".into(), attachments: vec![] }),
            record(
                "a",
                Body::Assistant(Assistant {
                    text: "let me look".into(),
                    model: Some("claude-x".into()),
                    usage: Some(Usage { input: Some(3), output: Some(4), cache_read: Some(10), ..Default::default() }),
                    ..Default::default()
                }),
            ),
            record(
                "c",
                Body::ToolCall { call_id: "c1".into(), name: "Bash".into(), arguments: json!({"command": "ls"}) },
            ),
            record("c2", Body::ToolCall { call_id: "c2".into(), name: "Read".into(), arguments: json!("not json") }),
            record("r", Body::ToolResult { call_id: "c1".into(), content: "a.txt".into(), ok: Some(true) }),
            record("a2", Body::Assistant(Assistant { text: "done".into(), ..Default::default() })),
            record("r2", Body::ToolResult { call_id: "c2".into(), content: "late".into(), ok: None }),
            record("o", Body::ToolResult { call_id: "nowhere".into(), content: "?".into(), ok: None }),
            sub,
        ];
        let t = to_value(&records).unwrap();
        assert_eq!(validate(&t), Vec::<String>::new());
        let steps = t["steps"].as_array().unwrap();
        assert_eq!(
            steps.iter().map(|s| s["source"].as_str().unwrap()).collect::<Vec<_>>(),
            ["user", "agent", "agent", "system", "system"]
        );
        assert_eq!(steps[1]["observation"]["results"][0]["source_call_id"], "c1");
        assert_eq!(steps[1]["metrics"], json!({"prompt_tokens": 13, "completion_tokens": 4, "cached_tokens": 10}));
        assert_eq!(steps[1]["tool_calls"][1]["extra"]["raw_arguments"], "not json");
        assert_eq!(steps[3]["extra"]["trajhost"]["kind"], "late_tool_result");
        assert_eq!(t["final_metrics"]["total_prompt_tokens"], 13);
        assert_eq!(t["agent"]["model_name"], "claude-x");
        assert_eq!(t["subagent_trajectories"][0]["trajectory_id"], "agent-7");
        assert_eq!(t["subagent_trajectories"][0]["steps"][0]["step_id"], 1);
    }

    #[test]
    fn no_usage_no_final_metrics_and_an_empty_session_still_validates() {
        let meta = record("m", Body::Meta(Meta { harness: "pi".into(), native_id: "e".into(), ..Default::default() }));
        let t = to_value(std::slice::from_ref(&meta)).unwrap();
        assert_eq!(validate(&t), Vec::<String>::new());
        assert!(t.get("final_metrics").is_none());
        assert_eq!(t["agent"]["version"], "unknown");
    }
}
