//! RFC 3339 formatting of file times, through `trajhost_codec_sdk::time`.

pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;

#[cfg(test)]
mod tests {
    use super::rfc3339_utc;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(rfc3339_utc(-1), "1969-12-31T23:59:59.999Z");
    }
}
