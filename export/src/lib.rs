//! Exports of canonical session records (`trajhost_canonical::Record`) for
//! other tools:
//!
//! - [`otlp`]: OpenTelemetry spans following the GenAI semantic conventions
//!   (an `invoke_agent` span per session, a `chat` span per model call, an
//!   `execute_tool` span per tool call), encoded as OTLP protobuf or OTLP
//!   JSON, and [`send`] to POST them to an OTLP/HTTP endpoint with retries;
//! - [`atif`]: Harbor's Agent Trajectory Interchange Format (ATIF-v1.7), with
//!   [`atif::validate`], a validator written from the published rules.
//!
//! Both consume records one at a time: memory follows one session's spans
//! (already encoded) or one ATIF step, not a copy of the session.
//! docs/export.md maps every canonical field.

pub mod atif;
mod ids;
pub mod otlp;
pub mod proto;
pub mod send;
pub mod time;
mod validate;

/// What an export can fail on. Encoding into memory cannot fail; writing
/// can, and is named by the caller's writer.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
    #[error("the session has no meta record first (record {0:?})")]
    NoMeta(String),
}
