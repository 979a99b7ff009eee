//! trajhost codec for Pi (`@mariozechner/pi-coding-agent`): discovers and
//! reads the session files Pi keeps under
//! `~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl` into canonical
//! records, writes canonical sessions as Pi session files, and plans their
//! installation into a target home.
//!
//! The format lives in `trajhost-pi-core` (`plugins/pi/core`), shared with
//! the Oh My Pi codec: this crate picks [`trajhost_pi_core::PI`] and exports
//! the component. See that crate for the reading rules (the active branch of
//! the entry tree, compactions, record ids) and the written layout.
//!
//! Natively (tests, benchmarks) the codec runs without the sandbox:
//! `trajhost_codec_sdk::read_all::<Pi>(Dir::native(home), locator, options, sink)`.

pub use trajhost_pi_core::{self as core, Handling, KNOWN_MESSAGE_ROLES, PI, PI_ENTRY_TYPES as KNOWN_RECORD_TYPES};

trajhost_pi_core::flavor_codec!(
    /// The Pi codec.
    Pi,
    PI
);
