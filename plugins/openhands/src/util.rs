//! Small helpers: RFC 3339 times, a stable hash, type names fit for
//! diagnostics, filesystem error mapping, lenient JSON field access.

use serde_json::Value;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::FsError;

/// `2026-11-30T04:05:54.384Z` for milliseconds since the Unix epoch.
pub fn rfc3339_ms(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// RFC 3339 for fractional seconds since the Unix epoch (millisecond precision).
pub fn rfc3339_secs(secs: f64) -> Option<String> {
    if !secs.is_finite() || secs.abs() > 1e12 {
        return None;
    }
    Some(rfc3339_ms((secs * 1000.0).round() as i64))
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

/// FNV-1a, 64 bit: a fixed hash (no random seed) for matching lines and texts.
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn finish(self) -> u64 {
        self.0
    }
    pub fn of(bytes: &[u8]) -> u64 {
        let mut h = Fnv::default();
        h.write(bytes);
        h.finish()
    }
}

/// A record type name fit for a diagnostic: the native spelling when it is a
/// plain identifier, else a placeholder (a hostile file could put anything
/// in a type field).
pub fn type_name(kind: Option<&str>) -> String {
    match kind {
        None => "(missing)".to_string(),
        Some(k)
            if !k.is_empty()
                && k.len() <= 64
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/')) =>
        {
            k.to_string()
        }
        Some(_) => "(not an identifier)".to_string(),
    }
}

/// The kind of a filesystem error, for diagnostics (no paths, no content).
pub fn fs_kind(error: &FsError) -> &'static str {
    match error {
        FsError::NotFound(_) => "not-found",
        FsError::Denied(_) => "denied",
        FsError::InvalidPath(_) => "invalid-path",
        FsError::Io(_) => "io",
        FsError::LimitExceeded(_) => "limit-exceeded",
    }
}

/// A filesystem error as a codec error naming the file.
pub fn fs_error(path: &str, error: FsError) -> CodecError {
    match error {
        FsError::NotFound(_) => CodecError::NotFound(path.to_string()),
        FsError::LimitExceeded(m) => CodecError::LimitExceeded(format!("{path}: {m}")),
        other => CodecError::Io(format!("{path}: {other}")),
    }
}

/// `dir/name`, or `name` when `dir` is empty.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// A relative path below the home: no leading `/`, no `..`, no empty segment.
pub fn is_relative_below(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.split('/').any(|c| c.is_empty() || c == "." || c == "..")
}

/// A string field.
pub fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A non-negative integer field (token counts); absent when not one.
pub fn count_of(v: &Value, key: &str) -> Option<u64> {
    match v.get(key)? {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64)),
        _ => None,
    }
}

/// The first `max` characters of `text` on one line, `…` when cut.
pub fn title_of(text: &str, max: usize) -> Option<String> {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.is_empty() {
        return None;
    }
    if flat.chars().count() <= max {
        return Some(flat);
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    Some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_796_011_554_384), "2026-11-30T04:05:54.384Z");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339_secs(1_796_012_370.7717643).as_deref(), Some("2026-11-30T04:19:30.772Z"));
        assert_eq!(rfc3339_secs(f64::NAN), None);
    }

    #[test]
    fn titles_are_flat_and_bounded() {
        assert_eq!(title_of("a\n b", 10).as_deref(), Some("a b"));
        assert_eq!(title_of("abcdef", 4).as_deref(), Some("abc…"));
        assert_eq!(title_of("  ", 4), None);
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// An ISO 8601 timestamp `YYYY-MM-DDTHH:MM:SS[.frac][Z|±HH:MM]`: the
/// milliseconds since the epoch it names, reading a timestamp without an
/// offset as if it were UTC, and whether it had an offset.
pub fn parse_iso(text: &str) -> Option<(i64, bool)> {
    let b = text.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())).then(|| s.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let frac = &text[start..i];
        if frac.is_empty() {
            return None;
        }
        let digits: String = frac.chars().chain("000".chars()).take(3).collect();
        millis = digits.parse().ok()?;
    }
    let mut ms = ((days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + millis;
    let rest = &text[i..];
    let has_offset = match rest {
        "" => false,
        "Z" | "z" => true,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = rest[1..].split_once(':')?;
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            ms -= sign * (h * 60 + m) * 60_000;
            true
        }
    };
    Some((ms, has_offset))
}

#[cfg(test)]
mod iso_tests {
    use super::*;

    #[test]
    fn parses_naive_and_offset_timestamps() {
        assert_eq!(parse_iso("2026-11-30T04:36:44.649261"), Some((1_796_013_404_649, false)));
        assert_eq!(parse_iso("2026-11-30T04:36:44Z"), Some((1_796_013_404_000, true)));
        assert_eq!(parse_iso("2026-11-30T06:36:44.5+02:00"), Some((1_796_013_404_500, true)));
        assert_eq!(rfc3339_ms(parse_iso("2000-02-29T00:00:00").unwrap().0), "2000-02-29T00:00:00.000Z");
        assert_eq!(parse_iso("yesterday"), None);
        assert_eq!(parse_iso("2026-13-01T00:00:00"), None);
    }
}
