//! OpenHands stamps events with `datetime.now().isoformat()`: local time
//! without an offset. The offset is recovered from one event file whose
//! modification time (UTC, from the host's listing) was taken when it was
//! written: the difference, rounded to a quarter hour, is the local offset.
//! When it cannot be recovered (a copied file, no listing time) times are
//! read as UTC and a diagnostic says so.

use crate::util::{parse_iso, rfc3339_ms};

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
        assert_eq!(Clock::default().rfc3339("2026-11-30T04:36:44Z").unwrap(), ("2026-11-30T04:36:44.000Z".to_string(), false));
    }
}
