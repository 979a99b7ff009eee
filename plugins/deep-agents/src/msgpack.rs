//! A small MessagePack decoder into `serde_json::Value`, for LangGraph's
//! `JsonPlusSerializer` blobs (`type = 'msgpack'`).
//!
//! LangGraph encodes Python objects as extension types whose payload is
//! itself MessagePack: `[module, name, args…]`. Codes 0–3 (constructor /
//! method calls), 4 and 5 (pydantic v1 / v2 models, e.g. LangChain
//! messages) become `{"__ext": code, "module", "name", "value"}` with
//! `value` the decoded argument (the model's fields for 4/5); other codes
//! become `{"__ext": code}`, except 7 (`_DeltaSnapshot`, a delta channel
//! stored in full), which decodes to the value it wraps. Binary becomes
//! `{"__bytes": len}` (never content a record needs). Map keys that are not strings are rendered as
//! JSON text. Depth and sizes are bounded: hostile blobs fail, they do not
//! exhaust memory.

use serde_json::{Map, Value};

/// LangGraph's extension codes (`langgraph.checkpoint.serde.jsonplus`).
pub const EXT_PYDANTIC_V2: i8 = 5;
pub const EXT_DELTA_SNAPSHOT: i8 = 7;

/// Deepest nesting decoded.
const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub &'static str);

/// Decodes one value that must span all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Value, Error> {
    let mut r = Reader { bytes, pos: 0 };
    let v = r.value(0)?;
    if r.pos != bytes.len() {
        return Err(Error("trailing bytes"));
    }
    Ok(v)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or(Error("truncated"))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn uint(&mut self, n: usize) -> Result<u64, Error> {
        Ok(self.take(n)?.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }

    fn len(&mut self, n: usize) -> Result<usize, Error> {
        let len = self.uint(n)? as usize;
        // Every element takes at least one byte: a length past the end is a lie.
        if len > self.bytes.len() - self.pos.min(self.bytes.len()) {
            return Err(Error("length past the end"));
        }
        Ok(len)
    }

    fn str(&mut self, n: usize) -> Result<Value, Error> {
        let bytes = self.take(n)?;
        Ok(Value::String(String::from_utf8_lossy(bytes).into_owned()))
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(Error("nested too deep"));
        }
        let t = self.take(1)?[0];
        Ok(match t {
            0x00..=0x7f => Value::from(t),
            0x80..=0x8f => self.map((t & 0x0f) as usize, depth)?,
            0x90..=0x9f => self.array((t & 0x0f) as usize, depth)?,
            0xa0..=0xbf => self.str((t & 0x1f) as usize)?,
            0xc0 => Value::Null,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(1 << (t - 0xc4))?;
                self.take(n)?;
                Value::Object(Map::from_iter([("__bytes".to_string(), Value::from(n))]))
            }
            0xc7..=0xc9 => {
                let n = self.len(1 << (t - 0xc7))?;
                self.ext(n, depth)?
            }
            0xca => Value::from(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Value::from(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Value::from(self.uint(1 << (t - 0xcc))?),
            0xd0 => Value::from(self.uint(1)? as u8 as i8),
            0xd1 => Value::from(self.uint(2)? as u16 as i16),
            0xd2 => Value::from(self.uint(4)? as u32 as i32),
            0xd3 => Value::from(self.uint(8)? as i64),
            0xd4..=0xd8 => self.ext(1 << (t - 0xd4), depth)?,
            0xd9..=0xdb => {
                let n = self.len(1 << (t - 0xd9))?;
                self.str(n)?
            }
            0xdc | 0xdd => {
                let n = self.len(2 << (t - 0xdc))?;
                self.array(n, depth)?
            }
            0xde | 0xdf => {
                let n = self.len(2 << (t - 0xde))?;
                self.map(n, depth)?
            }
            0xe0..=0xff => Value::from(t as i8),
            0xc1 => return Err(Error("reserved type 0xc1")),
        })
    }

    fn array(&mut self, n: usize, depth: usize) -> Result<Value, Error> {
        let mut out = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            out.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(out))
    }

    fn map(&mut self, n: usize, depth: usize) -> Result<Value, Error> {
        let mut out = Map::new();
        for _ in 0..n {
            let key = match self.value(depth + 1)? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            out.insert(key, self.value(depth + 1)?);
        }
        Ok(Value::Object(out))
    }

    /// An extension of `n` payload bytes (after its type byte).
    fn ext(&mut self, n: usize, depth: usize) -> Result<Value, Error> {
        let code = self.take(1)?[0] as i8;
        let payload = self.take(n)?;
        if code == EXT_DELTA_SNAPSHOT {
            // `_DeltaSnapshot(value)`: a delta channel stored in full; the
            // snapshot is the channel's value.
            let mut inner = Reader { bytes: payload, pos: 0 };
            let value = inner.value(depth + 1)?;
            if inner.pos != payload.len() {
                return Err(Error("trailing bytes in a delta snapshot"));
            }
            return Ok(value);
        }
        let mut out = Map::new();
        out.insert("__ext".into(), Value::from(code));
        if (0..=5).contains(&code) {
            let mut inner = Reader { bytes: payload, pos: 0 };
            if let Value::Array(mut parts) = inner.value(depth + 1)? {
                let mut it = parts.drain(..);
                out.insert("module".into(), it.next().unwrap_or(Value::Null));
                out.insert("name".into(), it.next().unwrap_or(Value::Null));
                out.insert("value".into(), it.next().unwrap_or(Value::Null));
            }
        }
        Ok(Value::Object(out))
    }
}

/// A MessagePack encoder for the values the writer stores: JSON values
/// (integers as integers, other numbers as float 64, map keys as strings)
/// and LangGraph's extensions around them.
pub mod encode {
    use serde_json::Value;

    /// Appends `v`.
    pub fn value(out: &mut Vec<u8>, v: &Value) {
        match v {
            Value::Null => out.push(0xc0),
            Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    uint(out, u);
                } else if let Some(i) = n.as_i64() {
                    int(out, i);
                } else {
                    out.push(0xcb);
                    out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_bits().to_be_bytes());
                }
            }
            Value::String(s) => str(out, s),
            Value::Array(items) => {
                array_header(out, items.len());
                for item in items {
                    value(out, item);
                }
            }
            Value::Object(map) => {
                map_header(out, map.len());
                for (k, item) in map {
                    str(out, k);
                    value(out, item);
                }
            }
        }
    }

    pub fn uint(out: &mut Vec<u8>, u: u64) {
        match u {
            0..=0x7f => out.push(u as u8),
            0x80..=0xff => out.extend_from_slice(&[0xcc, u as u8]),
            0x100..=0xffff => {
                out.push(0xcd);
                out.extend_from_slice(&(u as u16).to_be_bytes());
            }
            0x1_0000..=0xffff_ffff => {
                out.push(0xce);
                out.extend_from_slice(&(u as u32).to_be_bytes());
            }
            _ => {
                out.push(0xcf);
                out.extend_from_slice(&u.to_be_bytes());
            }
        }
    }

    pub fn int(out: &mut Vec<u8>, i: i64) {
        if i >= 0 {
            return uint(out, i as u64);
        }
        if i >= -32 {
            out.push(i as i8 as u8);
        } else {
            out.push(0xd3);
            out.extend_from_slice(&i.to_be_bytes());
        }
    }

    pub fn str(out: &mut Vec<u8>, s: &str) {
        let n = s.len();
        match n {
            0..=31 => out.push(0xa0 | n as u8),
            32..=0xff => out.extend_from_slice(&[0xd9, n as u8]),
            0x100..=0xffff => {
                out.push(0xda);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                out.push(0xdb);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
        }
        out.extend_from_slice(s.as_bytes());
    }

    pub fn array_header(out: &mut Vec<u8>, n: usize) {
        match n {
            0..=15 => out.push(0x90 | n as u8),
            16..=0xffff => {
                out.push(0xdc);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                out.push(0xdd);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
        }
    }

    pub fn map_header(out: &mut Vec<u8>, n: usize) {
        match n {
            0..=15 => out.push(0x80 | n as u8),
            16..=0xffff => {
                out.push(0xde);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                out.push(0xdf);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
        }
    }

    /// An extension of `code` around an encoded `payload`.
    pub fn ext(out: &mut Vec<u8>, code: i8, payload: &[u8]) {
        let n = payload.len();
        match n {
            1 => out.push(0xd4),
            2 => out.push(0xd5),
            4 => out.push(0xd6),
            8 => out.push(0xd7),
            16 => out.push(0xd8),
            0..=0xff => out.extend_from_slice(&[0xc7, n as u8]),
            0x100..=0xffff => {
                out.push(0xc8);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                out.push(0xc9);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
        }
        out.push(code as u8);
        out.extend_from_slice(payload);
    }

    /// A pydantic v2 model as LangGraph stores it: extension 5 around
    /// `[module, class, fields, "model_validate_json"]`.
    pub fn pydantic(out: &mut Vec<u8>, module: &str, class: &str, fields: &Value) {
        let mut payload = Vec::new();
        array_header(&mut payload, 4);
        str(&mut payload, module);
        str(&mut payload, class);
        value(&mut payload, fields);
        str(&mut payload, "model_validate_json");
        ext(out, super::EXT_PYDANTIC_V2, &payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_scalars_containers_and_extensions() {
        // {"a": [1, -1, "é", nil, true, 1.5]}
        let bytes =
            [0x81, 0xa1, b'a', 0x96, 0x01, 0xff, 0xa2, 0xc3, 0xa9, 0xc0, 0xc3, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0];
        assert_eq!(decode(&bytes).unwrap(), json!({"a": [1, -1, "é", null, true, 1.5]}));
        // ext 5 with payload ["m", "C", {"x": 1}] (fixext 8)
        let payload = [0x93, 0xa1, b'm', 0xa1, b'C', 0x81, 0xa1, b'x', 0x01];
        let mut ext = vec![0xc7, payload.len() as u8, 5];
        ext.extend_from_slice(&payload);
        assert_eq!(decode(&ext).unwrap(), json!({"__ext": 5, "module": "m", "name": "C", "value": {"x": 1}}));
    }

    #[test]
    fn encodes_what_it_decodes() {
        let v =
            json!({"a": [1, -1, -200, 300, 70000, 5_000_000_000u64, "é", null, true, 1.5, "x".repeat(40)], "b": {}});
        let mut out = Vec::new();
        encode::value(&mut out, &v);
        assert_eq!(decode(&out).unwrap(), v);
        let mut m = Vec::new();
        encode::pydantic(&mut m, "langchain_core.messages.human", "HumanMessage", &json!({"content": "hi"}));
        let mut snap = Vec::new();
        encode::ext(&mut snap, EXT_DELTA_SNAPSHOT, &[&[0x91u8][..], &m].concat());
        let back = decode(&snap).unwrap();
        assert_eq!(back[0]["name"], "HumanMessage");
        assert_eq!(back[0]["value"]["content"], "hi");
    }

    #[test]
    fn rejects_lies_and_depth_bombs() {
        assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode(&[0xd9, 0x05, b'a']).is_err());
        assert!(decode(&vec![0x91; 1000]).is_err());
        assert!(decode(&[0x01, 0x02]).is_err());
    }
}
