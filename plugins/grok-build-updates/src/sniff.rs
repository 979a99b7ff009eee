//! `sniff`: is a loose JSONL file a Grok Build ACP journal?
//!
//! Yes when its first line is a `session/update` (or Grok Build's
//! `_x.ai/session/update`) notification with `params.sessionId` and a
//! `params.update.sessionUpdate` kind. The id is the session's; the journal
//! carries no format version.

use serde_json::Value;
use trajhost_codec_sdk::Sniffed;
use trajhost_codec_sdk::json::str_of;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let end = head.iter().position(|b| *b == b'\n')?;
    let first: Value = serde_json::from_slice(&head[..end]).ok()?;
    if !matches!(str_of(&first, "method"), Some("session/update" | "_x.ai/session/update")) {
        return None;
    }
    let params = first.get("params")?;
    str_of(params.get("update")?, "sessionUpdate")?;
    let id = str_of(params, "sessionId")?;
    Some(Sniffed { native_version: None, native_id: Some(id.to_string()) })
}

#[cfg(test)]
mod tests {
    #[test]
    fn claims_acp_journals_only() {
        let acp = b"{\"method\":\"session/update\",\"params\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":\"plan\"}}}\n";
        assert_eq!(super::sniff("u.jsonl", acp).unwrap().native_id.as_deref(), Some("s1"));
        assert!(super::sniff("u.jsonl", b"{\"type\":\"user\",\"content\":\"hi\"}\n").is_none());
        assert!(super::sniff("u.jsonl", b"{\"method\":\"session/prompt\",\"params\":{}}\n").is_none());
    }
}
