//! RFC 3339 formatting of epoch times, through `trajhost_codec_sdk::time`.

pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;

/// The time encoded in a UUIDv6 (LangGraph's `checkpoint_id`), in ms since
/// the Unix epoch; `None` for other UUID versions.
pub fn uuid6_ms(id: &str) -> Option<i64> {
    let hex: String = id.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.is_char_boundary(13) || &hex[12..13] != "6" {
        return None;
    }
    let high = u64::from_str_radix(&hex[0..8], 16).ok()?;
    let mid = u64::from_str_radix(&hex[8..12], 16).ok()?;
    let low = u64::from_str_radix(&hex[13..16], 16).ok()?;
    let ticks = (high << 28) | (mid << 12) | low; // 100 ns since 1582-10-15
    let unix_ticks = ticks.checked_sub(0x01B2_1DD2_1381_4000)?;
    Some((unix_ticks / 10_000) as i64)
}

#[cfg(test)]
mod uuid_tests {
    use super::*;

    #[test]
    fn uuid6_times() {
        assert_eq!(
            uuid6_ms("1f1ec77e-230d-6b88-bfff-59098e29776e").map(rfc3339_utc).as_deref(),
            Some("2026-11-30T04:38:26.531Z")
        );
        assert_eq!(uuid6_ms("01a22abf-01fd-75b4-80a2-4af2d53c094d"), None);
    }
}
