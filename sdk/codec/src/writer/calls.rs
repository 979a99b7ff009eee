//! Tool calls written and not answered yet.

use std::collections::BTreeSet;

/// Why a tool result has no open call to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnmatchedResult {
    /// Its call was never written (left out, or in no record).
    Orphan,
    /// Its call was answered already.
    Duplicate,
}

impl UnmatchedResult {
    /// The `not-carried` detail writers report it with.
    pub fn detail(self) -> &'static str {
        match self {
            UnmatchedResult::Orphan => "orphan-tool-result",
            UnmatchedResult::Duplicate => "duplicate-tool-result",
        }
    }
}

/// The tool calls written and not answered yet, in order, with what the
/// writer needs to answer them (a tool name, say).
///
/// Model APIs refuse a conversation with a call that has no result, or a
/// result that answers no call: a writer answers each call once, drops the
/// results it cannot place (reporting which kind), and writes an error
/// result for the calls still open when the conversation moves on.
#[derive(Debug, Clone)]
pub struct OpenCalls<T = ()> {
    open: Vec<(String, T)>,
    answered: BTreeSet<String>,
}

impl<T> Default for OpenCalls<T> {
    fn default() -> Self {
        OpenCalls { open: Vec::new(), answered: BTreeSet::new() }
    }
}

impl<T> OpenCalls<T> {
    /// None open.
    pub fn new() -> OpenCalls<T> {
        OpenCalls::default()
    }

    /// A call written.
    pub fn open(&mut self, call_id: impl Into<String>, info: T) {
        self.open.push((call_id.into(), info));
    }

    /// A call written again: it now waits after the others, once.
    pub fn reopen(&mut self, call_id: impl Into<String>, info: T) {
        let call_id = call_id.into();
        self.open.retain(|(id, _)| *id != call_id);
        self.open.push((call_id, info));
    }

    /// Whether `call_id` waits for its result.
    pub fn is_open(&self, call_id: &str) -> bool {
        self.open.iter().any(|(id, _)| id == call_id)
    }

    /// Whether `call_id` was answered.
    pub fn is_answered(&self, call_id: &str) -> bool {
        self.answered.contains(call_id)
    }

    /// The call a result answers (the first open one of that id), now
    /// answered; or why there is none.
    pub fn answer(&mut self, call_id: &str) -> Result<T, UnmatchedResult> {
        match self.open.iter().position(|(id, _)| id == call_id) {
            Some(at) => {
                let (id, info) = self.open.remove(at);
                self.answered.insert(id);
                Ok(info)
            }
            None if self.answered.contains(call_id) => Err(UnmatchedResult::Duplicate),
            None => Err(UnmatchedResult::Orphan),
        }
    }

    /// Notes `call_id` as answered (for writers that answer by other means).
    pub fn mark_answered(&mut self, call_id: &str) {
        self.open.retain(|(id, _)| id != call_id);
        self.answered.insert(call_id.to_string());
    }

    /// The calls still open, in order, now answered: the writer gives each
    /// a synthesized result.
    pub fn close_all(&mut self) -> Vec<(String, T)> {
        let open = std::mem::take(&mut self.open);
        self.answered.extend(open.iter().map(|(id, _)| id.clone()));
        open
    }

    /// Whether no call waits.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_each_call_once() {
        let mut calls = OpenCalls::new();
        calls.open("a", "read");
        calls.open("b", "write");
        assert_eq!(calls.answer("a"), Ok("read"));
        assert_eq!(calls.answer("a"), Err(UnmatchedResult::Duplicate));
        assert_eq!(calls.answer("z").unwrap_err().detail(), "orphan-tool-result");
        calls.reopen("c", "x");
        calls.reopen("c", "y");
        assert_eq!(calls.close_all(), vec![("b".to_string(), "write"), ("c".to_string(), "y")]);
        assert!(calls.is_empty() && calls.is_answered("c"));
    }
}
