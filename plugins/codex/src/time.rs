//! RFC 3339 times without a date crate: formatting of epoch milliseconds,
//! parsing of the timestamps Codex and other harnesses record, and the
//! `YYYY-MM-DDThh-mm-ss` stamp of rollout file names.

pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;
use trajhost_codec_sdk::time::{Civil, civil_from_days, parse_iso8601};

/// `2026-11-30T04-05-54`: the stamp in a rollout file name.
pub fn file_stamp(ms: i64) -> String {
    let Civil { year, month, day, hour, minute, second, .. } = Civil::from_ms(ms);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}-{minute:02}-{second:02}")
}

/// `(YYYY, MM, DD)` of an instant, for the `sessions/YYYY/MM/DD` folders.
pub fn ymd(ms: i64) -> (i64, u32, u32) {
    civil_from_days(ms.div_euclid(1000).div_euclid(86_400))
}

/// Milliseconds since the Unix epoch of an RFC 3339 / ISO-8601 timestamp
/// (`2026-11-30T04:10:39.537Z`, `…+02:00`, a space for `T`, no zone = UTC;
/// surrounding whitespace ignored).
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    parse_iso8601(text.trim()).map(|(ms, _)| ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_011_839_446), "2026-11-30T04:10:39.446Z");
        assert_eq!(file_stamp(1_796_011_839_446), "2026-11-30T04-10-39");
        assert_eq!(parse_rfc3339("2026-11-30T04:10:39.446Z"), Some(1_796_011_839_446));
        assert_eq!(parse_rfc3339("2026-11-30T04:10:39Z"), Some(1_796_011_839_000));
        assert_eq!(parse_rfc3339("2026-11-30T06:10:39.4467891+02:00"), Some(1_796_011_839_446));
        assert_eq!(parse_rfc3339("2000-02-29 00:00:00"), Some(951_782_400_000));
        assert_eq!(parse_rfc3339("1969-12-31T23:59:59.999Z"), Some(-1));
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(parse_rfc3339("2026-13-01T00:00:00Z"), None);
        for ms in [0, 1, -1, 951_782_400_000, 1_796_011_839_446, 4_102_444_800_123] {
            assert_eq!(parse_rfc3339(&rfc3339_utc(ms)), Some(ms));
        }
    }
}
