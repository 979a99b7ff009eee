//! RFC 3339 formatting of epoch times, through `trajhost_codec_sdk::time`.

pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;

/// RFC 3339 of an epoch-milliseconds time; `None` for values that are not
/// a plausible time.
pub use trajhost_codec_sdk::time::rfc3339_epoch_ms as from_epoch_ms;
