//! The Google GenAI content shapes (`Content`, `Part`, `functionCall`,
//! `functionResponse`) that Gemini CLI stores in its session files and that
//! its forks (Qwen Code) inherited, with the readings both codecs share.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::canonical::Attachment;

/// `PartListUnion`: a string, one part, or a list of parts.
#[derive(Debug, Clone, Default)]
pub enum Content {
    #[default]
    None,
    Text(String),
    Parts(Vec<Part>),
    /// Neither a string nor parts (reported, not read).
    Unrecognized,
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Parts(Vec<Part>),
            One(Box<Part>),
            Other(IgnoredAny),
        }
        Ok(match Option::<Raw>::deserialize(deserializer)? {
            None => Content::None,
            Some(Raw::Text(s)) => Content::Text(s),
            Some(Raw::Parts(p)) => Content::Parts(p),
            Some(Raw::One(p)) => Content::Parts(vec![*p]),
            Some(Raw::Other(_)) => Content::Unrecognized,
        })
    }
}

impl Content {
    pub fn parts(&self) -> &[Part] {
        match self {
            Content::Parts(p) => p,
            _ => &[],
        }
    }

    /// The text parts (thoughts aside), concatenated as the model sees them:
    /// Gemini streams text in chunks, and the parts of a prompt carry their
    /// own line breaks.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => {
                parts.iter().filter(|p| !p.is_thought()).filter_map(|p| p.text.as_deref()).collect()
            }
            Content::None | Content::Unrecognized => String::new(),
        }
    }
}

/// One `Part`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Part {
    pub text: Option<String>,
    pub thought: Option<bool>,
    pub function_call: Option<FunctionCall>,
    pub function_response: Option<FunctionResponse>,
    pub inline_data: Option<Blob>,
    pub file_data: Option<Blob>,
    pub executable_code: Option<Value>,
    pub code_execution_result: Option<Value>,
    /// Other keys (`thoughtSignature`, `videoMetadata`, new part kinds).
    #[serde(flatten)]
    pub other: BTreeMap<String, IgnoredAny>,
}

/// Part keys that carry no content of their own.
pub const PART_ANNOTATIONS: &[&str] = &["thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution"];

impl Part {
    pub fn is_thought(&self) -> bool {
        self.thought == Some(true)
    }

    /// The name of a part that is none of the kinds the codecs read.
    pub fn unknown_kind(&self) -> Option<&str> {
        let known = self.text.is_some()
            || self.function_call.is_some()
            || self.function_response.is_some()
            || self.inline_data.is_some()
            || self.file_data.is_some()
            || self.executable_code.is_some()
            || self.code_execution_result.is_some();
        if known {
            return None;
        }
        Some(self.other.keys().map(String::as_str).find(|k| !PART_ANNOTATIONS.contains(k)).unwrap_or("(empty part)"))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FunctionCall {
    pub id: Option<String>,
    pub name: Option<String>,
    pub args: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FunctionResponse {
    pub id: Option<String>,
    pub name: Option<String>,
    pub response: Option<Value>,
}

impl FunctionResponse {
    /// `response`: its `output` (or `error`) string, else the response as
    /// JSON.
    pub fn text(&self) -> String {
        match &self.response {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Object(map)) => {
                for key in ["output", "error"] {
                    if let Some(Value::String(s)) = map.get(key) {
                        return s.clone();
                    }
                }
                Value::Object(map.clone()).to_string()
            }
            Some(other) => other.to_string(),
        }
    }
}

/// `inlineData` / `fileData`: only the media type is kept.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Blob {
    pub mime_type: Option<String>,
}

/// A tool call's `status`: `success` is ok, `error` and `cancelled` are
/// not; a call still scheduled or executing says nothing yet.
pub fn status_ok(status: Option<&str>) -> Option<bool> {
    match status? {
        "success" => Some(true),
        "error" | "cancelled" => Some(false),
        _ => None,
    }
}

/// An attachment of a media type (`image/png` → kind `image`).
pub fn attachment(mime: Option<&str>) -> Attachment {
    let kind = match mime {
        Some(m) if m.starts_with("image/") => "image",
        Some(m) if m.starts_with("audio/") => "audio",
        Some(m) if m.starts_with("video/") => "video",
        _ => "document",
    };
    Attachment { kind: kind.into(), media_type: mime.map(str::to_string) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_shapes() {
        let c: Content = serde_json::from_str(r#"[{"text":"a"},{"text":"t","thought":true},{"text":"b"}]"#).unwrap();
        assert_eq!(c.text(), "ab");
        let c: Content = serde_json::from_str(r#"{"text":"one"}"#).unwrap();
        assert_eq!(c.parts().len(), 1);
        let c: Content = serde_json::from_str(r#""plain""#).unwrap();
        assert_eq!(c.text(), "plain");
        assert!(matches!(serde_json::from_str::<Content>("42").unwrap(), Content::Unrecognized));
        assert!(matches!(serde_json::from_str::<Content>("null").unwrap(), Content::None));
        let p: Part = serde_json::from_str(r#"{"newKind":{},"thoughtSignature":"x"}"#).unwrap();
        assert_eq!(p.unknown_kind(), Some("newKind"));
        let p: Part = serde_json::from_str(r#"{"thoughtSignature":"x"}"#).unwrap();
        assert_eq!(p.unknown_kind(), Some("(empty part)"));
    }

    #[test]
    fn response_texts_statuses_and_attachments() {
        let fr = |v: &str| FunctionResponse { response: serde_json::from_str(v).ok(), ..Default::default() };
        assert_eq!(fr(r#"{"output":"o","error":"e"}"#).text(), "o");
        assert_eq!(fr(r#"{"error":"e"}"#).text(), "e");
        assert_eq!(fr(r#"{"x":1}"#).text(), r#"{"x":1}"#);
        assert_eq!(fr(r#""s""#).text(), "s");
        assert_eq!(fr("null").text(), "");
        assert_eq!(status_ok(Some("success")), Some(true));
        assert_eq!(status_ok(Some("cancelled")), Some(false));
        assert_eq!(status_ok(Some("executing")), None);
        assert_eq!(attachment(Some("image/png")).kind, "image");
        assert_eq!(attachment(None).kind, "document");
    }
}
