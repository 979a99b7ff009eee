//! Session-level facts computed while canonical records stream past: the
//! snapshot id (sha256 of the canonical records, so two reads of the same
//! bytes give the same id and any change gives another) and the ending
//! status.

use std::collections::BTreeSet;

use sha2::{Digest as _, Sha256};

use crate::canonical::{Body, Record};

/// How a session ended, judged from its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The last turn finished: the model answered and no call is pending.
    Completed,
    /// The last turn ended in an error the harness recorded.
    Error,
    /// The user or harness interrupted the last turn.
    Aborted,
    /// The records stop mid-turn: a prompt or tool result awaits an answer,
    /// or a tool call awaits its result.
    Open,
}

/// Accumulates one session's records.
#[derive(Default)]
pub struct SessionDigest {
    hasher: Sha256,
    records: u64,
    pending_calls: BTreeSet<String>,
    /// The last conversational kind of the main transcript.
    last: Option<&'static str>,
    /// An error or abort observed after the last assistant answer.
    trailing: Option<Ending>,
}

impl SessionDigest {
    pub fn new() -> SessionDigest {
        SessionDigest::default()
    }

    /// Adds one record (`line` is its canonical JSON as the codec sent it).
    pub fn push(&mut self, line: &str, record: &Record) {
        self.hasher.update(line.as_bytes());
        self.hasher.update(b"\n");
        self.records += 1;
        if record.agent.is_some() {
            return;
        }
        match &record.body {
            Body::User { .. } => {
                self.last = Some("user");
                self.trailing = None;
            }
            Body::Assistant(_) => {
                self.last = Some("assistant");
                self.trailing = None;
            }
            Body::ToolCall { call_id, .. } => {
                self.pending_calls.insert(call_id.clone());
                self.last = Some("tool_call");
            }
            Body::ToolResult { call_id, .. } => {
                self.pending_calls.remove(call_id);
                self.last = Some("tool_result");
            }
            Body::Observation { subtype, .. } => {
                let subtype = subtype.to_ascii_lowercase();
                if subtype.contains("abort") || subtype.contains("interrupt") || subtype.contains("cancel") {
                    self.trailing = Some(Ending::Aborted);
                } else if subtype.contains("error") {
                    self.trailing = Some(Ending::Error);
                }
            }
            _ => {}
        }
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    /// `sha256:<hex>` of the canonical records.
    pub fn snapshot_id(&self) -> String {
        format!("sha256:{}", hex::encode(self.hasher.clone().finalize()))
    }

    pub fn ending(&self) -> Ending {
        if let Some(trailing) = self.trailing {
            return trailing;
        }
        match self.last {
            Some("assistant") if self.pending_calls.is_empty() => Ending::Completed,
            None => Ending::Open,
            _ => Ending::Open,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::Assistant;

    fn push(d: &mut SessionDigest, body: Body) {
        let record = Record { id: "x".into(), body, parent: None, ts: None, agent: None, src: None };
        let line = serde_json::to_string(&record).unwrap();
        d.push(&line, &record);
    }

    fn user() -> Body {
        Body::User { text: "q".into(), attachments: vec![] }
    }

    fn answer() -> Body {
        Body::Assistant(Assistant { text: "a".into(), ..Default::default() })
    }

    #[test]
    fn endings() {
        let mut d = SessionDigest::new();
        push(&mut d, user());
        assert_eq!(d.ending(), Ending::Open);
        push(&mut d, Body::ToolCall { call_id: "c".into(), name: "sh".into(), arguments: serde_json::json!({}) });
        push(&mut d, answer());
        assert_eq!(d.ending(), Ending::Open, "a call without its result");
        push(&mut d, Body::ToolResult { call_id: "c".into(), content: "r".into(), ok: None });
        push(&mut d, answer());
        assert_eq!(d.ending(), Ending::Completed);
        push(&mut d, Body::Observation { subtype: "turn_aborted".into(), text: None });
        assert_eq!(d.ending(), Ending::Aborted);
        push(&mut d, user());
        push(&mut d, Body::Observation { subtype: "system/api_error".into(), text: None });
        assert_eq!(d.ending(), Ending::Error);
    }

    #[test]
    fn snapshot_ids_follow_the_records() {
        let (mut a, mut b, mut c) = (SessionDigest::new(), SessionDigest::new(), SessionDigest::new());
        push(&mut a, user());
        push(&mut b, user());
        push(&mut c, answer());
        assert_eq!(a.snapshot_id(), b.snapshot_id());
        assert_ne!(a.snapshot_id(), c.snapshot_id());
        assert!(a.snapshot_id().starts_with("sha256:"));
    }
}
