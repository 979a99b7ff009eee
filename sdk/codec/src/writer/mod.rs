//! The writer kit: the plumbing every `write` and `prepare` repeats, so a
//! codec's writer is its mapping (canonical record → native line) and
//! nothing else.
//!
//! A writer receives canonical JSON lines batch by batch (the host pushes
//! them into a [`SessionWriter`](crate::SessionWriter)) and must hand back
//! the same bytes for the same document every time: the sandbox has no
//! clock and no randomness, and an export is compared and re-installed by
//! its digest. So the kit gives:
//!
//! - [`CanonicalInput`]: the pushed text split into records, numbered across
//!   batches, with the `meta` line's digest kept (the seed of derived ids)
//!   and subagent records reported instead of written ([`CanonicalDocument`]
//!   for the writers that need the whole document);
//! - [`ids`]: deterministic ids — UUIDs in the version-4 and version-7
//!   layouts and hex ids, all SHA-256 of what the document says;
//! - [`crate::time`]: the timestamp forms harnesses store (RFC 3339 with
//!   milliseconds, epoch milliseconds or seconds, file-name stamps);
//! - [`JsonlAssembler`]: native lines made one by one and handed back as
//!   artifact pieces at the end of each push (memory follows a batch, not a
//!   session), and [`json_document`] for formats that are one JSON value;
//! - [`OpenCalls`]: tool calls written and not answered yet, so each is
//!   answered once and results that answer nothing are reported;
//! - [`HeldRecords`]: records held until what the first native line needs
//!   is known (the session start, the first model);
//! - [`install`]: the pieces of a `prepare` plan — artifact checks, the
//!   "already there?" probe, index entries, database rows and the resume
//!   command.
//!
//! ```ignore
//! use trajhost_codec_sdk::writer::{CanonicalInput, JsonlAssembler, ids};
//!
//! struct ToyWriter { input: CanonicalInput, out: JsonlAssembler, diags: Diagnostics }
//!
//! impl SessionWriter for ToyWriter {
//!     fn push(&mut self, records: &str) -> Result<Vec<Artifact>, CodecError> {
//!         for line in records.lines() {
//!             let Some(record) = self.input.record(line, &mut self.diags)? else { continue };
//!             if self.out.path().is_empty() {
//!                 // The meta line comes first: the id derives from it.
//!                 let id = ids::uuid_v4_layout(&self.input.meta_digest().unwrap_or_default());
//!                 self.out.set_path(format!("sessions/{id}.jsonl"));
//!             }
//!             self.out.push(&serde_json::json!({ "kind": record.body.kind(), "id": record.id }));
//!         }
//!         Ok(self.out.take_chunks())
//!     }
//!     fn finish(&mut self) -> Result<Written, CodecError> { /* … */ }
//! }
//! ```

mod assembler;
mod calls;
mod held;
pub mod ids;
mod input;
pub mod install;

pub use assembler::{JsonlAssembler, join_lines, json_document, json_line, python_json};
pub use calls::{OpenCalls, UnmatchedResult};
pub use held::{HeldRecords, assistant_model, record_ms};
pub use input::{CanonicalDocument, CanonicalInput, main_content};

/// The working directory a written session records: the user's `--cwd`,
/// else the source's. `needs` says why the target cannot do without one.
pub fn required_cwd(
    options: &crate::WriteOptions,
    meta: &crate::canonical::Meta,
    needs: &str,
) -> Result<String, crate::CodecError> {
    options
        .cwd
        .clone()
        .or(meta.cwd.clone())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| crate::CodecError::Other(format!("{needs}, and this session names none: give one with --cwd")))
}
