//! RFC 3339 formatting and parsing, from the SDK (a timestamp must carry
//! its zone here).

pub use trajhost_codec_sdk::time::{parse_rfc3339, rfc3339_ms as rfc3339_utc};

#[cfg(test)]
mod tests {
    use super::{parse_rfc3339, rfc3339_utc};

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(rfc3339_utc(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn parses_what_it_formats_and_offsets() {
        for ms in [0, 951_782_400_000, 1_796_011_554_384, -1, 253_402_300_799_999] {
            assert_eq!(parse_rfc3339(&rfc3339_utc(ms)), Some(ms), "{ms}");
        }
        assert_eq!(parse_rfc3339("2026-11-30T06:05:54.384123+02:00"), Some(1_796_011_554_384));
        assert_eq!(parse_rfc3339("2026-11-30 04:05:54Z"), Some(1_796_011_554_000));
        for bad in [
            "",
            "2026-11-30",
            "2026-13-01T00:00:00Z",
            "2026-11-30T04:05:54",
            "2026-11-30T04:05:54.Z",
            "x026-11-30T04:05:54Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
