//! Claude Code 2.1.33x's request log and accounting lines, and the
//! `continued-in` record (>= 2.1.261). None has a `uuid`; each record's id is
//! its byte location, except `model-request`'s, which is the request's id.
//!
//! | type | canonical |
//! |---|---|
//! | `api-request` | observation `model-request` (id: the line's `id`, parent: the record the conversation stood at), text a JSON summary: `query_source`, `model`, `messages` (how many the request sent), `messages_in_file` (how many of their bodies this file holds), `request_digest`, `shape_hash`. The assistant records whose `requestRef` names it take it as their `parent` |
//! | `api-request-blob` | no record of its own: one message body (by `hash`) that requests send, counted in `messages_in_file` of those that list it |
//! | `api-request-shape` | observation `api-request-shape`, text `{shape_hash, system_blocks, tools}` |
//! | `tools-used` | observation `tools-used`, text the tool names joined by `, ` |
//! | `atis-latch` | observation `atis-latch`, text `atis` when not empty |
//! | `cost-state` | the `cost_usd` of the response it prices, else observation `usage` (see [`Costs`]) |
//! | `continued-in` | observation `continued-in`, text `continuedInSessionId` (`discover` links the two sessions) |
//!
//! The bodies these lines carry (system prompt, tool schemas, every message
//! sent) stay in the file, where each record's `src` points: the records say
//! what a line is, not what it holds, and observations are not part of the
//! archive's full-text index.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use trajhost_codec_sdk::canonical::{Body, Usage};

use super::{Out, Span, Transcript};
use crate::native::{Count, Entry, Obj, Text};

/// Requests remembered for the `requestRef` of the responses that follow.
const RECENT_REQUESTS: usize = 64;
/// Message body hashes remembered.
const RECENT_BLOBS: usize = 4096;
/// Models of one `cost-state` taken into account.
const MAX_MODELS: usize = 32;
/// Responses between two `cost-state` lines remembered.
const MAX_RESPONSES: usize = 1024;

/// Whether `kind` is one of this module's types.
pub fn handles(kind: &str) -> bool {
    matches!(
        kind,
        "api-request"
            | "api-request-blob"
            | "api-request-shape"
            | "tools-used"
            | "atis-latch"
            | "cost-state"
            | "continued-in"
    )
}

/// The fields of these lines (a second parse of the line: the envelope
/// parse skips them).
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Fields<'a> {
    #[serde(borrow)]
    id: Text<'a>,
    #[serde(borrow)]
    hash: Text<'a>,
    #[serde(borrow)]
    query_source: Text<'a>,
    #[serde(borrow)]
    shape_hash: Text<'a>,
    #[serde(borrow)]
    request_digest: Text<'a>,
    #[serde(borrow)]
    atis: Text<'a>,
    #[serde(borrow)]
    params: Obj<Params<'a>>,
    /// `api-request`: the hashes of the messages sent, in order.
    #[serde(borrow)]
    tail: Option<&'a RawValue>,
    /// `tools-used`: tool names.
    #[serde(borrow)]
    tools: Option<&'a RawValue>,
    #[serde(borrow)]
    shape: Obj<Shape<'a>>,
    #[serde(rename = "totalCostUSD")]
    total_cost_usd: Num,
    #[serde(borrow)]
    model_usage: Option<&'a RawValue>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct Params<'a> {
    #[serde(borrow)]
    model: Text<'a>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct Shape<'a> {
    #[serde(borrow)]
    system: Option<&'a RawValue>,
    #[serde(borrow)]
    tools: Option<&'a RawValue>,
}

/// `cost-state.modelUsage.<model>`: running totals of one model.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ModelUsage {
    input_tokens: Count,
    output_tokens: Count,
    cache_read_input_tokens: Count,
    cache_creation_input_tokens: Count,
    #[serde(rename = "costUSD")]
    cost_usd: Num,
}

/// A number field; absent when not a number.
#[derive(Default, Clone, Copy)]
struct Num(Option<f64>);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Num(Value::deserialize(d)?.as_f64().filter(|f| f.is_finite())))
    }
}

/// The number of elements of a JSON array (`None` when it is not one).
fn count(raw: Option<&RawValue>) -> Option<usize> {
    serde_json::from_str::<Vec<serde::de::IgnoredAny>>(raw?.get()).ok().map(|v| v.len())
}

/// The strings of a JSON array of strings (others skipped).
fn strings<'a>(raw: Option<&'a RawValue>) -> Vec<Text<'a>> {
    raw.and_then(|raw| serde_json::from_str::<Vec<Text<'a>>>(raw.get()).ok()).unwrap_or_default()
}

/// Requests and message bodies seen lately.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Requests {
    recent: VecDeque<String>,
    blobs: VecDeque<String>,
    blob_set: BTreeSet<String>,
}

impl Requests {
    /// Whether a `model-request` of id `id` was emitted lately.
    pub fn knows(&self, id: &str) -> bool {
        self.recent.iter().any(|r| r == id)
    }

    fn request(&mut self, id: &str) {
        self.recent.push_back(id.to_string());
        if self.recent.len() > RECENT_REQUESTS {
            self.recent.pop_front();
        }
    }

    fn blob(&mut self, hash: &str) {
        if self.blob_set.insert(hash.to_string()) {
            self.blobs.push_back(hash.to_string());
            if self.blobs.len() > RECENT_BLOBS
                && let Some(old) = self.blobs.pop_front()
            {
                self.blob_set.remove(&old);
            }
        }
    }
}

/// Running totals of one model.
#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Totals {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    cost: f64,
}

impl Totals {
    fn of(u: &ModelUsage) -> Totals {
        Totals {
            input: u.input_tokens.0.unwrap_or(0),
            output: u.output_tokens.0.unwrap_or(0),
            cache_read: u.cache_read_input_tokens.0.unwrap_or(0),
            cache_write: u.cache_creation_input_tokens.0.unwrap_or(0),
            cost: u.cost_usd.0.unwrap_or(0.0),
        }
    }

    /// What was added since `before`; everything when a total went down
    /// (the counts started again).
    fn since(self, before: Totals) -> Totals {
        let restarted = self.input < before.input
            || self.output < before.output
            || self.cache_read < before.cache_read
            || self.cache_write < before.cache_write
            || self.cost < before.cost;
        if restarted {
            return self;
        }
        Totals {
            input: self.input - before.input,
            output: self.output - before.output,
            cache_read: self.cache_read - before.cache_read,
            cache_write: self.cache_write - before.cache_write,
            cost: money(self.cost - before.cost),
        }
    }

    fn is_zero(&self) -> bool {
        self.input == 0 && self.output == 0 && self.cache_read == 0 && self.cache_write == 0 && self.cost == 0.0
    }

    /// Whether a response's recorded usage is exactly these tokens.
    fn tokens_are(&self, usage: &Usage) -> bool {
        let n = |v: Option<u64>| v.unwrap_or(0);
        self.input == n(usage.input)
            && self.output == n(usage.output)
            && self.cache_read == n(usage.cache_read)
            && self.cache_write == n(usage.cache_write)
    }

    fn json(&self) -> Value {
        json!({
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "cost_usd": self.cost,
        })
    }
}

/// Dollars without the float noise of a subtraction.
fn money(x: f64) -> f64 {
    (x * 1e12).round() / 1e12
}

/// `cost-state`: Claude Code's running totals of the session, written at
/// the end of a turn: `totalCostUSD` and, per model, the tokens and
/// `costUSD` of every request so far (its side requests, such as title
/// generation, too). What a `cost-state` adds to the previous one is the
/// cost of the responses read in between:
/// - exactly one response, of that model, whose recorded usage has exactly
///   the added tokens: the added cost is that response's `usage.cost_usd`;
/// - anything else (several responses, side requests, no usage recorded):
///   an observation `usage` whose text says what was added, per model
///   (`input`, `output`, `cache_read`, `cache_write`, `cost_usd`), its
///   `cost_usd` in all, `total_cost_usd` and the record ids of the
///   `responses` it covers.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Costs {
    last: BTreeMap<String, Totals>,
    /// Responses read since the last `cost-state`: record id, model, usage.
    since: Vec<(String, Option<String>, Option<Usage>)>,
    overflow: bool,
    /// The open response a `cost-state` already covered.
    covered: Option<String>,
}

impl Costs {
    /// A response was emitted.
    pub fn response(&mut self, id: &str, model: Option<&str>, usage: Option<&Usage>) {
        if self.covered.as_deref() == Some(id) {
            self.covered = None;
            return;
        }
        if self.since.len() >= MAX_RESPONSES {
            self.overflow = true;
            return;
        }
        self.since.push((id.to_string(), model.map(str::to_string), usage.cloned()));
    }
}

pub fn map(t: &mut Transcript, kind: &str, entry: &Entry<'_>, bytes: &[u8], span: Span, out: &mut Out<'_>) {
    let fields: Fields<'_> = serde_json::from_slice(bytes).unwrap_or_default();
    let mut id = t.line_id(entry, span, 0);
    let mut parent = None;
    let (subtype, text) = match kind {
        "api-request-blob" => {
            if let Some(hash) = fields.hash.non_empty() {
                t.requests.blob(hash);
            }
            return;
        }
        "cost-state" => match cost_state(t, &fields) {
            Some(text) => ("usage", Some(text)),
            None => return,
        },
        "api-request" => {
            if let Some(request) = fields.id.non_empty().filter(|r| crate::head::plain_id(r)) {
                id = request.to_string();
                t.requests.request(request);
            }
            parent = t.tip.clone();
            let tail = strings(fields.tail);
            let in_file = tail.iter().filter(|h| h.get().is_some_and(|h| t.requests.blob_set.contains(h))).count();
            let mut summary = Map::new();
            let mut put = |key: &str, value: Option<Value>| {
                if let Some(value) = value {
                    summary.insert(key.to_string(), value);
                }
            };
            put("query_source", fields.query_source.owned().map(Value::from));
            put("model", fields.params.0.as_ref().and_then(|p| p.model.owned()).map(Value::from));
            put("messages", fields.tail.is_some().then(|| Value::from(tail.len())));
            put("messages_in_file", fields.tail.is_some().then(|| Value::from(in_file)));
            put("request_digest", fields.request_digest.owned().map(Value::from));
            put("shape_hash", fields.shape_hash.owned().map(Value::from));
            ("model-request", Some(Value::Object(summary).to_string()))
        }
        "api-request-shape" => {
            let shape = fields.shape.0.as_ref();
            let mut summary = Map::new();
            if let Some(hash) = fields.shape_hash.owned() {
                summary.insert("shape_hash".into(), hash.into());
            }
            if let Some(n) = count(shape.and_then(|s| s.system)) {
                summary.insert("system_blocks".into(), n.into());
            }
            if let Some(n) = count(shape.and_then(|s| s.tools)) {
                summary.insert("tools".into(), n.into());
            }
            ("api-request-shape", Some(Value::Object(summary).to_string()))
        }
        "tools-used" => {
            let tools = strings(fields.tools);
            let names: Vec<&str> = tools.iter().filter_map(Text::non_empty).collect();
            ("tools-used", (!names.is_empty()).then(|| names.join(", ")))
        }
        "atis-latch" => ("atis-latch", fields.atis.owned().filter(|a| !a.is_empty())),
        "continued-in" => ("continued-in", entry.continued_in_session_id.owned().filter(|s| !s.is_empty())),
        _ => return,
    };
    let ts = t.ts(entry);
    let record = t.record(id, Body::Observation { subtype: subtype.to_string(), text }, parent, ts, span);
    t.emit(out, record);
}

/// Applies a `cost-state` (see [`Costs`]); the text of the `usage`
/// observation when what it adds cannot go on one response.
fn cost_state(t: &mut Transcript, fields: &Fields<'_>) -> Option<String> {
    let mut now: BTreeMap<String, Totals> = BTreeMap::new();
    if let Some(raw) = fields.model_usage
        && let Ok(models) = serde_json::from_str::<BTreeMap<String, Obj<ModelUsage>>>(raw.get())
    {
        for (model, usage) in models.into_iter().take(MAX_MODELS) {
            if let Some(usage) = usage.0 {
                now.insert(model, Totals::of(&usage));
            }
        }
    }
    let added: BTreeMap<&str, Totals> = now
        .iter()
        .map(|(model, totals)| (model.as_str(), totals.since(t.costs.last.get(model).copied().unwrap_or_default())))
        .filter(|(_, d)| !d.is_zero())
        .collect();

    // The responses it covers: those emitted since the last one, and the
    // one still open.
    let mut responses = std::mem::take(&mut t.costs.since);
    let overflow = std::mem::take(&mut t.costs.overflow);
    if let Some(open) = t.assistant.open_response() {
        t.costs.covered = Some(open.0.clone());
        responses.push(open);
    }

    let priced = match (responses.as_slice(), added.iter().next()) {
        ([(id, model, Some(usage))], Some((added_model, d)))
            if !overflow
                && added.len() == 1
                && model.as_deref().is_none_or(|m| m == *added_model)
                && d.tokens_are(usage) =>
        {
            let cost = d.cost;
            let id = id.clone();
            set_cost(t, &id, cost)
        }
        _ => false,
    };
    let total = fields.total_cost_usd.0;
    let text = (!priced).then(|| {
        let models: Map<String, Value> = added.iter().map(|(m, d)| (m.to_string(), d.json())).collect();
        let mut summary = Map::new();
        summary.insert("cost_usd".into(), money(added.values().map(|d| d.cost).sum()).into());
        if let Some(total) = total {
            summary.insert("total_cost_usd".into(), money(total).into());
        }
        summary.insert("models".into(), Value::Object(models));
        summary.insert("responses".into(), responses.iter().map(|(id, _, _)| Value::from(id.as_str())).collect());
        if overflow {
            summary.insert("responses_truncated".into(), true.into());
        }
        Value::Object(summary).to_string()
    });
    t.costs.last = now;
    text
}

/// Puts `cost` on the response `id` (open or held); false when it is
/// neither any more.
fn set_cost(t: &mut Transcript, id: &str, cost: f64) -> bool {
    if let Some(Some(usage)) = t.assistant.open_usage(id) {
        usage.cost_usd = Some(cost);
        return true;
    }
    if let Some(record) = t.held_answer(id)
        && let Body::Assistant(a) = &mut record.body
        && let Some(usage) = a.usage.as_mut()
    {
        usage.cost_usd = Some(cost);
        return true;
    }
    false
}
