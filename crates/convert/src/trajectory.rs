//! Projection of canonical records to letta-ai/trajectory's
//! `trajectory-v1` records (schema `trajectory-v1.schema.json`): one leading
//! `meta`, then user / reasoning / assistant / assistant tool call / tool
//! records, one tool call per record, `args` as a JSON string, `ok` only
//! when the native store recorded it. Like trajectory's defaults, system
//! messages, harness observations and subagent (sidechain) records are left
//! out, and results without an earlier call are dropped; each such drop is
//! counted.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use trajhost_canonical::{Body, Record};

/// The projection of one session.
#[derive(Debug, Default)]
pub struct Trajectory {
    pub records: Vec<Value>,
    /// Dropped canonical records by reason (never content).
    pub dropped: BTreeMap<&'static str, u64>,
}

/// Projects a whole session (trajectory's meta needs the most frequent model).
pub fn project(records: &[Record]) -> Trajectory {
    let mut out = Trajectory::default();
    let mut models: BTreeMap<&str, u64> = BTreeMap::new();
    let mut meta = json!({"role": "meta", "source": "unknown"});
    let mut calls = BTreeSet::new();
    let mut last_ts = String::from("1970-01-01T00:00:00.000Z");
    let mut body = Vec::new();
    for record in records {
        if let Some(ts) = &record.ts {
            last_ts = ts.clone();
        }
        if record.agent.is_some() {
            *out.dropped.entry("sidechain_record_dropped").or_default() += 1;
            continue;
        }
        let ts = last_ts.clone();
        match &record.body {
            Body::Meta(m) => {
                meta = json!({"role": "meta", "source": m.harness});
                if let Some(cwd) = &m.cwd {
                    meta["cwd"] = json!(cwd);
                }
                if let Some(branch) = &m.git_branch {
                    meta["git_branch"] = json!(branch);
                }
            }
            Body::User { text, .. } if !text.trim().is_empty() => {
                body.push(json!({"role": "user", "content": text, "timestamp": ts}));
            }
            Body::Reasoning(r) => match &r.text {
                Some(text) if !text.trim().is_empty() => {
                    body.push(json!({"role": "reasoning", "content": text, "timestamp": ts}))
                }
                _ => *out.dropped.entry("opaque_reasoning_dropped").or_default() += 1,
            },
            Body::Assistant(a) => {
                if let Some(model) = &a.model {
                    *models.entry(model.as_str()).or_default() += 1;
                }
                if !a.text.trim().is_empty() {
                    body.push(json!({"role": "assistant", "content": a.text, "timestamp": ts}));
                }
            }
            Body::ToolCall { call_id, name, arguments } => {
                calls.insert(call_id.clone());
                let args = match arguments {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                body.push(json!({
                    "role": "assistant", "content": null,
                    "tool_calls": [{"id": call_id, "name": name, "args": args}],
                    "timestamp": ts,
                }));
            }
            Body::ToolResult { call_id, content, ok } => {
                if !calls.contains(call_id) {
                    *out.dropped.entry("orphan_tool_result").or_default() += 1;
                    continue;
                }
                let mut value = json!({"role": "tool", "tool_call_id": call_id, "content": content, "timestamp": ts});
                if let Some(ok) = ok {
                    value["ok"] = json!(ok);
                }
                body.push(value);
            }
            Body::System { .. } => *out.dropped.entry("system_message_omitted").or_default() += 1,
            Body::Observation { .. } => *out.dropped.entry("noise_record_dropped").or_default() += 1,
            Body::Compaction { summary, .. } => {
                body.push(json!({"role": "observation", "content": summary, "timestamp": ts}))
            }
            Body::User { .. } => *out.dropped.entry("empty_user_dropped").or_default() += 1,
        }
    }
    // Most frequent model, ties broken lexically.
    if let Some((model, _)) = models.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0))) {
        meta["model"] = json!(model);
    }
    out.records.push(meta);
    out.records.extend(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajhost_canonical::{Assistant, Meta};

    fn record(id: &str, body: Body) -> Record {
        Record { id: id.into(), body, parent: None, ts: Some("2026-01-01T00:00:00Z".into()), agent: None, src: None }
    }

    #[test]
    fn projects_the_exchange_one_call_per_record() {
        let records = vec![
            record("m", Body::Meta(Meta { harness: "codex".into(), cwd: Some("/w".into()), ..Default::default() })),
            record("u", Body::User { text: "hi".into(), attachments: vec![] }),
            record(
                "a",
                Body::Assistant(Assistant { text: "ok".into(), model: Some("m1".into()), ..Default::default() }),
            ),
            record("c", Body::ToolCall { call_id: "c1".into(), name: "sh".into(), arguments: json!({"cmd": "ls"}) }),
            record("r", Body::ToolResult { call_id: "c1".into(), content: "x".into(), ok: None }),
            record("o", Body::ToolResult { call_id: "nope".into(), content: "y".into(), ok: Some(true) }),
        ];
        let t = project(&records);
        assert_eq!(t.records[0], json!({"role": "meta", "source": "codex", "cwd": "/w", "model": "m1"}));
        assert_eq!(t.records[3]["tool_calls"][0]["args"], "{\"cmd\":\"ls\"}");
        assert!(t.records[4].get("ok").is_none(), "ok only when recorded");
        assert_eq!(t.records.len(), 5);
        assert_eq!(t.dropped.get("orphan_tool_result"), Some(&1));
    }
}
