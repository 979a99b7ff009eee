//! RFC 3339 formatting of epoch times, through `trajhost_codec_sdk::time`.

pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;

/// RFC 3339 of an epoch-milliseconds time; `None` for values that are not
/// a plausible time.
pub use trajhost_codec_sdk::time::rfc3339_epoch_ms as from_epoch_ms;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(from_epoch_ms(1_796_012_773_244).as_deref(), Some("2026-11-30T04:26:13.244Z"));
        assert_eq!(from_epoch_ms(-5), None);
    }
}
