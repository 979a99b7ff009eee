//! `sniff`: is a loose JSONL file a Kimi Code journal?
//!
//! Yes when it opens with a `metadata` line carrying `protocol_version` and
//! the lines after it are ops tagged by a dotted `type` (`config.update`,
//! `turn.prompt`, `context.append_message`). Kimi CLI's `wire.jsonl` opens
//! with the same `metadata` line but wraps each record in
//! `{timestamp, message}`, so the second test tells them apart.

use serde_json::Value;
use trajhost_codec_sdk::Sniffed;
use trajhost_codec_sdk::json::str_of;

use crate::discover::Head;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let first = Head::parse(head)?;
    first.protocol_version.as_ref()?;
    let mut ops = 0;
    // Complete lines only: the head may end inside one.
    let complete = match head.iter().rposition(|b| *b == b'\n') {
        Some(i) => &head[..=i],
        None => &[][..],
    };
    for line in complete.split(|b| *b == b'\n').skip(1).filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).ok()?;
        if v.get("message").is_some() && v.get("timestamp").is_some() {
            return None;
        }
        if !str_of(&v, "type").is_some_and(|t| t.contains('.')) {
            return None;
        }
        ops += 1;
    }
    (ops > 0).then_some(Sniffed { native_version: first.protocol_version, native_id: None })
}

#[cfg(test)]
mod tests {
    use super::sniff;

    #[test]
    fn tells_kimi_code_from_kimi_cli() {
        let code = b"{\"type\":\"metadata\",\"protocol_version\":\"1.4\",\"created_at\":1}\n{\"type\":\"config.update\",\"time\":1}\n";
        assert_eq!(sniff("x.jsonl", code).unwrap().native_version.as_deref(), Some("1.4"));
        let cli = b"{\"type\":\"metadata\",\"protocol_version\":\"1.10\"}\n{\"timestamp\":1.5,\"message\":{\"type\":\"TurnBegin\",\"payload\":{}}}\n";
        assert!(sniff("wire.jsonl", cli).is_none());
        assert!(sniff("x", b"{\"type\":\"metadata\",\"protocol_version\":\"1.4\"}\n").is_none());
    }
}
