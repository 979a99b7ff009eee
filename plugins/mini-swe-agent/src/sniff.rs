//! `sniff`: a loose file that is a mini-swe-agent trajectory.
//!
//! mini saves `{"info": …, "messages": […], "trajectory_format":
//! "mini-swe-agent-1.1"}` with `json.dumps(indent=2)`: the format tag comes
//! last, so a long trajectory's head shows only `info`, whose
//! `mini_version` follows the config. A JSON object that shows the format
//! tag, or `"info"` first with `model_stats` and `mini_version`, is claimed.

use trajhost_codec_sdk::Sniffed;

use crate::document::Document;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let body = trimmed.strip_prefix('{')?.trim_start();
    let tagged = string_after(trimmed, "\"trajectory_format\"").is_some_and(|f| f.starts_with("mini-swe-agent"));
    let version = string_after(trimmed, "\"mini_version\"");
    let info_first = body.starts_with("\"info\"") && trimmed.contains("\"model_stats\"");
    if !(tagged || info_first && version.is_some()) {
        return None;
    }
    // The id needs the messages: known when the head holds the whole file.
    let native_id = Document::parse(trimmed.as_bytes()).ok().map(|doc| doc.native_id());
    Some(Sniffed { native_version: version, native_id })
}

/// The string value of the first `"key": "value"` (no escapes in it).
fn string_after(text: &str, key: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = text[from..].find(key) {
        let end = from + at + key.len();
        if let Some(rest) = text[end..].trim_start().strip_prefix(':') {
            let rest = rest.trim_start().strip_prefix('"')?;
            let value = &rest[..rest.find('"')?];
            return (!value.contains('\\')).then(|| value.to_string());
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::sniff;

    #[test]
    fn claims_a_trajectory_head_only() {
        let head = br#"{
  "info": {
    "model_stats": {"instance_cost": 0.0, "api_calls": 2},
    "config": {},
    "mini_version": "2.4.6","#;
        let s = sniff("runs/a.traj.json", head).unwrap();
        assert_eq!(s.native_version.as_deref(), Some("2.4.6"));
        assert_eq!(s.native_id, None);
        let tail = br#"{"messages": [], "trajectory_format": "mini-swe-agent-1.1"}"#;
        assert!(sniff("b.json", tail).is_some());
        assert!(sniff("c.json", br#"{"info": {"model_stats": {}}, "messages": []}"#).is_none());
        assert!(sniff("d.json", br#"[{"mini_version": "2.4.6"}]"#).is_none());
    }
}
