//! What the Gemini CLI codecs share: `gemini-cli` reads the JSONL
//! recordings, `gemini-cli-json` the older whole-file JSON conversations.
//! Both hold the same `MessageRecord`s (`chatRecordingTypes.ts`), so the
//! shapes inside a message and the way they become canonical records live
//! here.
//!
//! Module map: [`install`] (what both `prepare`s check: the target choice,
//! the artifacts, the resume command), [`project`] (a project directory's
//! working directory), [`message`] (`ToolCallRecord`, thoughts, `TokensSummary`,
//! and their mapping).

pub mod install;
pub mod message;
pub mod project;
pub mod written;
