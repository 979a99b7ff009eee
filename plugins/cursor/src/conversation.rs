//! `agent.v1.ConversationStateStructure` (the root blob) and the turn
//! structures it references: `ConversationTurnStructure` →
//! `AgentConversationTurnStructure` (UserMessage + ConversationStep ids) or
//! `ShellConversationTurnStructure` (ShellCommand + ShellOutput ids).

use trajhost_codec_sdk::CodecError;

use crate::decode::Msg;
use crate::wire::Writer;

/// What the root holds that this codec uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Root {
    /// Field 1: JSON message blob ids, in order.
    pub messages: Vec<[u8; 32]>,
    /// Field 8: turn blob ids, in order.
    pub turns: Vec<[u8; 32]>,
    /// Field 9: `file://` workspace URIs.
    pub workspace_uris: Vec<String>,
    /// Field 14: per-turn timings (`timestamp_ms`).
    pub turn_timestamps: Vec<Option<u64>>,
    /// Why the root is archive-only (compaction, subagents), in field order.
    pub not_portable: Vec<&'static str>,
    /// Fields kept opaque (not conversation records), by name, once each.
    pub opaque: Vec<&'static str>,
}

pub const ROOT: &str = "agent.v1.ConversationStateStructure";

pub fn decode_root(m: Msg<'_>, buf: &[u8]) -> Result<Root, CodecError> {
    let mut root = Root::default();
    let cause = |c: &'static str, root: &mut Root| {
        if !root.not_portable.contains(&c) {
            root.not_portable.push(c);
        }
    };
    for (n, w) in m.fields(buf)? {
        match n {
            1 => root.messages.push(m.blob_id(n, &w)?),
            8 => root.turns.push(m.blob_id(n, &w)?),
            9 => root.workspace_uris.push(m.string(n, &w)?),
            10 | 17 => {
                m.varint(n, &w)?;
            }
            14 => {
                let t = m.nested("agent.v1.StepTiming");
                let mut ts = None;
                for (k, v) in t.fields(m.bytes(n, &w)?)? {
                    match k {
                        1 => {
                            t.varint(k, &v)?;
                        }
                        2 => ts = Some(t.varint(k, &v)?),
                        _ => return Err(t.unknown(k, &v)),
                    }
                }
                root.turn_timestamps.push(ts);
            }
            6 => cause("compaction summary (root field 6 summary)", &mut root),
            11 => cause("compaction summary (root field 11 summary_archive)", &mut root),
            13 => cause("compaction summary (root field 13 summary_archives)", &mut root),
            16 => cause("subagents (root field 16 subagent_states)", &mut root),
            // Opaque to this codec (todos, pending calls, token counts, plan,
            // file states, read paths): length-delimited, not conversation.
            2 | 3 | 4 | 5 | 7 | 12 | 15 | 18 => {
                m.bytes(n, &w)?;
                let name = match n {
                    2 => "root field 2 turns_old",
                    3 => "root field 3 todos",
                    4 => "root field 4 pending_tool_calls",
                    5 => "root field 5 token_details",
                    7 => "root field 7 plan",
                    12 => "root field 12 file_states",
                    15 => "root field 15 file_states_v2",
                    _ => "root field 18 read_paths",
                };
                if !root.opaque.contains(&name) {
                    root.opaque.push(name);
                }
            }
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok(root)
}

/// The root with field 9 replaced by `uri` (prepare into another cwd).
pub fn rebase_root(m: Msg<'_>, buf: &[u8], uri: &str) -> Result<Vec<u8>, CodecError> {
    let mut w = Writer::new();
    let mut placed = false;
    for (n, v) in m.fields(buf)? {
        if n == 9 {
            if !placed {
                w.string(9, uri);
                placed = true;
            }
        } else {
            w.field(n, v);
        }
    }
    if !placed {
        w.string(9, uri);
    }
    Ok(w.into_bytes())
}

/// One turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    Agent {
        user_message: Option<[u8; 32]>,
        steps: Vec<[u8; 32]>,
        request_id: Option<String>,
    },
    Shell {
        command: Option<[u8; 32]>,
        output: Option<[u8; 32]>,
    },
    /// No oneof member set.
    Empty,
}

pub fn decode_turn(m: Msg<'_>, buf: &[u8]) -> Result<Turn, CodecError> {
    let mut turn = Turn::Empty;
    for (n, w) in m.fields(buf)? {
        turn = match n {
            1 => {
                let a = m.nested("agent.v1.AgentConversationTurnStructure");
                let (mut user_message, mut steps, mut request_id) = (None, Vec::new(), None);
                for (k, v) in a.fields(m.bytes(n, &w)?)? {
                    match k {
                        1 => user_message = Some(a.blob_id(k, &v)?),
                        2 => steps.push(a.blob_id(k, &v)?),
                        3 => request_id = Some(a.string(k, &v)?).filter(|s| !s.is_empty()),
                        4 => {
                            a.string(k, &v)?;
                        }
                        5 => {
                            a.varint(k, &v)?;
                        }
                        _ => return Err(a.unknown(k, &v)),
                    }
                }
                Turn::Agent { user_message, steps, request_id }
            }
            2 => {
                let s = m.nested("agent.v1.ShellConversationTurnStructure");
                let (mut command, mut output) = (None, None);
                for (k, v) in s.fields(m.bytes(n, &w)?)? {
                    match k {
                        1 => command = Some(s.blob_id(k, &v)?),
                        2 => output = Some(s.blob_id(k, &v)?),
                        _ => return Err(s.unknown(k, &v)),
                    }
                }
                Turn::Shell { command, output }
            }
            _ => return Err(m.unknown(n, &w)),
        };
    }
    Ok(turn)
}

/// `agent.v1.UserMessage` (the fields this codec uses).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserMessage {
    pub text: String,
    pub message_id: Option<String>,
    pub has_selected_context: bool,
    pub rich_text: Option<String>,
}

pub fn decode_user_message(m: Msg<'_>, buf: &[u8]) -> Result<UserMessage, CodecError> {
    let mut u = UserMessage::default();
    for (n, w) in m.fields(buf)? {
        match n {
            1 => u.text = m.string(n, &w)?,
            2 => u.message_id = Some(m.string(n, &w)?).filter(|s| !s.is_empty()),
            3 => {
                m.bytes(n, &w)?;
                u.has_selected_context = true;
            }
            4 | 5 | 7 => {
                m.varint(n, &w)?;
            }
            6 => {
                m.string(n, &w)?;
            }
            8 => u.rich_text = Some(m.string(n, &w)?),
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok(u)
}

/// `ShellCommand{1 command}`.
pub fn decode_shell_command(m: Msg<'_>, buf: &[u8]) -> Result<String, CodecError> {
    let mut command = String::new();
    for (n, w) in m.fields(buf)? {
        match n {
            1 => command = m.string(n, &w)?,
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok(command)
}

/// `ShellOutput{1 stdout, 2 stderr, 3 exit_code}`.
pub fn decode_shell_output(m: Msg<'_>, buf: &[u8]) -> Result<(String, String, i32), CodecError> {
    let (mut out, mut err, mut code) = (String::new(), String::new(), 0i32);
    for (n, w) in m.fields(buf)? {
        match n {
            1 => out = m.string(n, &w)?,
            2 => err = m.string(n, &w)?,
            3 => code = m.varint(n, &w)? as i64 as i32,
            _ => return Err(m.unknown(n, &w)),
        }
    }
    Ok((out, err, code))
}

/// `UserMessage{1 text, 2 message_id, 4 mode=1}`.
pub fn encode_user_message(text: &str, message_id: &str) -> Vec<u8> {
    Writer::new().string(1, text).string(2, message_id).varint(4, 1).finish()
}

/// `ConversationTurnStructure{1 AgentConversationTurnStructure{1 user, 2 steps…}}`.
pub fn encode_agent_turn(user: &[u8; 32], steps: &[[u8; 32]]) -> Vec<u8> {
    let mut a = Writer::new();
    a.bytes(1, user);
    for s in steps {
        a.bytes(2, s);
    }
    Writer::new().bytes(1, &a.into_bytes()).finish()
}

/// The root: messages (1), turns (8), workspace URI (9), turn timings (14,
/// `StepTiming{2 timestamp_ms}`, one per turn or none).
pub fn encode_root(messages: &[[u8; 32]], turns: &[[u8; 32]], uri: &str, times: &[i64]) -> Vec<u8> {
    let mut w = Writer::new();
    for m in messages {
        w.bytes(1, m);
    }
    for t in turns {
        w.bytes(8, t);
    }
    w.string(9, uri);
    for t in times {
        let timing = Writer::new().varint(2, (*t).max(0) as u64).finish();
        w.bytes(14, &timing);
    }
    w.into_bytes()
}

/// `file://` + the percent-encoded absolute path.
pub fn file_uri(path: &str) -> String {
    let mut out = String::from("file://");
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file://` URI.
pub fn uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // file://host/path: only the local (empty) host is a path here.
    let rest = if rest.starts_with('/') { rest } else { return None };
    trajhost_codec_sdk::text::percent_decode(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Ctx;

    fn m() -> Msg<'static> {
        Msg::new(Ctx { blob: "b", file: "f" }, ROOT)
    }

    #[test]
    fn root_round_trip() {
        let ids = [[1u8; 32], [2u8; 32]];
        let bytes = encode_root(&ids[..1], &ids[1..], &file_uri("/home/u/my proj"), &[5]);
        let root = decode_root(m(), &bytes).unwrap();
        assert_eq!(root.messages, vec![[1u8; 32]]);
        assert_eq!(root.turns, vec![[2u8; 32]]);
        assert_eq!(root.turn_timestamps, vec![Some(5)]);
        assert_eq!(root.workspace_uris, vec!["file:///home/u/my%20proj".to_string()]);
        assert_eq!(uri_path(&root.workspace_uris[0]).as_deref(), Some("/home/u/my proj"));
        let moved = rebase_root(m(), &bytes, "file:///x").unwrap();
        assert_eq!(decode_root(m(), &moved).unwrap().workspace_uris, vec!["file:///x".to_string()]);
    }

    #[test]
    fn archives_are_not_portable_and_unknowns_fail() {
        let b = Writer::new().bytes(13, &[3u8; 32]).finish();
        assert_eq!(
            decode_root(m(), &b).unwrap().not_portable,
            vec!["compaction summary (root field 13 summary_archives)"]
        );
        assert!(decode_root(m(), &Writer::new().varint(40, 1).finish()).is_err());
        let turn = [0x0a, 0x00];
        assert_eq!(
            decode_turn(m(), &turn).unwrap(),
            Turn::Agent { user_message: None, steps: vec![], request_id: None }
        );
    }
}
