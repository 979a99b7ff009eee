//! Hermes' times: ISO strings from Python's `datetime.isoformat()` — local
//! time without a zone in the logs (`session_start`, message `timestamp`),
//! which is read as UTC since the zone is not recorded — or epoch seconds.

use serde_json::Value;
use trajhost_codec_sdk::time::{parse_timestamp, rfc3339_epoch_secs, rfc3339_ms};

/// RFC 3339 of a time value; `None` for anything else.
pub fn of_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => parse_timestamp(s).map(rfc3339_ms),
        Value::Number(n) => n.as_f64().and_then(rfc3339_epoch_secs),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hermes_times() {
        let s = |t: &str| of_value(&Value::String(t.into()));
        assert_eq!(s("2026-04-29T20:05:00.000Z").as_deref(), Some("2026-04-29T20:05:00.000Z"));
        assert_eq!(s("2026-04-18T19:26:00.214787").as_deref(), Some("2026-04-18T19:26:00.214Z"));
        assert_eq!(s("2026-04-29T22:05:00+02:00").as_deref(), Some("2026-04-29T20:05:00.000Z"));
        assert_eq!(of_value(&serde_json::json!(1_796_012_343.5)).as_deref(), Some("2026-11-30T04:19:03.500Z"));
        assert_eq!(s("yesterday"), None);
    }
}
