//! Which fields of a canonical record are redacted.
//!
//! Redacted (every string leaf, recursively): `system.text`, `user.text`, user attachments'
//! fields other than `kind` and `media_type` (but an image attachment's `data`, at any depth,
//! below [`IMAGE_DATA_LIMIT`], is base64 image bytes and stays), `assistant.text`,
//! `reasoning.text`, `tool_call.arguments`, `tool_result.content`, `observation.text`,
//! `compaction.summary`, `meta.title`, and any field this version does not know.
//!
//! Never touched: [`ALWAYS_KEPT`] on every record (ids, `kind`, `parent`, `ts`, `agent`, `src`,
//! `call_id`, `opaque`, `encrypted`, `native_id`, `harness`, `schema`), and per kind
//! [`kept_fields`]: meta's facts (`native_version`, `cwd`, `git_branch`, `started_at`,
//! `parent_session`, `parent_call`, `codec`), assistant's `model`, `message_id`, `stop_reason`,
//! `usage`, the tool call's `name`, the tool result's `ok`, the observation's `subtype`, the
//! compaction's `trigger`. Object keys are never changed; a string that is the value of an object
//! member (or an item of an array that is) is matched with its key as context
//! (`{"password": "…"}` is found like `password=…`).

use std::borrow::Cow;
use std::ops::Range;

use trajhost_canonical::{Body, Record};

use crate::json::{self, Member, Node};
use crate::scan::Hit;
use crate::{Counts, Redactor};

/// Top-level fields of every record that are never redacted.
pub const ALWAYS_KEPT: &[&str] =
    &["id", "kind", "parent", "ts", "agent", "src", "call_id", "opaque", "encrypted", "native_id", "harness", "schema"];

/// An image attachment's `data` at least this long is scanned like any other field.
pub const IMAGE_DATA_LIMIT: usize = 10 << 20;

/// Top-level fields of a record of `kind` that are never redacted (besides [`ALWAYS_KEPT`]).
pub fn kept_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "meta" => &["native_version", "cwd", "git_branch", "started_at", "parent_session", "parent_call", "codec"],
        "assistant" => &["model", "message_id", "stop_reason", "usage"],
        "tool_call" => &["name"],
        "tool_result" => &["ok"],
        "observation" => &["subtype"],
        "compaction" => &["trigger"],
        _ => &[],
    }
}

fn redact_string(r: &Redactor, s: &mut String, counts: &mut Counts) {
    if let Cow::Owned(new) = r.redact_text(s, counts) {
        *s = new;
    }
}

fn redact_opt(r: &Redactor, s: &mut Option<String>, counts: &mut Counts) {
    if let Some(s) = s {
        redact_string(r, s, counts);
    }
}

pub(crate) fn redact_record(r: &Redactor, record: &mut Record, counts: &mut Counts) {
    match &mut record.body {
        Body::Meta(meta) => redact_opt(r, &mut meta.title, counts),
        Body::System { text } => redact_string(r, text, counts),
        // Attachments hold only `kind` and `media_type` in the typed record.
        Body::User { text, attachments: _ } => redact_string(r, text, counts),
        Body::Assistant(a) => redact_string(r, &mut a.text, counts),
        Body::Reasoning(reasoning) => redact_opt(r, &mut reasoning.text, counts),
        Body::ToolCall { arguments, .. } => r.redact_value(arguments, counts),
        Body::ToolResult { content, .. } => redact_string(r, content, counts),
        Body::Observation { text, .. } => redact_opt(r, text, counts),
        Body::Compaction { summary, .. } => redact_string(r, summary, counts),
    }
}

/// Keyword occurrences in a raw line, sorted by end.
struct Hits(Vec<Hit>);

impl Hits {
    /// The occurrences lying inside `range`.
    fn within(&self, range: &Range<usize>) -> &[Hit] {
        let from = self.0.partition_point(|h| (h.end as usize) <= range.start);
        let to = self.0.partition_point(|h| (h.end as usize) <= range.end);
        // (One ending inside but starting before the range would span the string's opening
        // quote: only a keyword with a quote could, and its rules run on every line.)
        &self.0[from..to.max(from)]
    }
}

pub(crate) fn redact_line<'a>(r: &Redactor, line: &'a str, counts: &mut Counts) -> Cow<'a, str> {
    let engine = r.engine();
    let mut hits = Vec::new();
    if !engine.scan(line.as_bytes(), &mut hits) {
        return r.redact_text(line, counts);
    }
    if hits.is_empty() && engine.line_always.is_empty() {
        return Cow::Borrowed(line);
    }
    let Some(Node::Obj(members)) = json::parse(line) else {
        tracing::debug!("redact: a record line is not a JSON object; redacted as text");
        return r.redact_text(line, counts);
    };
    let hits = Hits(hits);
    let kind = members
        .iter()
        .find(|m| key_is(line, m, "kind"))
        .and_then(|m| match &m.value {
            Node::Str(raw, esc) => Some(json::decode(line, raw.clone(), *esc)),
            _ => None,
        })
        .unwrap_or(Cow::Borrowed(""));
    let kept = kept_fields(&kind);
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut walker = Walker { r, line, hits: &hits, counts, edits: &mut edits };
    for m in &members {
        let key = json::decode(line, m.key.clone(), m.key_escaped);
        if ALWAYS_KEPT.contains(&key.as_ref()) || kept.contains(&key.as_ref()) {
            continue;
        }
        if kind == "user" && key == "attachments" {
            walker.attachments(&m.value);
        } else {
            walker.node(Some(m), &m.value, false);
        }
    }
    if edits.is_empty() {
        return Cow::Borrowed(line);
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    for (range, text) in edits {
        out.push_str(&line[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&line[at..]);
    Cow::Owned(out)
}

fn key_is(line: &str, m: &Member, name: &str) -> bool {
    json::decode(line, m.key.clone(), m.key_escaped) == name
}

struct Walker<'w, 'a> {
    r: &'w Redactor,
    line: &'a str,
    hits: &'w Hits,
    counts: &'w mut Counts,
    edits: &'w mut Vec<(Range<usize>, String)>,
}

impl Walker<'_, '_> {
    /// `user.attachments`: `kind` and `media_type` stay, so does an image's `data` (any depth).
    fn attachments(&mut self, node: &Node) {
        let Node::Arr(items) = node else { return self.node(None, node, false) };
        for item in items {
            let Node::Obj(members) = item else {
                self.node(None, item, false);
                continue;
            };
            let text_of = |name: &str| {
                members.iter().find(|m| key_is(self.line, m, name)).and_then(|m| match &m.value {
                    Node::Str(raw, esc) => Some(json::decode(self.line, raw.clone(), *esc)),
                    _ => None,
                })
            };
            let image = text_of("kind").is_some_and(|k| k == "image")
                || text_of("media_type").is_some_and(|t| t.starts_with("image/"));
            for m in members {
                if key_is(self.line, m, "kind") || key_is(self.line, m, "media_type") {
                    continue;
                }
                self.node(Some(m), &m.value, image);
            }
        }
    }

    /// Every string leaf under `node`; `member` is the object member whose value it is.
    fn node(&mut self, member: Option<&Member>, node: &Node, image: bool) {
        match node {
            Node::Str(raw, escaped) => {
                if image && raw.len() < IMAGE_DATA_LIMIT && member.is_some_and(|m| key_is(self.line, m, "data")) {
                    return;
                }
                self.leaf(member, raw.clone(), *escaped);
            }
            Node::Obj(members) => members.iter().for_each(|m| self.node(Some(m), &m.value, image)),
            // Items of an array are matched with the array's key as context.
            Node::Arr(items) => items.iter().for_each(|i| self.node(member, i, image)),
            Node::Other => {}
        }
    }

    fn leaf(&mut self, member: Option<&Member>, raw: Range<usize>, escaped: bool) {
        let engine = self.r.engine();
        let key_has_keyword = member.is_some_and(|m| !self.hits.within(&m.key).is_empty());
        let value_hits = self.hits.within(&raw);
        if !key_has_keyword && value_hits.is_empty() && engine.line_always.is_empty() {
            return;
        }
        let redacted = match member {
            Some(m) if key_has_keyword => {
                let key = json::decode(self.line, m.key.clone(), m.key_escaped);
                let value = json::decode(self.line, raw.clone(), escaped);
                match engine.redact_member(&key, &value, self.counts) {
                    Cow::Owned(new) => Some(new),
                    Cow::Borrowed(_) => None,
                }
            }
            _ => {
                let mut hits = Vec::with_capacity(value_hits.len());
                let value = json::decode_mapped(self.line, raw.clone(), escaped, value_hits, &mut hits);
                let mut bits = engine.line_always.clone();
                engine.add_hits(value.as_bytes(), &hits, &mut bits);
                match engine.redact_with(&value, &bits, Some(&hits), self.counts) {
                    Cow::Owned(new) => Some(new),
                    Cow::Borrowed(_) => None,
                }
            }
        };
        if let Some(new) = redacted {
            self.edits.push((raw, json::encode(&new)));
        }
    }
}
