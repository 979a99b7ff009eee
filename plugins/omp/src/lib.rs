//! trajhost codec for Oh My Pi (`@oh-my-pi/pi-coding-agent`, a fork of Pi):
//! discovers and reads the session files Oh My Pi keeps under
//! `~/.omp/agent/sessions/<dir>/<ts>_<uuid>.jsonl` into canonical records,
//! writes canonical sessions as Oh My Pi session files, and plans their
//! installation into a target home.
//!
//! Oh My Pi keeps Pi's JSONL tree (format version 3). What differs is one
//! [`trajhost_pi_core::Flavor`], [`trajhost_pi_core::OMP`]:
//! - the fixed-width title slot line before the header (read as the title,
//!   written as Oh My Pi 18 writes it: 256 bytes with its newline);
//! - the folder rule (`-<home-relative cwd>`, `-tmp-…`, else Pi's `--<abs>--`);
//! - `model_change` as `model: "provider/modelId"`, `attribution` on user
//!   messages, and the extra entry types of [`KNOWN_RECORD_TYPES`];
//! - `omp --resume <file>` to resume.
//!
//! Everything else (the active branch, compactions, ids, the written chain)
//! is `trajhost-pi-core`, shared with the Pi codec.

pub use trajhost_pi_core::{self as core, Handling, KNOWN_MESSAGE_ROLES, OMP, OMP_ENTRY_TYPES as KNOWN_RECORD_TYPES};

trajhost_pi_core::flavor_codec!(
    /// The Oh My Pi codec.
    Omp,
    OMP
);
