//! The native line shapes, as Claude Code writes them.
//!
//! One struct holds every envelope field any record type uses: a line is
//! parsed once, borrowing its strings from the read buffer. Fields are
//! lenient: a field of an unexpected JSON type reads as absent instead of
//! failing the line, because Claude Code changes shapes between releases and
//! one odd field must not cost the whole record.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The lenient field types (an odd field reads as absent).
pub use trajhost_codec_sdk::lenient::{Count, Flag, Obj, Text};

/// One line of a session file: the common envelope plus the fields of every
/// record type (each type uses a few; the rest stay absent).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Entry<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub uuid: Text<'a>,
    #[serde(borrow)]
    pub parent_uuid: Text<'a>,
    /// On a compact boundary (whose `parentUuid` is null): the line the
    /// conversation continues from.
    #[serde(borrow)]
    pub logical_parent_uuid: Text<'a>,
    #[serde(borrow)]
    pub timestamp: Text<'a>,
    #[serde(borrow)]
    pub session_id: Text<'a>,
    #[serde(borrow)]
    pub cwd: Text<'a>,
    /// VERSION PIN: the CLI version that wrote the line.
    #[serde(borrow)]
    pub version: Text<'a>,
    #[serde(borrow)]
    pub git_branch: Text<'a>,
    #[serde(borrow)]
    pub agent_id: Text<'a>,
    /// A line of a subagent's conversation (all lines of a subagent file;
    /// older builds also wrote them inline in the main transcript).
    pub is_sidechain: Flag,

    // user / assistant
    #[serde(borrow)]
    pub message: Obj<Message<'a>>,
    pub is_meta: Flag,
    pub is_compact_summary: Flag,
    pub is_api_error_message: Flag,
    /// Harness-side structured tool result; only its spill path is used.
    #[serde(borrow)]
    pub tool_use_result: Option<&'a RawValue>,

    // system (and queue-operation, attachment bodies)
    #[serde(borrow)]
    pub subtype: Text<'a>,
    #[serde(borrow)]
    pub content: Text<'a>,
    #[serde(borrow)]
    pub level: Text<'a>,
    #[serde(borrow)]
    pub compact_metadata: Obj<CompactMetadata<'a>>,
    pub retry_attempt: Count,
    pub max_retries: Count,
    pub error: Obj<ApiError>,

    // titles
    #[serde(borrow)]
    pub summary: Text<'a>,
    #[serde(borrow)]
    pub custom_title: Text<'a>,
    #[serde(borrow)]
    pub ai_title: Text<'a>,
    #[serde(borrow)]
    pub agent_name: Text<'a>,

    // queue-operation
    #[serde(borrow)]
    pub operation: Text<'a>,

    // mode / permission-mode
    #[serde(borrow)]
    pub mode: Text<'a>,
    #[serde(borrow)]
    pub permission_mode: Text<'a>,

    // attachment
    #[serde(borrow)]
    pub attachment: Obj<AttachmentBody<'a>>,
    /// 2.1.33x: what the model was sent for an attachment, `[{content}]`
    /// (read with [`rendered_text`]).
    #[serde(borrow)]
    pub rendered: Option<&'a RawValue>,

    // assistant (2.1.33x): the `api-request` line whose request produced it.
    #[serde(borrow)]
    pub request_ref: Text<'a>,

    // summary: the record it summarizes (in a 1.0.x forked resume file,
    // a record of the session it continues).
    #[serde(borrow)]
    pub leaf_uuid: Text<'a>,

    // continued-in (Claude Code >= 2.1.261): the session it goes on in.
    #[serde(borrow)]
    pub continued_in_session_id: Text<'a>,

    // pr-link
    #[serde(borrow)]
    pub pr_url: Text<'a>,
    pub pr_number: Count,
}

/// `message` of user and assistant lines (the Anthropic Messages API shape).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub model: Text<'a>,
    #[serde(borrow)]
    pub content: Content<'a>,
    #[serde(borrow)]
    pub stop_reason: Text<'a>,
    pub usage: Obj<Usage>,
}

/// `content`: a plain string or a list of blocks.
#[derive(Debug, Default)]
pub enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64));
                // A block that is not an object reads as a block of no type.
                while let Some(Obj(block)) = seq.next_element::<Obj<Block<'de>>>()? {
                    blocks.push(block.unwrap_or_default());
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
        }
        d.deserialize_any(V)
    }
}

/// One content block; `kind` says which fields matter:
/// `text{text}`, `thinking{thinking, signature}`, `redacted_thinking{data}`,
/// `tool_use{id, name, input}` (and `server_tool_use`), `tool_result{tool_use_id,
/// content, is_error}` (and server `*_tool_result`), `image{source}`, `document{source}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Block<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub text: Text<'a>,
    #[serde(borrow)]
    pub thinking: Text<'a>,
    #[serde(borrow)]
    pub signature: Text<'a>,
    #[serde(borrow)]
    pub data: Text<'a>,
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub name: Text<'a>,
    #[serde(borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tool_use_id: Text<'a>,
    #[serde(borrow)]
    pub content: Content<'a>,
    pub is_error: Flag,
    #[serde(borrow)]
    pub source: Obj<Source<'a>>,
    // web search results inside server tool results
    #[serde(borrow)]
    pub url: Text<'a>,
    #[serde(borrow)]
    pub title: Text<'a>,
}

/// `source` of image and document blocks; the data itself is not kept.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Source<'a> {
    #[serde(borrow)]
    pub media_type: Text<'a>,
}

/// `message.usage`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Usage {
    pub input_tokens: Count,
    pub output_tokens: Count,
    pub cache_creation_input_tokens: Count,
    pub cache_read_input_tokens: Count,
}

/// `compactMetadata` of `system/compact_boundary`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactMetadata<'a> {
    #[serde(borrow)]
    pub trigger: Text<'a>,
    pub pre_tokens: Count,
}

/// `error` of `system/api_error`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ApiError {
    pub status: Count,
}

/// `attachment` of attachment lines: `{type, content?, …}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct AttachmentBody<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub content: Text<'a>,
    /// The text of some 2.1.33x subtypes (`model`, `total_tokens_reminder`).
    #[serde(borrow)]
    pub text: Text<'a>,
}

/// The text an attachment line's `rendered` (`[{content: "…"}, …]`) holds:
/// the contents that are strings, joined by a blank line as Claude Code
/// joins them. `None` when there is none.
pub fn rendered_text(rendered: Option<&RawValue>) -> Option<String> {
    #[derive(Deserialize)]
    struct Part<'a> {
        #[serde(default, borrow)]
        content: Text<'a>,
    }
    let parts: Vec<Obj<Part<'_>>> = serde_json::from_str(rendered?.get()).ok()?;
    let texts: Vec<&str> = parts.iter().filter_map(|p| p.0.as_ref()?.content.non_empty()).collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// The fields of `toolUseResult` the codec reads.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolUseResult<'a> {
    #[serde(borrow)]
    pub persisted_output_path: Text<'a>,
    pub persisted_output_size: Count,
}

/// Parses one line. `Err` carries the serde error category only (never
/// content): `syntax`, `eof`, `data`.
pub fn parse(bytes: &[u8]) -> Result<Entry<'_>, &'static str> {
    trajhost_codec_sdk::json::parse(bytes).map_err(|e| match e.classify() {
        serde_json::error::Category::Syntax => "syntax",
        serde_json::error::Category::Eof => "eof",
        serde_json::error::Category::Data => "data",
        serde_json::error::Category::Io => "io",
    })
}
