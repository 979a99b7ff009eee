//! `agent.v1.ConversationStep` and what it holds: `AssistantMessage`,
//! `ThinkingMessage`, `ToolCall` (the `McpToolCall` variant fully; built-in
//! tool variants as opaque field trees), and `google.protobuf.Value` for MCP
//! arguments. Decoders reject field numbers the schema does not have; the
//! encoders are the writer's.

use serde_json::{Map, Value as Json};
use trajhost_codec_sdk::CodecError;

use crate::decode::Msg;
use crate::wire::{Fields, Wire, Writer};

/// One step of an agent turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Assistant { text: String },
    Thinking { text: String, duration_ms: Option<u32> },
    Tool(Box<ToolCall>),
}

/// `agent.v1.ToolCall`: one variant of the `tool` oneof plus `57 tool_call_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The oneof field number.
    pub variant: u32,
    pub tool_call_id: Option<String>,
    pub mcp: Option<McpToolCall>,
    /// A built-in variant's `{1 args, 2 result}`, as generic field trees.
    pub builtin_args: Option<Json>,
    pub builtin_result: Option<Json>,
}

/// `agent.v1.McpToolCall` (`1 args` McpArgs, `2 result` McpToolResult).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpToolCall {
    pub name: String,
    pub args: Map<String, Json>,
    pub tool_call_id: Option<String>,
    pub provider_identifier: Option<String>,
    pub tool_name: Option<String>,
    pub server_identifier: Option<String>,
    pub result: Option<McpResult>,
}

/// `agent.v1.McpToolResult` oneof `result`.
#[derive(Debug, Clone, PartialEq)]
pub enum McpResult {
    /// `McpSuccess{1 content, 2 is_error}`; text items joined, images counted.
    Success {
        texts: Vec<String>,
        images: usize,
        is_error: bool,
    },
    Error {
        error: String,
    },
    Rejected {
        reason: String,
    },
    PermissionDenied {
        error: String,
    },
}

/// The `ToolCall.tool` oneof: field number → name.
pub const TOOL_VARIANTS: &[(u32, &str)] = &[
    (1, "shell_tool_call"),
    (3, "delete_tool_call"),
    (4, "glob_tool_call"),
    (5, "grep_tool_call"),
    (8, "read_tool_call"),
    (9, "update_todos_tool_call"),
    (10, "read_todos_tool_call"),
    (12, "edit_tool_call"),
    (13, "ls_tool_call"),
    (14, "read_lints_tool_call"),
    (15, "mcp_tool_call"),
    (16, "sem_search_tool_call"),
    (17, "create_plan_tool_call"),
    (18, "web_search_tool_call"),
    (19, "task_tool_call"),
    (20, "list_mcp_resources_tool_call"),
    (21, "read_mcp_resource_tool_call"),
    (22, "apply_agent_diff_tool_call"),
    (23, "ask_question_tool_call"),
    (24, "fetch_tool_call"),
    (25, "switch_mode_tool_call"),
    (26, "exa_search_tool_call"),
    (27, "exa_fetch_tool_call"),
    (28, "generate_image_tool_call"),
    (29, "record_screen_tool_call"),
    (30, "computer_use_tool_call"),
    (31, "write_shell_stdin_tool_call"),
    (32, "reflect_tool_call"),
    (33, "setup_vm_environment_tool_call"),
    (34, "truncated_tool_call"),
];

/// The name of a `ToolCall.tool` variant.
pub fn variant_name(field: u32) -> Option<&'static str> {
    TOOL_VARIANTS.iter().find(|(n, _)| *n == field).map(|(_, s)| *s)
}

pub fn decode_step(m: Msg<'_>, buf: &[u8]) -> Result<Step, CodecError> {
    let mut step = None;
    for (n, w) in m.fields(buf)? {
        step = Some(match n {
            1 => {
                let am = m.nested("agent.v1.AssistantMessage");
                let mut text = String::new();
                for (k, v) in am.fields(m.bytes(n, &w)?)? {
                    match k {
                        1 => text = am.string(k, &v)?,
                        _ => return Err(am.unknown(k, &v)),
                    }
                }
                Step::Assistant { text }
            }
            2 => Step::Tool(Box::new(decode_tool_call(m.nested("agent.v1.ToolCall"), m.bytes(n, &w)?)?)),
            3 => {
                let tm = m.nested("agent.v1.ThinkingMessage");
                let (mut text, mut duration_ms) = (String::new(), None);
                for (k, v) in tm.fields(m.bytes(n, &w)?)? {
                    match k {
                        1 => text = tm.string(k, &v)?,
                        2 => duration_ms = Some(tm.varint(k, &v)? as u32),
                        _ => return Err(tm.unknown(k, &v)),
                    }
                }
                Step::Thinking { text, duration_ms }
            }
            _ => return Err(m.unknown(n, &w)),
        });
    }
    // An empty step (no oneof member set) is an empty assistant message.
    Ok(step.unwrap_or(Step::Assistant { text: String::new() }))
}

fn decode_tool_call(m: Msg<'_>, buf: &[u8]) -> Result<ToolCall, CodecError> {
    let mut call = ToolCall { variant: 0, tool_call_id: None, mcp: None, builtin_args: None, builtin_result: None };
    for (n, w) in m.fields(buf)? {
        match n {
            57 => call.tool_call_id = Some(m.string(n, &w)?).filter(|s| !s.is_empty()),
            15 => {
                call.variant = 15;
                call.mcp = Some(decode_mcp_call(m.nested("agent.v1.McpToolCall"), m.bytes(n, &w)?)?);
            }
            _ if variant_name(n).is_some() => {
                call.variant = n;
                // Built-in tools are `{1 args, 2 result}` with tool-specific
                // messages this codec has no schema for: kept as field trees.
                let bm = m.nested("agent.v1.ToolCall (built-in variant)");
                for (k, v) in bm.fields(bm.bytes(n, &w)?)? {
                    match k {
                        1 => call.builtin_args = Some(opaque_tree(bm.bytes(k, &v)?)),
                        2 => call.builtin_result = Some(opaque_tree(bm.bytes(k, &v)?)),
                        _ => return Err(bm.unknown(k, &v)),
                    }
                }
            }
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok(call)
}

fn decode_mcp_call(m: Msg<'_>, buf: &[u8]) -> Result<McpToolCall, CodecError> {
    let mut call = McpToolCall::default();
    for (n, w) in m.fields(buf)? {
        match n {
            1 => decode_mcp_args(m.nested("agent.v1.McpArgs"), m.bytes(n, &w)?, &mut call)?,
            2 => call.result = decode_mcp_result(m.nested("agent.v1.McpToolResult"), m.bytes(n, &w)?)?,
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok(call)
}

fn decode_mcp_args(m: Msg<'_>, buf: &[u8], call: &mut McpToolCall) -> Result<(), CodecError> {
    let opt = |s: String| Some(s).filter(|s| !s.is_empty());
    for (n, w) in m.fields(buf)? {
        match n {
            1 => call.name = m.string(n, &w)?,
            2 => {
                let e = m.nested("agent.v1.McpArgs.ArgsEntry");
                let (mut key, mut value) = (String::new(), Json::Null);
                for (k, v) in e.fields(m.bytes(n, &w)?)? {
                    match k {
                        1 => key = e.string(k, &v)?,
                        2 => value = decode_value(e.nested("google.protobuf.Value"), e.bytes(k, &v)?)?,
                        _ => return Err(e.unknown(k, &v)),
                    }
                }
                call.args.insert(key, value);
            }
            3 => call.tool_call_id = opt(m.string(n, &w)?),
            4 => call.provider_identifier = opt(m.string(n, &w)?),
            5 => call.tool_name = opt(m.string(n, &w)?),
            // Approval bookkeeping: not part of the call.
            6 => {
                m.bytes(n, &w)?;
            }
            7 | 8 => {
                m.varint(n, &w)?;
            }
            9 => call.server_identifier = opt(m.string(n, &w)?),
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok(())
}

fn decode_mcp_result(m: Msg<'_>, buf: &[u8]) -> Result<Option<McpResult>, CodecError> {
    let mut result = None;
    for (n, w) in m.fields(buf)? {
        let body = m.bytes(n, &w)?;
        result = Some(match n {
            1 => {
                let s = m.nested("agent.v1.McpSuccess");
                let (mut texts, mut images, mut is_error) = (Vec::new(), 0, false);
                for (k, v) in s.fields(body)? {
                    match k {
                        1 => {
                            let item = s.nested("agent.v1.McpToolResultContentItem");
                            for (i, iv) in item.fields(s.bytes(k, &v)?)? {
                                match i {
                                    1 => {
                                        let t = item.nested("agent.v1.McpTextContent");
                                        let mut text = String::new();
                                        for (j, jv) in t.fields(item.bytes(i, &iv)?)? {
                                            match j {
                                                1 => text = t.string(j, &jv)?,
                                                2 => {
                                                    t.string(j, &jv)?;
                                                }
                                                _ => return Err(t.unknown(j, &jv)),
                                            }
                                        }
                                        texts.push(text);
                                    }
                                    // McpImageContent: counted, its bytes are not text.
                                    2 => {
                                        item.bytes(i, &iv)?;
                                        images += 1;
                                    }
                                    _ => return Err(item.unknown(i, &iv)),
                                }
                            }
                        }
                        2 => is_error = s.varint(k, &v)? != 0,
                        _ => return Err(s.unknown(k, &v)),
                    }
                }
                McpResult::Success { texts, images, is_error }
            }
            2 => McpResult::Error { error: first_string(m.nested("agent.v1.McpToolError"), body, 1, &[])? },
            3 => McpResult::Rejected { reason: first_string(m.nested("agent.v1.McpRejected"), body, 1, &[2])? },
            4 => McpResult::PermissionDenied {
                error: first_string(m.nested("agent.v1.McpPermissionDenied"), body, 1, &[2])?,
            },
            _ => return Err(m.unknown(n, &w)),
        });
    }
    Ok(result)
}

/// A message of one string field `text_field` and varint fields `flags`.
fn first_string(m: Msg<'_>, buf: &[u8], text_field: u32, flags: &[u32]) -> Result<String, CodecError> {
    let mut text = String::new();
    for (n, w) in m.fields(buf)? {
        if n == text_field {
            text = m.string(n, &w)?;
        } else if flags.contains(&n) {
            m.varint(n, &w)?;
        } else {
            return Err(m.unknown(n, &w));
        }
    }
    Ok(text)
}

/// `google.protobuf.Value` → JSON. Integral doubles within ±2^53 become
/// JSON integers (JSON numbers were integers before they became doubles).
pub fn decode_value(m: Msg<'_>, buf: &[u8]) -> Result<Json, CodecError> {
    let mut out = Json::Null;
    for (n, w) in m.fields(buf)? {
        out = match n {
            1 => {
                m.varint(n, &w)?;
                Json::Null
            }
            2 => number(m.double(n, &w)?),
            3 => Json::String(m.string(n, &w)?),
            4 => Json::Bool(m.varint(n, &w)? != 0),
            5 => {
                let s = m.nested("google.protobuf.Struct");
                let mut map = Map::new();
                for (k, v) in s.fields(m.bytes(n, &w)?)? {
                    if k != 1 {
                        return Err(s.unknown(k, &v));
                    }
                    let e = s.nested("google.protobuf.Struct.FieldsEntry");
                    let (mut key, mut value) = (String::new(), Json::Null);
                    for (i, iv) in e.fields(s.bytes(k, &v)?)? {
                        match i {
                            1 => key = e.string(i, &iv)?,
                            2 => value = decode_value(e.nested("google.protobuf.Value"), e.bytes(i, &iv)?)?,
                            _ => return Err(e.unknown(i, &iv)),
                        }
                    }
                    map.insert(key, value);
                }
                Json::Object(map)
            }
            6 => {
                let l = m.nested("google.protobuf.ListValue");
                let mut items = Vec::new();
                for (k, v) in l.fields(m.bytes(n, &w)?)? {
                    if k != 1 {
                        return Err(l.unknown(k, &v));
                    }
                    items.push(decode_value(l.nested("google.protobuf.Value"), l.bytes(k, &v)?)?);
                }
                Json::Array(items)
            }
            _ => return Err(m.unknown(n, &w)),
        };
    }
    Ok(out)
}

fn number(f: f64) -> Json {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if f.fract() == 0.0 && f.abs() <= EXACT {
        Json::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number)
    }
}

/// JSON → `google.protobuf.Value`.
pub fn encode_value(v: &Json) -> Vec<u8> {
    let mut w = Writer::new();
    match v {
        Json::Null => {
            w.varint(1, 0);
        }
        Json::Bool(b) => {
            w.bool(4, *b);
        }
        Json::Number(n) => {
            w.fixed64(2, n.as_f64().unwrap_or(0.0).to_bits());
        }
        Json::String(s) => {
            w.string(3, s);
        }
        Json::Object(map) => {
            let mut s = Writer::new();
            for (k, v) in map {
                let mut e = Writer::new();
                e.string(1, k).bytes(2, &encode_value(v));
                s.bytes(1, &e.into_bytes());
            }
            w.bytes(5, &s.into_bytes());
        }
        Json::Array(items) => {
            let mut l = Writer::new();
            for item in items {
                l.bytes(1, &encode_value(item));
            }
            w.bytes(6, &l.into_bytes());
        }
    }
    w.into_bytes()
}

/// A field tree of a message this codec has no schema for: `{"<n>": value}`
/// (repeated fields as arrays); bytes as a string when they are printable
/// UTF-8, else as a nested tree when they parse, else as hex.
pub fn opaque_tree(buf: &[u8]) -> Json {
    fn tree(buf: &[u8], depth: usize) -> Option<Json> {
        let mut it = Fields::new(buf);
        let mut map = Map::new();
        while let Some((n, w)) = it.next_field().ok()? {
            let v = match w {
                Wire::Varint(x) => Json::from(x),
                Wire::Fixed64(x) => Json::from(x),
                Wire::Fixed32(x) => Json::from(x),
                Wire::Bytes(b) => bytes_value(b, depth),
            };
            let key = n.to_string();
            match map.get_mut(&key) {
                Some(Json::Array(a)) => {
                    a.push(v);
                }
                Some(old) => {
                    let prev = old.take();
                    *old = Json::Array(vec![prev, v]);
                }
                None => {
                    map.insert(key, v);
                }
            }
        }
        Some(Json::Object(map))
    }
    fn bytes_value(b: &[u8], depth: usize) -> Json {
        if let Ok(s) = std::str::from_utf8(b)
            && s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t' || c == '\r')
        {
            return Json::String(s.to_string());
        }
        if depth < 16
            && let Some(t) = tree(b, depth + 1)
        {
            return t;
        }
        Json::String(trajhost_codec_sdk::hash::to_hex(b))
    }
    tree(buf, 0).unwrap_or_else(|| Json::String(trajhost_codec_sdk::hash::to_hex(buf)))
}

/// `ConversationStep{1 AssistantMessage{1 text}}`.
pub fn encode_assistant(text: &str) -> Vec<u8> {
    let inner = Writer::new().string(1, text).finish();
    Writer::new().bytes(1, &inner).finish()
}

/// `ConversationStep{3 ThinkingMessage{1 text}}`.
pub fn encode_thinking(text: &str) -> Vec<u8> {
    let inner = Writer::new().string(1, text).finish();
    Writer::new().bytes(3, &inner).finish()
}

/// `ConversationStep{2 ToolCall{15 McpToolCall{1 McpArgs, 2 McpToolResult{1
/// McpSuccess{1 [text], 2 is_error}}}, 57 tool_call_id}}`.
pub fn encode_mcp_step(call: &McpToolCall) -> Vec<u8> {
    let mut args = Writer::new();
    args.string(1, &call.name);
    for (k, v) in &call.args {
        let entry = Writer::new().string(1, k).bytes(2, &encode_value(v)).finish();
        args.bytes(2, &entry);
    }
    if let Some(id) = &call.tool_call_id {
        args.string(3, id);
    }
    if let Some(p) = &call.provider_identifier {
        args.string(4, p);
    }
    if let Some(t) = &call.tool_name {
        args.string(5, t);
    }
    let mut mcp = Writer::new();
    mcp.bytes(1, &args.into_bytes());
    if let Some(McpResult::Success { texts, is_error, .. }) = &call.result {
        let mut success = Writer::new();
        for t in texts {
            let text = Writer::new().string(1, t).finish();
            let item = Writer::new().bytes(1, &text).finish();
            success.bytes(1, &item);
        }
        if *is_error {
            success.bool(2, true);
        }
        let result = Writer::new().bytes(1, &success.into_bytes()).finish();
        mcp.bytes(2, &result);
    }
    let mut tool = Writer::new();
    tool.bytes(15, &mcp.into_bytes());
    if let Some(id) = &call.tool_call_id {
        tool.string(57, id);
    }
    Writer::new().bytes(2, &tool.into_bytes()).finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Ctx;

    fn m() -> Msg<'static> {
        Msg::new(Ctx { blob: "b", file: "f" }, "agent.v1.ConversationStep")
    }

    #[test]
    fn value_round_trip() {
        let v = serde_json::json!({"a": [1, 2.5, "x", true, null, {"b": {"c": []}}], "n": -3});
        let back = decode_value(m().nested("google.protobuf.Value"), &encode_value(&v)).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn steps_round_trip() {
        assert_eq!(decode_step(m(), &encode_assistant("a")).unwrap(), Step::Assistant { text: "a".into() });
        assert_eq!(encode_assistant("a"), [0x0a, 0x03, 0x0a, 0x01, 0x61]);
        let call = McpToolCall {
            name: "Bash".into(),
            args: serde_json::json!({"command": "ls", "n": 3}).as_object().unwrap().clone(),
            tool_call_id: Some("c1".into()),
            provider_identifier: None,
            tool_name: Some("Bash".into()),
            server_identifier: None,
            result: Some(McpResult::Success { texts: vec!["out".into()], images: 0, is_error: true }),
        };
        let Step::Tool(t) = decode_step(m(), &encode_mcp_step(&call)).unwrap() else { panic!() };
        assert_eq!(t.variant, 15);
        assert_eq!(t.tool_call_id.as_deref(), Some("c1"));
        assert_eq!(t.mcp.unwrap(), call);
    }

    #[test]
    fn unknown_field_is_named() {
        let bytes = Writer::new().string(9, "x").finish();
        let e = decode_step(m(), &bytes).unwrap_err();
        let CodecError::Malformed(s) = e else { panic!() };
        assert!(
            s.contains("unknown field 9") && s.contains("agent.v1.ConversationStep") && s.contains("blob b"),
            "{s}"
        );
    }
}
