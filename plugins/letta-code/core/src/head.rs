//! Session facts from the head of `messages.jsonl` (its first 64 KiB): the
//! schema-2 `session` header, and the device-information reminder Letta
//! Code puts in each user message (`Letta Code version`, `Current working
//! directory`), the only places a conversation records them.

use serde_json::Value;
use trajhost_codec_sdk::fs::{Dir, FsError};

use crate::records::{Row, classify, is_reminder};
use trajhost_codec_sdk::json::str_of;

pub const HEAD_BYTES: u32 = 64 * 1024;

#[derive(Debug, Default, Clone)]
pub struct Head {
    pub version: Option<String>,
    pub cwd: Option<String>,
    /// The `session` header's timestamp (schema 2).
    pub started_at: Option<String>,
    /// The first thing the person typed.
    pub first_prompt: Option<String>,
    /// True when any message or entry was seen.
    pub has_rows: bool,
}

impl Head {
    pub fn scan(home: &Dir, path: &str) -> Result<Head, FsError> {
        let bytes = home.open(path)?.read_at(0, HEAD_BYTES)?;
        let mut head = Head::default();
        for line in bytes.split(|b| *b == b'\n') {
            let Ok(value) = serde_json::from_slice::<Value>(line) else { continue };
            head.has_rows = true;
            match classify(&value) {
                Row::Header(h) => {
                    head.cwd = head.cwd.take().or_else(|| str_of(h, "cwd").map(str::to_string));
                    head.started_at = str_of(h, "timestamp").map(str::to_string);
                }
                Row::Message { message, .. } if str_of(message, "role") == Some("user") => {
                    let texts: Vec<&str> = match message.get("content") {
                        Some(Value::String(s)) => vec![s.as_str()],
                        Some(Value::Array(parts)) => parts.iter().filter_map(|p| str_of(p, "text")).collect(),
                        _ => Vec::new(),
                    };
                    for text in &texts {
                        if is_reminder(text) {
                            head.version = head.version.take().or_else(|| field(text, "Letta Code version"));
                            head.cwd = head.cwd.take().or_else(|| field(text, "Current working directory"));
                        } else if head.first_prompt.is_none() && !text.trim().is_empty() {
                            head.first_prompt = Some(text.to_string());
                        }
                    }
                }
                _ => {}
            }
            if head.first_prompt.is_some() && head.version.is_some() && head.cwd.is_some() {
                break;
            }
        }
        Ok(head)
    }
}

/// The value of a `- **<name>**: <value>` line of a reminder.
fn field(text: &str, name: &str) -> Option<String> {
    let marker = format!("**{name}**:");
    let start = text.find(&marker)? + marker.len();
    let value = text[start..].lines().next()?.trim().trim_matches('`').trim();
    (!value.is_empty() && value.len() <= 4096).then(|| value.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_reminder_fields() {
        let text = "<system-reminder>\n- **Letta Code version**: 0.25.9\n- **Current working directory**: /home/user/project\n</system-reminder>";
        assert_eq!(super::field(text, "Letta Code version").as_deref(), Some("0.25.9"));
        assert_eq!(super::field(text, "Current working directory").as_deref(), Some("/home/user/project"));
        assert_eq!(super::field(text, "Missing"), None);
    }
}
