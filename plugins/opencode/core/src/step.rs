//! The model steps of one assistant message, from the order of its parts.
//!
//! An OpenCode assistant message spans every model step of one turn: its
//! parts run `step-start, reasoning?, text?, tool…, step-finish` once per
//! step (observed in OpenCode 0.5.29: `step-start, tool, step-finish,
//! step-start, text, step-finish`), and the order of the parts is the order
//! of events. A tool part holds its call and its result, so text in a later
//! step was written after that result. Reading a message as one
//! `reasoning* assistant tool_call* tool_result*` run would put that later
//! text before the call: each step is a run of its own.
//!
//! Steps begin at each `step-start` part. A message without any (the oldest
//! trees) begins a step at each `text` or `reasoning` part that follows a
//! `tool` part: with no markers, text after a call is text after its result.

use std::ops::Range;

/// The steps of a message whose parts have these `type`s, as index ranges
/// covering every part in order (one range for a message of one step; none
/// for a message without parts).
pub fn steps<'a>(types: impl IntoIterator<Item = &'a str>) -> Vec<Range<usize>> {
    let types: Vec<&str> = types.into_iter().collect();
    let marked = types.contains(&"step-start");
    let mut out = Vec::new();
    let mut start = 0;
    let mut tool_seen = false;
    for (i, kind) in types.iter().enumerate() {
        let begins = if marked { *kind == "step-start" } else { tool_seen && matches!(*kind, "text" | "reasoning") };
        if begins && i > start {
            out.push(start..i);
            start = i;
            tool_seen = false;
        }
        tool_seen |= *kind == "tool";
    }
    if start < types.len() {
        out.push(start..types.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_the_markers_else_text_after_a_tool() {
        let multi = ["step-start", "tool", "step-finish", "step-start", "text", "step-finish"];
        assert_eq!(steps(multi), vec![0..3, 3..6]);
        assert_eq!(steps(["step-start", "reasoning", "text", "tool", "tool", "step-finish"]), vec![0..6]);
        // Text after a tool inside one marked step stays in it.
        assert_eq!(steps(["step-start", "tool", "text", "step-finish"]), vec![0..4]);
        // Parts before the first marker are a step of their own.
        assert_eq!(steps(["text", "step-start", "text"]), vec![0..1, 1..3]);
        // No markers: text or reasoning after a tool begins a step.
        assert_eq!(steps(["tool", "text"]), vec![0..1, 1..2]);
        assert_eq!(steps(["text", "tool", "tool", "reasoning", "text", "tool", "text"]), vec![0..3, 3..6, 6..7]);
        assert_eq!(steps(["text", "patch"]), vec![0..2]);
        assert!(steps([]).is_empty());
    }
}
