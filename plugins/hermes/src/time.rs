//! RFC 3339 formatting of epoch times, through `trajhost_codec_sdk::time`.

pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;

/// RFC 3339 of a Hermes `REAL` epoch-seconds time; `None` for values that
/// are not a plausible time.
pub use trajhost_codec_sdk::time::rfc3339_epoch_secs as from_epoch_secs;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(from_epoch_secs(1_796_012_343.709_91).as_deref(), Some("2026-11-30T04:19:03.710Z"));
        assert_eq!(from_epoch_secs(f64::NAN), None);
        assert_eq!(from_epoch_secs(-5.0), None);
    }
}
