//! Codex's times, from the SDK: RFC 3339 with milliseconds in lines, the
//! `YYYY-MM-DDThh-mm-ss` stamp and `YYYY/MM/DD` folders of rollout paths,
//! and lenient parsing of the timestamps Codex and other harnesses record
//! (a zone optional, read as UTC when absent).

pub use trajhost_codec_sdk::time::{file_stamp, parse_timestamp as parse_rfc3339, rfc3339_ms as rfc3339_utc, ymd};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_known_instants() {
        assert_eq!(rfc3339_utc(1_796_011_839_446), "2026-11-30T04:10:39.446Z");
        assert_eq!(file_stamp(1_796_011_839_446), "2026-11-30T04-10-39");
        assert_eq!(parse_rfc3339("2026-11-30T06:10:39.4467891+02:00"), Some(1_796_011_839_446));
        assert_eq!(parse_rfc3339("2000-02-29 00:00:00"), Some(951_782_400_000));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
