//! RFC 3339 times without a date crate: formatting of epoch milliseconds,
//! parsing of the timestamps Codex and other harnesses record, and the
//! `YYYY-MM-DDThh-mm-ss` stamp of rollout file names.

/// `2026-11-30T04:05:54.384Z` for milliseconds since the Unix epoch.
pub fn rfc3339_utc(ms: i64) -> String {
    let (date, (h, m, s), millis) = split(ms);
    format!("{}T{h:02}:{m:02}:{s:02}.{millis:03}Z", date)
}

/// `2026-11-30T04-05-54`: the stamp in a rollout file name.
pub fn file_stamp(ms: i64) -> String {
    let (date, (h, m, s), _) = split(ms);
    format!("{date}T{h:02}-{m:02}-{s:02}")
}

/// `(YYYY, MM, DD)` of an instant, for the `sessions/YYYY/MM/DD` folders.
pub fn ymd(ms: i64) -> (i64, u32, u32) {
    civil_from_days(ms.div_euclid(1000).div_euclid(86_400))
}

fn split(ms: i64) -> (String, (i64, i64, i64), i64) {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    (format!("{year:04}-{month:02}-{day:02}"), (rem / 3600, rem % 3600 / 60, rem % 60), millis)
}

/// Milliseconds since the Unix epoch of an RFC 3339 / ISO-8601 timestamp
/// (`2026-11-30T04:10:39.537Z`, `…+02:00`, a space for `T`, no zone = UTC).
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut pos = 19;
    let mut millis = 0i64;
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        let start = pos;
        while b.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        if pos == start {
            return None;
        }
        let digits = &b[start..pos.min(start + 3)];
        let mut value: i64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        for _ in digits.len()..3 {
            value *= 10;
        }
        millis = value;
    }
    let offset_secs = match b.get(pos) {
        None => 0,
        Some(b'Z' | b'z') if pos + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if b.len() == pos + 6 && b[pos + 3] == b':' => {
            let minutes = num(pos + 1..pos + 3)? * 60 + num(pos + 4..pos + 6)?;
            if *sign == b'+' { minutes * 60 } else { -minutes * 60 }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month as u32, day as u32);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_secs;
    Some(secs * 1000 + millis)
}

/// Proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (`days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
