//! Lenient field access on `serde_json::Value`s, for stores whose shapes
//! vary between versions.

use serde_json::Value;

/// A string field.
pub fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A non-empty string field.
pub fn text_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    str_of(v, key).filter(|s| !s.is_empty())
}

/// A non-negative whole-number field (token counts; `12.0` counts); absent
/// when it is not one.
pub fn count_of(v: &Value, key: &str) -> Option<u64> {
    match v.get(key)? {
        Value::Number(n) => {
            n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let v = serde_json::json!({"a": "x", "e": "", "n": 12, "f": 12.0, "neg": -1, "half": 0.5, "s": "12"});
        assert_eq!(str_of(&v, "a"), Some("x"));
        assert_eq!(str_of(&v, "e"), Some(""));
        assert_eq!(text_of(&v, "e"), None);
        assert_eq!(str_of(&v, "n"), None);
        assert_eq!(count_of(&v, "n"), Some(12));
        assert_eq!(count_of(&v, "f"), Some(12));
        assert_eq!(count_of(&v, "neg"), None);
        assert_eq!(count_of(&v, "half"), None);
        assert_eq!(count_of(&v, "s"), None);
        assert_eq!(count_of(&v, "missing"), None);
    }
}
