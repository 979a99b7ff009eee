//! OpenHands stamps events with `datetime.now().isoformat()`: local time
//! without an offset. The offset is recovered from one event file whose
//! modification time (UTC, from the host's listing) was taken when it was
//! written: the difference, rounded to a quarter hour, is the local offset.
//! When it cannot be recovered (a copied file, no listing time) times are
//! read as UTC and a diagnostic says so.

use trajhost_codec_sdk::time::rfc3339_ms;

/// Largest offset accepted (UTC+14:00).
const MAX_OFFSET_MS: i64 = 14 * 3_600_000;
/// How far the file's time may trail the event's own stamp. Tight, because a
/// later copy or checkout (mtime = copy time) that happens to land near a
/// quarter hour after the stamp must not pass for a time zone.
const MAX_WRITE_LAG_MS: i64 = 2_000;
const QUARTER_HOUR_MS: i64 = 900_000;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clock {
    /// Local time minus UTC, when known.
    pub offset_ms: Option<i64>,
}

impl Clock {
    /// From an event's stamp and its file's modification time.
    pub fn from_sample(stamp: &str, modified_ms: Option<i64>) -> Clock {
        let (Some((local_ms, false)), Some(mtime)) = (parse_iso(stamp), modified_ms) else {
            return Clock::default();
        };
        let diff = local_ms - mtime;
        let offset = (diff as f64 / QUARTER_HOUR_MS as f64).round() as i64 * QUARTER_HOUR_MS;
        let lag = offset - diff; // mtime - (local - offset): ≥ 0 up to a small write lag
        if offset.abs() > MAX_OFFSET_MS || !(-1_000..=MAX_WRITE_LAG_MS).contains(&lag) {
            return Clock::default();
        }
        Clock { offset_ms: Some(offset) }
    }

    /// RFC 3339 (UTC) of a recorded stamp, and whether the offset had to be
    /// assumed (UTC) for it.
    pub fn rfc3339(&self, stamp: &str) -> Option<(String, bool)> {
        match parse_iso(stamp)? {
            (ms, true) => Some((rfc3339_ms(ms), false)),
            (ms, false) => match self.offset_ms {
                Some(offset) => Some((rfc3339_ms(ms - offset), false)),
                None => Some((rfc3339_ms(ms), true)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Clock;

    #[test]
    fn recovers_the_local_offset() {
        // 04:36:44.52 local, written at 04:36:44.60 UTC: UTC.
        let utc = Clock::from_sample("2026-11-30T04:36:44.523689", Some(1_796_013_404_600));
        assert_eq!(utc.offset_ms, Some(0));
        assert_eq!(utc.rfc3339("2026-11-30T04:36:44.649261").unwrap(), ("2026-11-30T04:36:44.649Z".to_string(), false));
        // The same instant stamped in UTC+05:30.
        let ist = Clock::from_sample("2026-11-30T10:06:44.523689", Some(1_796_013_404_600));
        assert_eq!(ist.offset_ms, Some(19_800_000));
        assert_eq!(ist.rfc3339("2026-11-30T10:06:44.649261").unwrap().0, "2026-11-30T04:36:44.649Z");
        // A copy made 20 minutes later tells nothing: UTC is assumed.
        let copied = Clock::from_sample("2026-11-30T04:36:44.523689", Some(1_796_013_404_600 + 1_200_000));
        assert_eq!(copied.offset_ms, None);
        assert_eq!(copied.rfc3339("2026-11-30T04:36:44").unwrap(), ("2026-11-30T04:36:44.000Z".to_string(), true));
        // An explicit offset needs no clock.
        assert_eq!(
            Clock::default().rfc3339("2026-11-30T04:36:44Z").unwrap(),
            ("2026-11-30T04:36:44.000Z".to_string(), false)
        );
    }
}

/// An ISO 8601 timestamp `YYYY-MM-DDTHH:MM:SS[.frac][Z|±HH:MM]`: the
/// milliseconds since the epoch it names, reading a timestamp without an
/// offset as if it were UTC, and whether it had an offset. The offset is
/// read leniently (`+5:30` too), as it always was here.
pub fn parse_iso(text: &str) -> Option<(i64, bool)> {
    let (mut ms, rest) = trajhost_codec_sdk::time::parse_naive(text)?;
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
