//! RFC 3339 timestamps without a date library.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_rfc3339() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    rfc3339_from_unix(secs)
}

/// Formats seconds since the Unix epoch (UTC).
pub fn rfc3339_from_unix(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Milliseconds since the epoch of an RFC 3339 timestamp (`2026-11-30T00:53:20.5+01:00`), or of a bare date
/// (`2026-11-30`, midnight UTC). A time without an offset is taken as UTC.
pub fn unix_ms_from_rfc3339(text: &str) -> Option<i64> {
    let text = text.trim();
    let num =
        |s: &str| -> Option<i64> { (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())? };
    let (date, rest) = if text.len() > 10 { text.split_at(10) } else { (text, "") };
    let mut parts = date.splitn(3, '-');
    let (y, m, d) = (num(parts.next()?)?, num(parts.next()?)?, num(parts.next()?)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut ms = days_from_civil(y, m as u32, d as u32) * 86_400_000;
    let rest = rest.strip_prefix(['T', 't', ' ']).unwrap_or(rest);
    if rest.is_empty() {
        return Some(ms);
    }
    let (clock, offset) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let (hms, frac) = clock.split_once('.').unwrap_or((clock, ""));
    let mut hms = hms.splitn(3, ':');
    let (h, mi, sec) = (num(hms.next()?)?, num(hms.next()?)?, hms.next().map_or(Some(0), num)?);
    ms += ((h * 60 + mi) * 60 + sec) * 1000;
    if !frac.is_empty() {
        let digits: String = frac.chars().take(3).collect();
        ms += num(&digits)? * 10_i64.pow(3 - digits.len() as u32);
    }
    match offset.chars().next() {
        None | Some('Z') | Some('z') => {}
        Some(sign) => {
            let (oh, om) = offset[1..].split_once(':').unwrap_or((&offset[1..], "0"));
            let minutes = num(oh)? * 60 + num(om)?;
            ms -= if sign == '+' { 1 } else { -1 } * minutes * 60_000;
        }
    }
    Some(ms)
}

/// Howard Hinnant's civil-to-days algorithm.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_known_instants() {
        assert_eq!(super::rfc3339_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339_from_unix(1_796_000_000), "2026-11-30T00:53:20Z");
    }

    #[test]
    fn parses_what_it_formats_and_offsets() {
        use super::unix_ms_from_rfc3339 as p;
        assert_eq!(p("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(p("2026-11-30T00:53:20Z"), Some(1_796_000_000_000));
        assert_eq!(p("2026-11-30T00:53:20.25Z"), Some(1_796_000_000_250));
        assert_eq!(p("2026-11-30T01:53:20+01:00"), Some(1_796_000_000_000));
        assert_eq!(p("2026-11-30"), Some(1_795_996_800_000));
        assert_eq!(p("yesterday"), None);
        assert_eq!(p("2026-13-01"), None);
    }
}
