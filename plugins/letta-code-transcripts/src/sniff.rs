//! `sniff`: a loose copy of a `transcript.jsonl`. Its lines are
//! `TranscriptEntry` objects: a known `kind` and a `captured_at`, and none
//! of the envelope fields other JSON-lines formats put on every line
//! (`type`, `role`, `message`).

use serde_json::Value;
use trajhost_codec_sdk::Sniffed;

use crate::entries::KNOWN_KINDS;
use crate::layout::SessionPaths;

pub fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
    let mut known = 0;
    let mut complete = head.split(|b| *b == b'\n').collect::<Vec<_>>();
    if !head.ends_with(b"\n") {
        complete.pop(); // a line cut by the 64 KiB head
    }
    for line in complete {
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(line) else { continue };
        if ["type", "role", "message"].iter().any(|k| map.contains_key(*k)) {
            return None;
        }
        let kind = map.get("kind").and_then(Value::as_str);
        let captured = map.get("captured_at").is_some_and(Value::is_string);
        if !captured || kind.is_none() {
            return None;
        }
        if KNOWN_KINDS.iter().any(|(k, _)| Some(*k) == kind) {
            known += 1;
        }
    }
    if known == 0 {
        return None;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let native_id = match SessionPaths::from_locator(path.trim_start_matches('/')) {
        Ok(p) if name == crate::layout::TRANSCRIPT && !p.dir.is_empty() => Some(p.native_id),
        _ => None,
    };
    Some(Sniffed { native_version: None, native_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_transcripts_only() {
        let lines = b"not-json\n{\"kind\":\"user\",\"text\":\"hi\",\"captured_at\":\"2026-01-01T00:00:00Z\"}\n";
        let s = sniff("/tmp/a/conv-9/transcript.jsonl", lines).unwrap();
        assert_eq!(s.native_id.as_deref(), Some("conv-9"));
        assert!(sniff("x.jsonl", b"{\"type\":\"user\",\"kind\":\"user\",\"captured_at\":\"t\"}\n").is_none());
        assert!(sniff("x.jsonl", b"{\"role\":\"user\",\"content\":\"hi\"}\n").is_none());
        assert!(sniff("x.jsonl", b"not-json\n").is_none());
    }
}
