//! A small MessagePack decoder into `serde_json::Value`, for LangGraph's
//! `JsonPlusSerializer` blobs (`type = 'msgpack'`).
//!
//! LangGraph encodes Python objects as extension types whose payload is
//! itself MessagePack: `[module, name, args…]`. Codes 0–3 (constructor /
//! method calls), 4 and 5 (pydantic v1 / v2 models, e.g. LangChain
//! messages) become `{"__ext": code, "module", "name", "value"}` with
//! `value` the decoded argument (the model's fields for 4/5); other codes
//! become `{"__ext": code}`. Binary becomes `{"__bytes": len}` (never
//! content a record needs). Map keys that are not strings are rendered as
//! JSON text. Depth and sizes are bounded: hostile blobs fail, they do not
//! exhaust memory.

use serde_json::{Map, Value};

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
    fn rejects_lies_and_depth_bombs() {
        assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode(&[0xd9, 0x05, b'a']).is_err());
        assert!(decode(&vec![0x91; 1000]).is_err());
        assert!(decode(&[0x01, 0x02]).is_err());
    }
}
