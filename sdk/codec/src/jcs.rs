//! RFC 8785 JSON Canonicalization Scheme (JCS): the bytes a store that
//! names its files by digest (Mistral Vibe's) hashes and verifies.
//!
//! - objects: members sorted by their names' UTF-16 code units, no
//!   whitespace anywhere;
//! - strings: `"` and `\` escaped, `\b \t \n \f \r` for those controls,
//!   `\u00xx` (lowercase hex) for the other controls below U+0020, every
//!   other character as itself (UTF-8);
//! - numbers: integers as themselves; other numbers as ECMAScript's
//!   `Number.prototype.toString` prints a double (shortest round-trip
//!   digits, exponent form below 1e-6 and from 1e21); NaN and infinities
//!   do not exist in JSON.
//!
//! serde_json with sorted keys alone is not JCS: it prints `1e21` as
//! `1e21` but `1.0` as `1.0` (JCS: `1`), and escapes no differently, but
//! sorts by UTF-8 bytes, which differs from UTF-16 order above U+FFFF.

use serde_json::{Number, Value};

/// The canonical bytes of `value`.
pub fn to_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(value, &mut out);
    out
}

/// The canonical text of `value`.
pub fn to_string(value: &Value) -> String {
    // Only valid UTF-8 is ever written.
    String::from_utf8(to_vec(value)).unwrap_or_default()
}

/// Whether `bytes` are exactly the canonical form of the JSON they hold.
pub fn is_canonical(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| to_vec(&v) == bytes)
}

fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push(b'{');
            for (i, (name, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(name, out);
                out.push(b':');
                write_value(member, out);
            }
            out.push(b'}');
        }
    }
}

fn write_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\r' => out.extend_from_slice(b"\\r"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

fn write_number(n: &Number, out: &mut Vec<u8>) {
    if let Some(i) = n.as_i64() {
        out.extend_from_slice(i.to_string().as_bytes());
    } else if let Some(u) = n.as_u64() {
        out.extend_from_slice(u.to_string().as_bytes());
    } else {
        out.extend_from_slice(es_number(n.as_f64().unwrap_or(0.0)).as_bytes());
    }
}

/// ECMAScript's `Number.prototype.toString()` of a finite double.
pub fn es_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // Rust's `{:e}` prints the shortest digits that round-trip: d.ddde±x.
    let exp_form = format!("{:e}", x.abs());
    let (mantissa, exponent) = exp_form.split_once('e').unwrap_or((&exp_form, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exponent.parse::<i32>().unwrap_or(0) + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let e = if e < 0 { format!("-{}", -e) } else { format!("+{e}") };
        if k == 1 { format!("{digits}e{e}") } else { format!("{}.{}e{e}", &digits[..1], &digits[1..]) }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_sort_and_nothing_is_spaced() {
        let v = json!({"b": [1, {"z": null, "a": true}], "a": "x", "": false});
        assert_eq!(to_string(&v), r#"{"":false,"a":"x","b":[1,{"a":true,"z":null}]}"#);
    }

    #[test]
    fn names_sort_by_utf16_code_units() {
        // U+1F600 is D83D DE00 in UTF-16, below U+FB01; in UTF-8 it sorts after.
        let v = json!({"\u{fb01}": 1, "\u{1f600}": 2});
        assert_eq!(to_string(&v), "{\"\u{1f600}\":2,\"\u{fb01}\":1}");
    }

    #[test]
    fn strings_escape_only_what_rfc_8785_escapes() {
        let v = json!("a\"b\\c\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}é\u{2028}本😀/");
        assert_eq!(to_string(&v), "\"a\\\"b\\\\c\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}é\u{2028}本😀/\"");
    }

    #[test]
    fn numbers_print_as_ecmascript_does() {
        // RFC 8785 appendix B's examples.
        for (x, want) in [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (4.5e-7, "4.5e-7"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (333333333.3333333, "333333333.3333333"),
            (0.1, "0.1"),
            (295147905179352830000.0, "295147905179352830000"),
        ] {
            assert_eq!(es_number(x), want, "{x:e}");
        }
        assert_eq!(to_string(&json!([1, -7, u64::MAX, 2.5, 10.0])), format!("[1,-7,{},2.5,10]", u64::MAX));
    }

    #[test]
    fn canonical_bytes_are_recognised() {
        assert!(is_canonical(br#"{"a":1,"b":[true,null]}"#));
        assert!(!is_canonical(br#"{"b":1,"a":2}"#));
        assert!(!is_canonical(br#"{"a": 1}"#));
        assert!(!is_canonical(br#""\u00e9""#));
        assert!(!is_canonical(b"not json"));
    }
}
