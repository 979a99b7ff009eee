//! The native line shapes, as the Codex CLI writes them
//! (`codex-rs/protocol/src/protocol.rs` `RolloutLine` / `RolloutItem`,
//! `codex-rs/protocol/src/models.rs` `ResponseItem`).
//!
//! A line is parsed in two steps: the envelope `{timestamp, type, payload}`
//! with the payload kept as borrowed raw JSON, then the payload into the
//! struct of its type. Fields are lenient: a value of an unexpected JSON
//! type reads as absent instead of failing the line, because Codex changes
//! shapes between releases and one odd field must not cost the record.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::Deserializer;
use serde_json::value::RawValue;

/// The lenient field types (an odd field reads as absent).
pub use trajhost_codec_sdk::lenient::{Flag, Int, Text};

/// A field parsed as `T` when it has that shape, else absent (the line
/// still parses).
#[derive(Debug)]
pub struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Borrow the raw value, then try the shape: a mismatch is absence.
        let raw = <&'de RawValue>::deserialize(d)?;
        Ok(Lenient(serde_json::from_str(raw.get()).ok()))
    }
}

/// The envelope of every line: `RolloutLine`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Envelope<'a> {
    #[serde(borrow)]
    pub timestamp: Text<'a>,
    #[serde(borrow, rename = "type")]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub payload: Option<&'a RawValue>,
}

/// Parses a line's envelope. `Err` names what was wrong, for a diagnostic.
pub fn envelope(line: &[u8]) -> Result<Envelope<'_>, &'static str> {
    let text = trajhost_codec_sdk::json::as_str(line).ok_or("not UTF-8")?;
    serde_json::from_str::<Envelope<'_>>(text).map_err(|_| "not a JSON object")
}

/// Parses a payload as `T`; `None` when it is absent or of another shape.
pub fn payload<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Option<T> {
    serde_json::from_str(raw?.get()).ok()
}

/// The `type` tag of a payload.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Tagged<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Text<'a>,
}

/// `session_meta` (`SessionMetaLine`: `SessionMeta` + `git`).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct SessionMeta<'a> {
    #[serde(borrow)]
    pub id: Text<'a>,
    #[serde(borrow)]
    pub session_id: Text<'a>,
    #[serde(borrow)]
    pub timestamp: Text<'a>,
    #[serde(borrow)]
    pub cwd: Text<'a>,
    #[serde(borrow)]
    pub cli_version: Text<'a>,
    #[serde(borrow)]
    pub originator: Text<'a>,
    #[serde(borrow)]
    pub model_provider: Text<'a>,
    #[serde(borrow)]
    pub forked_from_id: Text<'a>,
    #[serde(borrow)]
    pub parent_thread_id: Text<'a>,
    /// `"cli"`, `"exec"`, … or `{"subagent": {"thread_spawn": {parent_thread_id, …}}}`.
    pub source: Option<&'a RawValue>,
    pub git: Lenient<Git>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Git {
    pub commit_hash: Option<String>,
    pub branch: Option<String>,
    pub repository_url: Option<String>,
}

/// `session_meta.source` of a subagent thread.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Source {
    pub subagent: Lenient<Subagent>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Subagent {
    pub thread_spawn: Lenient<ThreadSpawn>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ThreadSpawn {
    pub parent_thread_id: Option<String>,
}

impl SessionMeta<'_> {
    /// The thread id: `id`, else `session_id` (newer builds write both).
    pub fn thread_id(&self) -> Option<&str> {
        self.id.non_empty().or(self.session_id.non_empty())
    }

    /// The parent thread: a fork's origin, or a subagent's spawner.
    pub fn parent(&self) -> Option<String> {
        if let Some(p) = self.parent_thread_id.non_empty().or(self.forked_from_id.non_empty()) {
            return Some(p.to_string());
        }
        let source: Source = payload(self.source)?;
        source.subagent.0?.thread_spawn.0?.parent_thread_id.filter(|p| !p.is_empty())
    }
}

/// `inter_agent_communication` (newer builds): a message between agents.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct InterAgent<'a> {
    #[serde(borrow)]
    pub message: Text<'a>,
    #[serde(borrow)]
    pub content: Lenient<Vec<ContentItem<'a>>>,
}

/// `turn_context` (`TurnContextItem`).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct TurnContext<'a> {
    #[serde(borrow)]
    pub turn_id: Text<'a>,
    #[serde(borrow)]
    pub cwd: Text<'a>,
    #[serde(borrow)]
    pub model: Text<'a>,
    #[serde(borrow)]
    pub effort: Text<'a>,
}

/// One content item of a message (`ContentItem`) or of a tool output.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ContentItem<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub text: Text<'a>,
    #[serde(borrow)]
    pub image_url: Text<'a>,
}

/// A `response_item` payload: every `ResponseItem` variant's fields in one
/// struct (the `type` tag says which apply).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ResponseItem<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub id: Text<'a>,
    // message
    #[serde(borrow)]
    pub role: Text<'a>,
    #[serde(borrow)]
    pub content: Lenient<Vec<ContentItem<'a>>>,
    #[serde(borrow)]
    pub phase: Text<'a>,
    /// Newer builds: where each content item came from.
    pub internal_chat_message_metadata_passthrough: Lenient<Passthrough>,
    // reasoning
    #[serde(borrow)]
    pub summary: Lenient<Vec<ContentItem<'a>>>,
    #[serde(borrow)]
    pub encrypted_content: Text<'a>,
    // function_call / custom_tool_call / local_shell_call / *_output
    #[serde(borrow)]
    pub name: Text<'a>,
    #[serde(borrow)]
    pub namespace: Text<'a>,
    /// A JSON string (`function_call`), or an object (`tool_search_call`).
    pub arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    pub input: Text<'a>,
    #[serde(borrow)]
    pub call_id: Text<'a>,
    #[serde(borrow)]
    pub status: Text<'a>,
    /// `local_shell_call` / `web_search_call` action object.
    pub action: Option<&'a RawValue>,
    /// `*_output`: a string, or content items.
    pub output: Option<&'a RawValue>,
    /// `tool_search_call` arguments.
    pub execution: Option<&'a RawValue>,
    /// `tool_search_output`: the tools it found.
    pub tools: Lenient<Vec<NamedTool>>,
    /// `image_generation_call`.
    #[serde(borrow)]
    pub revised_prompt: Text<'a>,
    /// `agent_message` (messages between agents of newer builds).
    #[serde(borrow)]
    pub author: Text<'a>,
    #[serde(borrow)]
    pub recipient: Text<'a>,
}

/// A tool `tool_search_output` lists.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct NamedTool {
    pub name: Option<String>,
}

impl ResponseItem<'_> {
    /// `arguments` when it is a string (a function call's JSON text).
    pub fn arguments_text(&self) -> Option<Cow<'_, str>> {
        let raw = self.arguments?;
        serde_json::from_str::<Text<'_>>(raw.get()).ok()?.0
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Passthrough {
    pub content_item_kinds: Vec<String>,
    pub content_item_metadata: Vec<ItemMetadata>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ItemMetadata {
    pub provenance: Lenient<Provenance>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Provenance {
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// A tool output: `output` as a string, as content items, or as the older
/// `{content, success}` object.
pub enum Output<'a> {
    Text(Cow<'a, str>),
    Items(Vec<ContentItem<'a>>),
    Object { content: Option<String>, success: Option<bool> },
    None,
}

impl<'a> Output<'a> {
    pub fn parse(raw: Option<&'a RawValue>) -> Output<'a> {
        let Some(raw) = raw else { return Output::None };
        if let Ok(Text(Some(text))) = serde_json::from_str::<Text<'a>>(raw.get()) {
            return Output::Text(text);
        }
        if let Ok(items) = serde_json::from_str::<Vec<ContentItem<'a>>>(raw.get()) {
            return Output::Items(items);
        }
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Obj {
            content: Option<String>,
            success: Option<bool>,
        }
        match serde_json::from_str::<Obj>(raw.get()) {
            Ok(o) => Output::Object { content: o.content, success: o.success },
            Err(_) => Output::None,
        }
    }
}

/// An `event_msg` payload: the fields of the event types the codec maps.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Event<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Text<'a>,
    /// `token_count`
    pub info: Lenient<TokenInfo>,
    /// `error`, `stream_error`, `warning`, `user_message`, `agent_message`
    #[serde(borrow)]
    pub message: Text<'a>,
    /// `turn_aborted`
    #[serde(borrow)]
    pub reason: Text<'a>,
    /// `exec_command_end`, `patch_apply_end`, `mcp_tool_call_end`
    #[serde(borrow)]
    pub call_id: Text<'a>,
    pub exit_code: Int,
    pub success: Flag,
    pub result: Option<&'a RawValue>,
    /// `thread_name_updated`
    #[serde(borrow)]
    pub thread_name: Text<'a>,
    /// `thread_rolled_back`
    pub num_turns: Int,
    /// `item_completed` / `item_started`
    pub item: Lenient<ThreadItem>,
    /// `task_complete`
    #[serde(borrow)]
    pub turn_id: Text<'a>,
    /// `user_message.kind` of older builds: `plain`, or the context the
    /// harness injected (`user_instructions`, `environment_context`).
    #[serde(borrow, rename = "kind")]
    pub message_kind: Text<'a>,
    /// `user_message` images (data URLs) and `local_images` (paths).
    pub images: Lenient<Vec<serde::de::IgnoredAny>>,
    pub local_images: Lenient<Vec<serde::de::IgnoredAny>>,
}

/// `token_count.info`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct TokenInfo {
    pub last_token_usage: Lenient<TokenUsage>,
    pub total_token_usage: Lenient<TokenUsage>,
}

/// `TokenUsage`: OpenAI's `input_tokens` includes the cached ones.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
pub struct TokenUsage {
    pub input_tokens: Int,
    pub cached_input_tokens: Int,
    pub cache_write_input_tokens: Int,
    pub output_tokens: Int,
    pub reasoning_output_tokens: Int,
    pub total_tokens: Int,
}

/// `token_usage_record` (newer builds): the usage of one response.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct UsageRecord<'a> {
    #[serde(borrow)]
    pub response_id: Text<'a>,
    pub usage: Lenient<TokenUsage>,
}

/// The typed thread item of `item_completed` (newer builds).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ThreadItem {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub id: Option<String>,
    pub exit_code: Int,
    pub status: Option<String>,
}

/// `compacted` (`CompactedItem`).
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Compacted<'a> {
    #[serde(borrow)]
    pub message: Text<'a>,
    #[serde(borrow)]
    pub replacement_history: Lenient<Vec<ResponseItem<'a>>>,
}

/// The text of content items: `input_text` / `output_text` / `text` /
/// `summary_text` / `reasoning_text` parts, joined by `sep`.
pub fn join_text(items: &[ContentItem<'_>], sep: &str) -> String {
    let mut out = String::new();
    for item in items {
        let Some(text) = item.text.get() else { continue };
        if item.kind.get().is_some_and(|k| k.contains("image")) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push_str(text);
    }
    out
}

/// A native type name fit for a diagnostic (the SDK's rule).
pub use trajhost_codec_sdk::text::type_name;

/// Opening tags of the context Codex injects as `user`-role messages
/// (`codex-rs/core/src/event_mapping.rs`, contextual user messages): not
/// said by the person.
const CONTEXT_MARKERS: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for",
    "<INSTRUCTIONS>",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<collaboration_mode>",
    "<permissions instructions>",
    "<apps_instructions>",
    "<personality_spec>",
    "<model_switch>",
];

impl ResponseItem<'_> {
    /// A `user`-role message that is context the harness injected (the
    /// environment, AGENTS.md, instructions), not the person's words: by
    /// the provenance newer builds record, else by its opening tag.
    pub fn is_injected_context(&self) -> bool {
        if let Some(pass) = &self.internal_chat_message_metadata_passthrough.0 {
            let provenances: Vec<&str> =
                pass.content_item_metadata.iter().filter_map(|m| m.provenance.0.as_ref()?.kind.as_deref()).collect();
            if !provenances.is_empty() {
                return !provenances.contains(&"user");
            }
            if !pass.content_item_kinds.is_empty() {
                return !pass.content_item_kinds.iter().any(|k| k.starts_with("user."));
            }
        }
        let Some(items) = &self.content.0 else { return false };
        let Some(first) = items.iter().find_map(|i| i.text.get()) else { return false };
        is_context_text(first)
    }
}

/// Whether a user-role text opens with one of the context tags Codex
/// injects.
pub fn is_context_text(text: &str) -> bool {
    let text = text.trim_start();
    CONTEXT_MARKERS.iter().any(|m| text.starts_with(m))
}
