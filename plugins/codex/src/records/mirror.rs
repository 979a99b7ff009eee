//! Double logging of messages: Codex writes what the person typed both as a
//! `response_item` `message` (role `user`, what the model saw) and as an
//! `event_msg` `user_message` (what the UI showed, and what `codex resume`
//! replays), and the model's answer both as a `response_item` `message`
//! (role `assistant`) and as an `event_msg` `agent_message`. Builds differ:
//! some write only the events (subagent rollouts of 0.15x), some only the
//! response items (0.17x), most both, in either order.
//!
//! So each message is taken from whichever copy comes first, and the other
//! copy, when it comes, is recognized by its text and counted as a mirror
//! instead of becoming a second record. Memory is bounded: only the last
//! [`KEPT`] unmatched texts (as hashes) of each kind are remembered.

use std::collections::VecDeque;

use trajhost_codec_sdk::hash::Fnv;

/// Unmatched messages remembered per kind.
const KEPT: usize = 64;

/// Which copy of a message a text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Source {
    /// A `response_item` `message`.
    Item,
    /// An `event_msg` (`user_message` / `agent_message`).
    Event,
}

/// The kind of message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Said {
    User,
    Assistant,
}

/// Recent messages whose other copy has not come yet.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Mirrors {
    user: VecDeque<(u64, Source)>,
    assistant: VecDeque<(u64, Source)>,
}

impl Mirrors {
    /// Whether `text` (of `copy`) repeats a message already taken from the
    /// other copy; if it does, that message is matched and forgotten, if
    /// not, this one is remembered for its own mirror to come.
    pub fn is_mirror(&mut self, said: Said, copy: Source, text: &str) -> bool {
        let key = key(text);
        let queue = match said {
            Said::User => &mut self.user,
            Said::Assistant => &mut self.assistant,
        };
        if let Some(at) = queue.iter().position(|(k, c)| *k == key && *c != copy) {
            queue.remove(at);
            return true;
        }
        queue.push_back((key, copy));
        if queue.len() > KEPT {
            queue.pop_front();
        }
        false
    }
}

/// The text with all whitespace removed, hashed: the two copies differ in
/// how parts are joined and in trailing newlines.
fn key(text: &str) -> u64 {
    let mut hash = Fnv::default();
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        let mut buf = [0u8; 4];
        hash.write(c.encode_utf8(&mut buf).as_bytes());
    }
    hash.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_copy_first_the_other_is_the_mirror() {
        let mut m = Mirrors::default();
        assert!(!m.is_mirror(Said::User, Source::Event, "List the files"));
        assert!(m.is_mirror(Said::User, Source::Item, "List the files\n"));
        assert!(!m.is_mirror(Said::User, Source::Item, "continue"));
        assert!(m.is_mirror(Said::User, Source::Event, "continue"));
        // The same prompt typed again is a new message, not a mirror.
        assert!(!m.is_mirror(Said::User, Source::Item, "continue"));
        assert!(!m.is_mirror(Said::User, Source::Item, "continue"));
        assert!(m.is_mirror(Said::User, Source::Event, "continue"));
        assert!(m.is_mirror(Said::User, Source::Event, "continue"));
        assert!(!m.is_mirror(Said::User, Source::Event, "continue"));
        // Kinds do not mix.
        assert!(!m.is_mirror(Said::Assistant, Source::Item, "Done."));
        assert!(!m.is_mirror(Said::User, Source::Event, "Done."));
        assert!(m.is_mirror(Said::Assistant, Source::Event, "Done."));
    }
}
