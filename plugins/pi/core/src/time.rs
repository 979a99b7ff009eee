//! Pi's timestamps, from the SDK: RFC 3339 with milliseconds in lines
//! (`2026-11-30T04:10:51.921Z`), its file-safe form in file names
//! (`2026-11-30T04-10-51-921Z`), and parsing that requires a zone.

pub use trajhost_codec_sdk::time::{file_safe_rfc3339 as file_safe, parse_rfc3339, rfc3339_ms as rfc3339_utc};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_known_instants() {
        assert_eq!(rfc3339_utc(1_796_011_851_921), "2026-11-30T04:10:51.921Z");
        assert_eq!(file_safe(1_796_011_851_921), "2026-11-30T04-10-51-921Z");
        assert_eq!(parse_rfc3339("2026-11-30T05:10:51+01:00"), Some(1_796_011_851_000));
        assert_eq!(parse_rfc3339("2026-11-30T04:10:51.9214567Z"), Some(1_796_011_851_921));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
