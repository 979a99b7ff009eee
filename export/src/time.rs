//! RFC 3339 / ISO 8601 timestamps to Unix nanoseconds, without a date library.

/// Nanoseconds since the epoch of `2026-11-30T04:05:50.123456789Z` (an offset
/// such as `+01:00`, a space for `T`, a bare date; no offset is UTC).
/// `None` for anything else, and for times before 1970.
pub fn unix_nanos(text: &str) -> Option<u64> {
    let text = text.trim();
    let num =
        |s: &str| -> Option<i64> { (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())? };
    if text.len() < 10 || !text.is_char_boundary(10) {
        return None;
    }
    let (date, rest) = text.split_at(10);
    let mut parts = date.splitn(3, '-');
    let (y, m, d) = (num(parts.next()?)?, num(parts.next()?)?, num(parts.next()?)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || date.as_bytes()[4] != b'-' {
        return None;
    }
    let mut secs = days_from_civil(y, m as u32, d as u32) * 86_400;
    let mut nanos: i64 = 0;
    let rest = rest.strip_prefix(['T', 't', ' ']).unwrap_or(rest);
    if !rest.is_empty() {
        let (clock, offset) = match rest.find(['Z', 'z', '+', '-']) {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let (hms, frac) = clock.split_once(['.', ',']).unwrap_or((clock, ""));
        let mut hms = hms.splitn(3, ':');
        let (h, mi) = (num(hms.next()?)?, num(hms.next()?)?);
        let s = match hms.next() {
            Some(s) => num(s)?,
            None => 0,
        };
        if h > 23 || mi > 59 || s > 60 {
            return None;
        }
        secs += (h * 60 + mi) * 60 + s;
        if !frac.is_empty() {
            let digits: String = frac.chars().take(9).collect();
            num(frac)?;
            nanos = num(&digits)? * 10_i64.pow(9 - digits.len() as u32);
        }
        match offset.chars().next() {
            None | Some('Z') | Some('z') if offset.len() <= 1 => {}
            Some(sign @ ('+' | '-')) => {
                let body = &offset[1..];
                let (oh, om) = match body.split_once(':') {
                    Some((h, m)) => (h, m),
                    None if body.len() == 4 => body.split_at(2),
                    None => (body, "0"),
                };
                let minutes = num(oh)? * 60 + num(om)?;
                secs -= if sign == '+' { 1 } else { -1 } * minutes * 60;
            }
            _ => return None,
        }
    }
    if secs < 0 {
        return None;
    }
    u64::try_from(secs).ok()?.checked_mul(1_000_000_000)?.checked_add(nanos as u64)
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

#[cfg(test)]
mod tests {
    use super::unix_nanos;

    #[test]
    fn parses_the_forms_harnesses_write() {
        assert_eq!(unix_nanos("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_nanos("1970-01-01T00:00:01.5Z"), Some(1_500_000_000));
        assert_eq!(unix_nanos("2026-11-30T04:05:50.123Z"), Some(1_796_011_550_123_000_000));
        assert_eq!(unix_nanos("2026-11-30T05:05:50.123+01:00"), unix_nanos("2026-11-30T04:05:50.123Z"));
        assert_eq!(unix_nanos("2026-11-30T04:05:50.123456789Z").map(|n| n % 1_000_000_000), Some(123_456_789));
        assert_eq!(unix_nanos("2026-11-30"), Some(1_795_996_800_000_000_000));
        assert_eq!(unix_nanos("yesterday"), None);
        assert_eq!(unix_nanos("2026-13-01T00:00:00Z"), None);
        assert_eq!(unix_nanos("1960-01-01T00:00:00Z"), None);
    }
}
