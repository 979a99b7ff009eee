//! The parts of a `MessageRecord` both layouts record alike, and how they
//! map: a `gemini` message's thoughts, token counts and tool calls with
//! their results; a `user` message's harness context.

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Body, Usage};
use trajhost_codec_sdk::genai::Content;

/// `ToolCallRecord`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: Option<String>,
    pub args: Option<Value>,
    pub result: Content,
    pub status: Option<String>,
    pub timestamp: Option<String>,
    /// The subagent the call started (JSONL recordings).
    pub agent_id: Option<String>,
}

impl ToolCall {
    /// The `tool_call` record's body, under `call_id`.
    pub fn body(&self, call_id: &str) -> Body {
        Body::ToolCall {
            call_id: call_id.to_string(),
            name: self.name.clone().unwrap_or_default(),
            arguments: self.args.clone().unwrap_or(Value::Null),
        }
    }
}

/// The function calls of a message's content parts that none of its tool
/// call records holds (`recorded`: their ids), as (call id, `tool_call`
/// body); a part without an id is `<message id>#part<n>`.
pub fn part_calls(content: &Content, message_id: &str, recorded: &[String]) -> Vec<(String, Body)> {
    let mut out = Vec::new();
    for (n, part) in content.parts().iter().enumerate() {
        let Some(fc) = &part.function_call else { continue };
        let call_id = fc.id.clone().unwrap_or_else(|| format!("{message_id}#part{n}"));
        if recorded.contains(&call_id) {
            continue;
        }
        let body = Body::ToolCall {
            call_id: call_id.clone(),
            name: fc.name.clone().unwrap_or_default(),
            arguments: fc.args.clone().unwrap_or(Value::Null),
        };
        out.push((call_id, body));
    }
    out
}

/// A thought summary of a `gemini` message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Thought {
    pub subject: Option<String>,
    pub description: Option<String>,
    pub timestamp: Option<String>,
}

/// `TokensSummary`: `input` is the prompt count including cached tokens.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Tokens {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub cached: Option<u64>,
    pub thoughts: Option<u64>,
    pub tool: Option<u64>,
    pub total: Option<u64>,
}

/// Text the harness put in a user message rather than the person: Gemini
/// CLI's own rule for what a session list skips (`isIgnoredUserContent`).
pub fn harness_context_kind(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    if t.starts_with("<session_context>") {
        Some("session_context")
    } else if t.starts_with("<hook_context>") {
        Some("hook_context")
    } else {
        None
    }
}

/// Put before a prompt that Gemini CLI would take for a command: its resume
/// leaves a user message that starts with `/` or `?` (after JavaScript's
/// `trim`) out of the history it sends, as something typed for the CLI.
/// A zero-width space, which `trim` keeps, lets such a prompt from another
/// harness reach the model; the reader takes it off again.
pub const COMMAND_GUARD: char = '\u{200B}';

/// Whether Gemini CLI's resume would skip this user text as a command.
pub fn reads_as_command(text: &str) -> bool {
    // JavaScript's `trim` also strips U+FEFF, which Rust's whitespace does not include.
    let t = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
    t.starts_with('/') || t.starts_with('?')
}

/// A prompt as written: guarded when Gemini CLI would skip it (`None` when it is written as it is).
pub fn guard_command(text: &str) -> Option<String> {
    reads_as_command(text).then(|| format!("{COMMAND_GUARD}{text}"))
}

/// A prompt as read: the guard [`guard_command`] put there taken off.
pub fn unguard_command(text: String) -> String {
    match text.strip_prefix(COMMAND_GUARD) {
        Some(rest) if reads_as_command(rest) => rest.to_string(),
        _ => text,
    }
}

/// The id of a tool call's result record.
pub fn result_id(call_id: &str) -> String {
    format!("{call_id}#result")
}

/// A `gemini` message's thought summaries (text, time): the metadata list,
/// else `thought` parts (the form a checkpoint rebuilds), in order, so both
/// number alike and a repeat is recognized.
pub fn thoughts(thoughts: Option<&[Thought]>, content: &Content) -> Vec<(String, Option<String>)> {
    let listed: Vec<(String, Option<String>)> = thoughts
        .into_iter()
        .flatten()
        .map(|th| {
            let description = th.description.clone().unwrap_or_default();
            let text = match th.subject.as_deref().filter(|s| !s.is_empty()) {
                Some(subject) => format!("**{subject}** {description}"),
                None => description,
            };
            (text, th.timestamp.clone())
        })
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    content.parts().iter().filter(|p| p.is_thought()).map(|p| (p.text.clone().unwrap_or_default(), None)).collect()
}

/// Token counts. `input` is Gemini's prompt count, which includes cached
/// tokens: the canonical input excludes them.
pub fn usage(tokens: &Tokens) -> Option<Usage> {
    let usage = Usage {
        input: tokens.input.map(|i| i.saturating_sub(tokens.cached.unwrap_or(0))),
        output: tokens.output,
        cache_read: tokens.cached,
        cache_write: None,
        reasoning: tokens.thoughts,
        cost_usd: None,
    };
    (usage.input.is_some() || usage.output.is_some() || usage.cache_read.is_some()).then_some(usage)
}

/// A tool call's `result`: its function responses, text parts and
/// attachments, one per line.
pub fn result_text(result: &Content) -> String {
    match result {
        Content::Text(s) => s.clone(),
        Content::Parts(parts) => {
            let pieces: Vec<String> = parts
                .iter()
                .map(|part| {
                    if let Some(fr) = &part.function_response {
                        fr.text()
                    } else if let Some(text) = &part.text {
                        text.clone()
                    } else if let Some(blob) = part.inline_data.as_ref().or(part.file_data.as_ref()) {
                        format!("[attachment: {}]", blob.mime_type.as_deref().unwrap_or("unknown type"))
                    } else {
                        String::new()
                    }
                })
                .filter(|p| !p.is_empty())
                .collect();
            pieces.join("\n")
        }
        Content::None | Content::Unrecognized => String::new(),
    }
}

/// A call that recorded no result: no `result`, or an empty one (`[]`,
/// `""`: the call was scheduled or cancelled before it ran).
pub fn no_result(result: &Content) -> bool {
    match result {
        Content::None => true,
        Content::Text(s) => s.is_empty(),
        Content::Parts(parts) => parts.is_empty(),
        Content::Unrecognized => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_excludes_cached_input() {
        let tokens = Tokens { input: Some(100), cached: Some(30), output: Some(5), ..Tokens::default() };
        let u = usage(&tokens).unwrap();
        assert_eq!((u.input, u.cache_read, u.output), (Some(70), Some(30), Some(5)));
        assert!(usage(&Tokens::default()).is_none());
    }

    #[test]
    fn listed_thoughts_come_first() {
        let th = Thought { subject: Some("Plan".into()), description: Some("read it".into()), timestamp: None };
        assert_eq!(thoughts(Some(&[th]), &Content::None), vec![("**Plan** read it".to_string(), None)]);
        assert!(thoughts(None, &Content::None).is_empty());
        assert!(no_result(&Content::Text(String::new())));
    }
}
