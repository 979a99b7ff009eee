//! Content blocks (Anthropic `ContentBlockParam`s, with Cline's additions)
//! and what an assistant message's blocks become.

use serde::Deserialize;
use serde_json::Value as Json;
use serde_json::value::RawValue;
use trajhost_codec_sdk::canonical::Reasoning;

/// One content block (every kind's fields; `type` says which apply).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Block<'a> {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub text: Option<String>,
    pub thinking: Option<String>,
    pub signature: Option<String>,
    pub data: Option<String>,
    pub id: Option<String>,
    pub name: Option<String>,
    #[serde(borrow)]
    pub input: Option<&'a RawValue>,
    pub tool_use_id: Option<String>,
    #[serde(borrow)]
    pub content: Option<&'a RawValue>,
    pub is_error: Option<bool>,
    /// A CLI `file` block's path.
    pub path: Option<String>,
    /// A CLI `image` block's media type.
    #[serde(rename = "mediaType")]
    pub media_type: Option<String>,
    pub source: Option<ImageSource>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ImageSource {
    pub media_type: Option<String>,
}

/// The blocks of `content` (a string becomes one text block); `None` when
/// it is neither a string nor blocks.
pub fn blocks<'a>(content: Option<&'a RawValue>) -> Option<Vec<Block<'a>>> {
    let Some(raw) = content else { return Some(Vec::new()) };
    let text = raw.get();
    if text.starts_with('"') {
        let s: String = serde_json::from_str(text).ok()?;
        return Some(vec![Block { kind: Some("text".into()), text: Some(s), ..Block::default() }]);
    }
    if text == "null" {
        return Some(Vec::new());
    }
    serde_json::from_str(text).ok()
}

/// A `tool_use` block.
pub struct ToolUse {
    /// The native id; `None` when the block has none (the codec names it).
    pub id: Option<String>,
    pub name: String,
    /// `input`, `null` when missing or not JSON.
    pub arguments: Json,
}

/// An assistant message's blocks, by kind, each in block order.
#[derive(Default)]
pub struct AssistantBlocks<'b> {
    /// The `text` blocks, concatenated.
    pub text: String,
    /// `thinking` and `redacted_thinking` blocks.
    pub reasoning: Vec<Reasoning>,
    pub calls: Vec<ToolUse>,
    /// The `type` of every other block.
    pub unknown: Vec<&'b str>,
}

/// Sorts an assistant message's blocks into text, reasoning and tool calls.
pub fn assistant<'b>(blocks: &'b [Block<'_>]) -> AssistantBlocks<'b> {
    let mut out = AssistantBlocks::default();
    for block in blocks {
        match block.kind.as_deref().unwrap_or("") {
            "text" => out.text.push_str(block.text.as_deref().unwrap_or("")),
            "thinking" => out.reasoning.push(Reasoning {
                text: block.thinking.clone(),
                opaque: block.signature.clone().filter(|s| !s.is_empty()),
                encrypted: false,
            }),
            "redacted_thinking" => {
                out.reasoning.push(Reasoning { text: None, opaque: block.data.clone(), encrypted: true })
            }
            "tool_use" => out.calls.push(ToolUse {
                id: block.id.clone(),
                name: block.name.clone().unwrap_or_default(),
                arguments: block.input.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or(Json::Null),
            }),
            other => out.unknown.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_string()).unwrap()
    }

    #[test]
    fn a_string_is_one_text_block_and_other_json_is_none() {
        let text = raw(r#""hi""#);
        let got = blocks(Some(&text)).unwrap();
        assert_eq!((got.len(), got[0].kind.as_deref(), got[0].text.as_deref()), (1, Some("text"), Some("hi")));
        assert!(blocks(Some(&raw("null"))).unwrap().is_empty());
        assert!(blocks(Some(&raw("{}"))).is_none());
    }

    #[test]
    fn sorts_assistant_blocks_in_order() {
        let content = raw(r#"[{"type":"thinking","thinking":"t","signature":""},{"type":"text","text":"a"},
            {"type":"tool_use","id":"c1","name":"ls","input":{"p":1}},{"type":"tool_use","name":"x"},
            {"type":"redacted_thinking","data":"d"},{"type":"text","text":"b"},{"type":"odd"}]"#);
        let blocks = blocks(Some(&content)).unwrap();
        let said = assistant(&blocks);
        assert_eq!(said.text, "ab");
        assert_eq!(said.reasoning.len(), 2);
        assert_eq!((said.reasoning[0].text.as_deref(), said.reasoning[0].opaque.as_deref()), (Some("t"), None));
        assert!(said.reasoning[1].encrypted);
        let calls: Vec<_> =
            said.calls.iter().map(|c| (c.id.as_deref(), c.name.as_str(), c.arguments.clone())).collect();
        assert_eq!(calls, [(Some("c1"), "ls", serde_json::json!({"p": 1})), (None, "x", Json::Null)]);
        assert_eq!(said.unknown, ["odd"]);
    }
}
