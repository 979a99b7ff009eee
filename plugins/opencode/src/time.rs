//! RFC 3339 timestamps without a date crate (OpenCode stores epoch ms).

use trajhost_codec_sdk::time::days_from_civil;
pub use trajhost_codec_sdk::time::rfc3339_ms as rfc3339_utc;

/// Milliseconds since the epoch of an RFC 3339 time (`Z` or `±hh:mm`).
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        let t = s.get(from..to)?;
        t.bytes().all(|c| c.is_ascii_digit()).then(|| t.parse().ok())?
    };
    let (year, month, day, hour, minute, second) =
        (num(0, 4)?, num(5, 7)?, num(8, 10)?, num(11, 13)?, num(14, 16)?, num(17, 19)?);
    let mut i = 19;
    let mut millis = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        for (n, c) in s[start..i].bytes().take(3).enumerate() {
            millis += i64::from(c - b'0') * [100, 10, 1][n];
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let v = num(i + 1, i + 3)? * 60 + num(i + 4, i + 6)?;
            if sign == b'+' { v } else { -v }
        }
        _ => return None,
    };
    // Lenient on purpose (no field ranges, any separator at 10): digits only.
    let days = days_from_civil(year, month as u32, day as u32);
    Some((days * 86_400 + hour * 3600 + minute * 60 + second - offset * 60) * 1000 + millis)
}
