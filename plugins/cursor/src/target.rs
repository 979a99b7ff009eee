//! The user's target choices (`--model`, `--provider`, `--allow-untested`):
//! the SDK's `target` API (API 0.2.1), re-exported for the writer and prepare.

pub use trajhost_codec_sdk::target::{TargetChoice, choice, untested};
#[cfg(not(target_arch = "wasm32"))]
pub use trajhost_codec_sdk::target::{reported_untested, set_for_tests};
