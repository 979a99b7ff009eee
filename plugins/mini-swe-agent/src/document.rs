//! The trajectory document and what `discover` needs from it.
//!
//! Messages stay borrowed raw JSON: each one's byte span in the file is
//! where its records point (`src`), and a message that does not parse is
//! reported alone while the others are read.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::time::rfc3339_epoch_secs;
use trajhost_codec_sdk::writer::ids::{hex_prefix, sha256_of};

/// Largest trajectory read (mini writes the whole document at once).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Characters of the task used as a title.
const TITLE_CHARS: usize = 80;

/// `{info, messages, trajectory_format}` as `mini` saves it.
#[derive(Debug, Deserialize)]
pub struct Document<'a> {
    #[serde(default)]
    pub info: Value,
    #[serde(default, borrow)]
    pub messages: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    pub trajectory_format: Option<String>,
}

impl<'a> Document<'a> {
    /// Parses a trajectory's bytes; an error says why it is not one.
    pub fn parse(bytes: &'a [u8]) -> Result<Document<'a>, String> {
        let doc: Document<'a> = serde_json::from_slice(bytes).map_err(|e| format!("not a JSON object ({e})"))?;
        if doc.messages.is_none() {
            return Err("no `messages` array".into());
        }
        match doc.trajectory_format.as_deref() {
            Some(f) if f.starts_with("mini-swe-agent") => {}
            Some(f) => return Err(format!("trajectory_format {f:?} is not mini-swe-agent's")),
            None if str_of(&doc.info, "mini_version").is_some() => {}
            None => return Err("neither `trajectory_format` nor `info.mini_version`".into()),
        }
        Ok(doc)
    }

    /// `info.mini_version`: the mini-swe-agent release that wrote the file.
    pub fn native_version(&self) -> Option<String> {
        str_of(&self.info, "mini_version").filter(|v| !v.is_empty()).map(str::to_string)
    }

    /// The agent's work directory, when the config names one (`""`: the
    /// process's, not recorded).
    pub fn cwd(&self) -> Option<String> {
        self.info
            .pointer("/config/environment/cwd")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
    }

    /// The model the run was configured with (`openai/fake-model`).
    pub fn configured_model(&self) -> Option<String> {
        self.info.pointer("/config/model/model_name").and_then(Value::as_str).map(str::to_string)
    }

    /// The raw messages with their byte spans (offset, length) in `bytes`.
    pub fn messages(&self, bytes: &[u8]) -> Vec<(&'a RawValue, u64, u64)> {
        trajhost_codec_sdk::json::raw_spans(bytes, self.messages.as_deref().unwrap_or_default())
    }

    /// The session id. mini records none and reuses one file name for
    /// every run (`last_mini_run`), so the id comes from the content: the
    /// first 16 hex digits of the SHA-256 of the system prompt, the first
    /// task, and the first reply's time and response id, which later steps
    /// of a run never change and a renamed or reformatted copy keeps. A
    /// trajectory without a reply is named by its prompts alone.
    pub fn native_id(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let (mut system, mut user) = (false, false);
        for raw in self.messages.iter().flatten() {
            let Ok(m) = serde_json::from_str::<Value>(raw.get()) else { continue };
            match str_of(&m, "role") {
                Some("system") if !system => system = true,
                Some("user") if !user => user = true,
                Some("assistant") => {
                    let ts = m.pointer("/extra/timestamp").and_then(Value::as_f64).map(|t| t.to_string());
                    parts.push(ts.unwrap_or_default());
                    parts.push(m.pointer("/extra/response/id").and_then(Value::as_str).unwrap_or("").to_string());
                    break;
                }
                _ => continue,
            }
            parts.push(content_text(m.get("content").unwrap_or(&Value::Null)));
        }
        let parts: Vec<&[u8]> = parts.iter().flat_map(|p| [p.as_bytes(), b"\0"]).collect();
        hex_prefix(&sha256_of(&parts), 16)
    }

    /// The time of the first message that has one (`extra.timestamp`,
    /// seconds since the epoch).
    pub fn started_at(&self) -> Option<String> {
        self.messages.iter().flatten().find_map(|raw| {
            let m: Value = serde_json::from_str(raw.get()).ok()?;
            timestamp_of(&m)
        })
    }

    /// The task of the first user message (the instance template's
    /// `{{task}}`, the template's literal text around it taken off) as a
    /// title.
    pub fn title(&self) -> Option<String> {
        let first = self.messages.iter().flatten().find_map(|raw| {
            let m: Value = serde_json::from_str(raw.get()).ok()?;
            (str_of(&m, "role") == Some("user")).then(|| content_text(m.get("content").unwrap_or(&Value::Null)))
        })?;
        let template = self.info.pointer("/config/agent/instance_template").and_then(Value::as_str);
        let task = template.map_or(first.as_str(), |t| task_of(&first, t));
        trajhost_codec_sdk::text::title_of(task, TITLE_CHARS)
    }
}

/// The `{{task}}` part of a rendered instance template: the literal text
/// before the placeholder taken off the front, the text cut at the
/// template's next literal line after it. The whole text when the template
/// does not render it so.
pub fn task_of<'t>(rendered: &'t str, template: &str) -> &'t str {
    let Some((before, after)) = template.split_once("{{task}}").or_else(|| template.split_once("{{ task }}")) else {
        return rendered;
    };
    let prefix = before.trim_start();
    let rest = if prefix.contains("{{") || prefix.contains("{%") {
        rendered
    } else {
        rendered.trim_start().strip_prefix(prefix).unwrap_or(rendered)
    };
    // The first literal piece after the placeholder ends the task.
    let literal = after.split(['{']).next().unwrap_or("").trim_matches(|c: char| c == '\n');
    let end = literal.lines().find(|l| !l.trim().is_empty()).and_then(|l| rest.find(l.trim_end()));
    rest[..end.unwrap_or(rest.len())].trim()
}

/// A message's `extra.timestamp` as RFC 3339.
pub fn timestamp_of(message: &Value) -> Option<String> {
    message.pointer("/extra/timestamp").and_then(Value::as_f64).and_then(rfc3339_epoch_secs)
}

/// Text of a message's `content`: a string, or the text parts of a list.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                _ => str_of(p, "text"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The bytes of a trajectory file.
pub fn load(home: &Dir, locator: &str) -> Result<Vec<u8>, CodecError> {
    trajhost_codec_sdk::errors::read_document(home, locator, MAX_FILE_BYTES)
}

/// A locator names a file below the home.
pub fn check_locator(locator: &str) -> Result<(), CodecError> {
    if trajhost_codec_sdk::paths::is_relative_below(locator) {
        Ok(())
    } else {
        Err(CodecError::NotFound(format!("locator {locator:?}: not a relative path below the home")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_out_of_a_template() {
        let t = "Please solve this issue: {{task}}\n\nYou can execute bash commands.\n{{system}}";
        let r = "Please solve this issue: Read hello.txt\n\nYou can execute bash commands.\nLinux";
        assert_eq!(task_of(r, t), "Read hello.txt");
        assert_eq!(task_of("plain", "no placeholder"), "plain");
    }
}
