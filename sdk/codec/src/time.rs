//! Dates without a date crate: RFC 3339 formatting of Unix times (UTC, `Z`,
//! always with milliseconds), parsing of RFC 3339 / ISO 8601 timestamps to
//! Unix milliseconds, and Howard Hinnant's civil-calendar conversions.
//!
//! Writers also need the other forms harnesses store or name files by:
//! epoch milliseconds or seconds checked for plausibility
//! ([`rfc3339_epoch_ms`], [`rfc3339_epoch_secs`]), file-name stamps
//! ([`file_safe_rfc3339`], [`file_stamp`]) and day folders ([`ymd`]).
//!
//! Pure arithmetic: no clock, no environment (a guest may not read either).

/// A UTC calendar reading of an instant, proleptic Gregorian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year (may be ≤ 0 or > 9999 for far instants).
    pub year: i64,
    /// Month, 1–12.
    pub month: u32,
    /// Day of the month, 1–31.
    pub day: u32,
    /// Hour, 0–23.
    pub hour: u32,
    /// Minute, 0–59.
    pub minute: u32,
    /// Second, 0–59.
    pub second: u32,
    /// Millisecond, 0–999.
    pub millis: u32,
}

impl Civil {
    /// The UTC reading of `ms` milliseconds since the Unix epoch.
    pub fn from_ms(ms: i64) -> Civil {
        let secs = ms.div_euclid(1000);
        let rem = secs.rem_euclid(86_400) as u32;
        let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem % 3600 / 60,
            second: rem % 60,
            millis: ms.rem_euclid(1000) as u32,
        }
    }
}

/// `2026-11-30T04:05:54.384Z` for milliseconds since the Unix epoch.
pub fn rfc3339_ms(ms: i64) -> String {
    let Civil { year, month, day, hour, minute, second, millis } = Civil::from_ms(ms);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z")
}

/// RFC 3339 (as [`rfc3339_ms`], rounded to the millisecond) of fractional
/// seconds since the Unix epoch; `None` when not finite or beyond ±10¹² s.
pub fn rfc3339_secs(secs: f64) -> Option<String> {
    if !secs.is_finite() || secs.abs() > 1e12 {
        return None;
    }
    Some(rfc3339_ms((secs * 1000.0).round() as i64))
}

/// RFC 3339 of an epoch-milliseconds time read from a store; `None` for a
/// value that is not a plausible time (negative, or past year 5000: a value
/// in microseconds or garbage).
pub fn rfc3339_epoch_ms(ms: i64) -> Option<String> {
    (0..100_000_000_000_000).contains(&ms).then(|| rfc3339_ms(ms))
}

/// RFC 3339 of an epoch-seconds time read from a store (fractional, as
/// Python's `time.time()` gives); `None` for a value that is not a
/// plausible time (negative, NaN, or milliseconds by mistake).
pub fn rfc3339_epoch_secs(secs: f64) -> Option<String> {
    // NaN is in no range.
    (0.0..1.0e11).contains(&secs).then(|| rfc3339_secs(secs))?
}

/// Fractional seconds since the Unix epoch, as harnesses written in Python
/// store times.
pub fn epoch_secs(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// `2026-11-30T04-05-54-384Z`: [`rfc3339_ms`] with `:` and `.` made `-`,
/// the file-safe form some harnesses put in file names.
pub fn file_safe_rfc3339(ms: i64) -> String {
    rfc3339_ms(ms).replace([':', '.'], "-")
}

/// `2026-11-30T04-05-54`: the second-precision stamp of a file name.
pub fn file_stamp(ms: i64) -> String {
    let Civil { year, month, day, hour, minute, second, .. } = Civil::from_ms(ms);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}-{minute:02}-{second:02}")
}

/// `(year, month, day)` of an instant, UTC: for `YYYY/MM/DD` day folders.
pub fn ymd(ms: i64) -> (i64, u32, u32) {
    civil_from_days(ms.div_euclid(1000).div_euclid(86_400))
}

/// Milliseconds since the Unix epoch of a timestamp as harnesses record
/// them: ISO 8601 with or without a zone (none read as UTC), surrounding
/// whitespace ignored. Use [`parse_rfc3339`] where a zone is required.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    parse_iso8601(text.trim()).map(|(ms, _)| ms)
}

/// An RFC 3339 timestamp in the one form [`rfc3339_ms`] writes
/// (`2026-11-30T05:20:57.916Z` for `2026-11-30T05:20:57.916053+00:00`), for
/// targets whose loaders accept no other; `None` when it is not one.
pub fn normalized_rfc3339_ms(text: &str) -> Option<String> {
    parse_rfc3339(text).map(rfc3339_ms)
}

/// Milliseconds since the Unix epoch of an RFC 3339 timestamp, which must
/// carry a zone (`Z` or `±hh:mm`): see [`parse_iso8601`] for the accepted
/// forms. `None` when it is not one.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    match parse_iso8601(text)? {
        (ms, true) => Some(ms),
        (_, false) => None,
    }
}

/// An ISO 8601 timestamp `YYYY-MM-DD[T t ␠]hh:mm:ss[.frac][Z z ±hh:mm]`:
/// the milliseconds since the Unix epoch it names (a timestamp without a
/// zone read as UTC) and whether it had a zone. Any number of fraction
/// digits (truncated to milliseconds); nothing may follow the zone.
pub fn parse_iso8601(text: &str) -> Option<(i64, bool)> {
    let (ms, zone) = parse_naive(text)?;
    let digits = |b: &[u8]| -> Option<i64> {
        b.iter().all(u8::is_ascii_digit).then(|| i64::from(b[0] - b'0') * 10 + i64::from(b[1] - b'0'))
    };
    match zone.as_bytes() {
        [] => Some((ms, false)),
        [b'Z' | b'z'] => Some((ms, true)),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let minutes = digits(&[*h1, *h2])? * 60 + digits(&[*m1, *m2])?;
            let offset_ms = minutes * 60_000;
            Some((if *sign == b'+' { ms - offset_ms } else { ms + offset_ms }, true))
        }
        _ => None,
    }
}

/// The date-and-time part of an ISO 8601 timestamp,
/// `YYYY-MM-DD[T t ␠]hh:mm:ss[.frac]`, read as UTC: milliseconds since the
/// Unix epoch and the rest of `text` (its zone, if any), for codecs that
/// read zones their own way. `None` when `text` does not start with one
/// (fields out of range, `.` without digits).
pub fn parse_naive(text: &str) -> Option<(i64, &str)> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(part.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = &b[start..i.min(start + 3)];
        millis = num(start..start + digits.len())? * 10_i64.pow(3 - digits.len() as u32);
    }
    let days = days_from_civil(year, month as u32, day as u32);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    Some((secs * 1000 + millis, &text[i..]))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Proleptic Gregorian `(year, month, day)` of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_known_dates_and_round_trip() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1900, 3, 1), -25_508);
        assert_eq!(days_from_civil(0, 1, 1), -719_528);
        for days in (-1_000_000..1_000_000).step_by(997).chain(-800..800) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{days}");
        }
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_ms(253_402_300_799_999), "9999-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_secs(1_796_012_370.771_764_3).as_deref(), Some("2026-11-30T04:19:30.772Z"));
        assert_eq!(rfc3339_secs(0.0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(rfc3339_secs(f64::NAN), None);
        assert_eq!(rfc3339_secs(f64::INFINITY), None);
        assert_eq!(rfc3339_secs(2e12), None);
        assert_eq!(file_safe_rfc3339(1_796_011_851_921), "2026-11-30T04-10-51-921Z");
        assert_eq!(file_stamp(1_796_011_839_446), "2026-11-30T04-10-39");
        assert_eq!(ymd(1_796_011_839_446), (2026, 11, 30));
        assert_eq!(rfc3339_epoch_ms(1_796_012_773_244).as_deref(), Some("2026-11-30T04:26:13.244Z"));
        assert_eq!(rfc3339_epoch_ms(-5), None);
        assert_eq!(rfc3339_epoch_secs(1_796_012_343.709_91).as_deref(), Some("2026-11-30T04:19:03.710Z"));
        assert_eq!(rfc3339_epoch_secs(f64::NAN), None);
        assert_eq!(rfc3339_epoch_secs(-5.0), None);
        assert_eq!(parse_timestamp(" 2000-02-29 00:00:00 "), Some(951_782_400_000));
        assert_eq!(epoch_secs(1_500), 1.5);
        let c = Civil::from_ms(1_796_011_554_384);
        assert_eq!((c.year, c.month, c.day, c.hour, c.minute, c.second, c.millis), (2026, 11, 30, 4, 5, 54, 384));
    }

    #[test]
    fn parses_zones_fractions_and_round_trips() {
        for ms in [0, 1, -1, 951_782_400_000, 1_796_011_554_384, 4_102_444_800_123, 253_402_300_799_999] {
            assert_eq!(parse_rfc3339(&rfc3339_ms(ms)), Some(ms), "{ms}");
            assert_eq!(parse_iso8601(&rfc3339_ms(ms)), Some((ms, true)), "{ms}");
        }
        assert_eq!(parse_rfc3339("2026-11-30T06:05:54.384123+02:00"), Some(1_796_011_554_384));
        assert_eq!(parse_rfc3339("2026-11-29T22:35:54.3-05:30"), Some(1_796_011_554_300));
        assert_eq!(parse_rfc3339("2026-11-30 04:05:54z"), Some(1_796_011_554_000));
        assert_eq!(parse_rfc3339("2026-11-30t04:05:54.38Z"), Some(1_796_011_554_380));
        assert_eq!(parse_iso8601("2026-11-30T04:36:44.649261"), Some((1_796_013_404_649, false)));
        assert_eq!(parse_iso8601("2000-02-29 00:00:00"), Some((951_782_400_000, false)));
        assert_eq!(parse_naive("2026-11-30T04:36:44.5+02:00"), Some((1_796_013_404_500, "+02:00")));
        for bad in [
            "",
            "yesterday",
            "2026-11-30",
            "2026-13-01T00:00:00Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T04:05:54.Z",
            "x026-11-30T04:05:54Z",
            "2026-11-30T04:05:54Z ",
            "2026-11-30T04:05:54+0200",
            "2026-11-30T04:05:54+2:00",
            "2026-11-30T04:05:54+02:0x",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
        assert_eq!(parse_rfc3339("2026-11-30T04:05:54"), None);
    }
}
