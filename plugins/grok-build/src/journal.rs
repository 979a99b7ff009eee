//! The `updates.jsonl` a written session starts with: the ACP
//! `session/update` lines Grok Build's UI replays, for what the model
//! context (`chat_history.jsonl`) has no place for: when each prompt,
//! answer, call and result happened, how each call ended, and each turn's
//! usage. The lines have the shapes 1.0.41 writes (see
//! [`crate::updates`], which reads them back):
//!
//! ```text
//! {"timestamp":s,"method":"session/update","params":{"sessionId","update":{"sessionUpdate":"user_message_chunk",
//!   "content":{"type":"text","text"},"_meta":{"promptIndex":n}},"_meta":{"agentTimestampMs":ms}}}
//! … "agent_message_chunk" {content}                      an answer's text
//! … "tool_call" {toolCallId, title, rawInput, status:"pending"}
//! … "tool_call_update" {toolCallId, status:"completed"|"failed", content:[{type:"content",content:{type:"text",text}}]}
//! {"method":"_x.ai/session/update", … "turn_completed" {stop_reason:"end_turn", usage{inputTokens, outputTokens,
//!   cachedReadTokens, cacheCreationTokens, reasoningTokens, modelCalls, costUsdTicks}}}
//! ```
//!
//! A result whose outcome the source did not record gets no status rather
//! than an invented one; a line whose record has no time gets none.

use serde_json::{Map, Value, json};
use trajhost_codec_sdk::canonical::Usage;

/// One journal line, before the session id is known.
pub struct Entry {
    pub extension: bool,
    pub update: Value,
    pub ms: Option<i64>,
}

impl Entry {
    pub fn line(&self, session_id: &str) -> String {
        let method = if self.extension { "_x.ai/session/update" } else { "session/update" };
        let mut params = json!({"sessionId": session_id, "update": self.update});
        let mut line = Map::new();
        if let Some(ms) = self.ms {
            line.insert("timestamp".into(), (ms.max(0) / 1000).into());
            params["_meta"] = json!({"agentTimestampMs": ms});
        }
        line.insert("method".into(), method.into());
        line.insert("params".into(), params);
        Value::Object(line).to_string()
    }
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

pub fn prompt(index: u64, t: &str, ms: Option<i64>) -> Entry {
    let update = json!({"sessionUpdate": "user_message_chunk", "content": text(t), "_meta": {"promptIndex": index}});
    Entry { extension: false, update, ms }
}

pub fn answer(t: &str, ms: Option<i64>) -> Entry {
    Entry { extension: false, update: json!({"sessionUpdate": "agent_message_chunk", "content": text(t)}), ms }
}

pub fn call(id: &str, name: &str, arguments: &Value, ms: Option<i64>) -> Entry {
    let update = json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": name, "rawInput": arguments,
        "status": "pending"});
    Entry { extension: false, update, ms }
}

pub fn result(id: &str, content: &str, ok: Option<bool>, ms: Option<i64>) -> Entry {
    let mut update = json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
        "content": [{"type": "content", "content": text(content)}]});
    if let Some(ok) = ok {
        update["status"] = if ok { "completed" } else { "failed" }.into();
    }
    Entry { extension: false, update, ms }
}

/// `turn_completed` with `usage` as recorded (a Grok session's own object).
pub fn turn_completed(usage: Value, ms: Option<i64>) -> Entry {
    let update = json!({"sessionUpdate": "turn_completed", "stop_reason": "end_turn", "usage": usage});
    Entry { extension: true, update, ms }
}

/// A turn's answers' usage summed, as `turn_completed.usage` counts it
/// (`inputTokens` includes the cached reads and writes).
#[derive(Default)]
pub struct TurnSum {
    pub calls: u64,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    reasoning: u64,
    cost: Option<f64>,
}

impl TurnSum {
    pub fn add(&mut self, u: &Usage) {
        self.calls += 1;
        self.input += u.input.unwrap_or(0) + u.cache_read.unwrap_or(0) + u.cache_write.unwrap_or(0);
        self.output += u.output.unwrap_or(0);
        self.cache_read += u.cache_read.unwrap_or(0);
        self.cache_write += u.cache_write.unwrap_or(0);
        self.reasoning += u.reasoning.unwrap_or(0);
        if let Some(c) = u.cost_usd {
            self.cost = Some(self.cost.unwrap_or(0.0) + c);
        }
    }

    pub fn usage(&self) -> Value {
        let mut u = json!({"inputTokens": self.input, "outputTokens": self.output,
            "totalTokens": self.input + self.output, "cachedReadTokens": self.cache_read,
            "cacheCreationTokens": self.cache_write, "reasoningTokens": self.reasoning, "modelCalls": self.calls});
        if let Some(c) = self.cost {
            u["costUsdTicks"] = ((c * 1e10).round() as i64).into();
        }
        u
    }
}
