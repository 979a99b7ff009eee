//! `sniff`: a loose `api_conversation_history.json` (an exported or copied
//! task). It is a JSON array of `{role, content}` messages, which many
//! tools write; it is claimed by its file name, or by the texts only Cline
//! puts in the first message (`<task>`, `<environment_details>`).

use trajhost_codec_sdk::Sniffed;

use crate::layout::API_HISTORY;

pub fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
    let text = std::str::from_utf8(head).ok().or_else(|| {
        // A head cut inside a multi-byte character.
        let valid = std::str::from_utf8(head).err()?.valid_up_to();
        std::str::from_utf8(&head[..valid]).ok()
    })?;
    let body = text.trim_start();
    let array_of_messages =
        body.starts_with('[') && body[1..].trim_start().starts_with('{') && body.contains("\"role\"");
    if !array_of_messages {
        return None;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let marked = body.contains("<task>\\n") || body.contains("<environment_details>");
    if name != API_HISTORY && !marked {
        return None;
    }
    let id = path.rsplit('/').nth(1).filter(|d| !d.is_empty() && name == API_HISTORY).map(str::to_string);
    Some(Sniffed { native_version: None, native_id: id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_cline_api_histories() {
        let head = br#"[{"role":"user","content":[{"type":"text","text":"<task>\nhi\n</task>"}]}]"#;
        assert_eq!(sniff("/x/1700/api_conversation_history.json", head).unwrap().native_id.as_deref(), Some("1700"));
        assert!(sniff("/x/copy.json", head).is_some(), "the task marker");
        assert!(sniff("/x/copy.json", br#"[{"role":"user","content":"hi"}]"#).is_none());
        assert!(sniff("/x/api_conversation_history.json", br#"{"messages":[]}"#).is_none());
    }
}
