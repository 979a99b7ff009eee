//! The protobuf wire format, strictly: varint (0), 64-bit (1),
//! length-delimited (2) and 32-bit (5) fields. Groups (3, 4), field number 0,
//! overlong varints and truncated fields are errors. The message decoders
//! (`conversation`, `steps`) reject field numbers they do not know.

/// One field's value on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32(u32),
}

impl<'a> Wire<'a> {
    pub fn type_name(&self) -> &'static str {
        match self {
            Wire::Varint(_) => "varint",
            Wire::Fixed64(_) => "fixed64",
            Wire::Bytes(_) => "length-delimited",
            Wire::Fixed32(_) => "fixed32",
        }
    }
}

/// Why bytes are not a protobuf message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

/// Iterates the fields of one message.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    pub fn new(buf: &'a [u8]) -> Fields<'a> {
        Fields { buf, pos: 0 }
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let mut value = 0u64;
        for i in 0..10 {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(WireError(format!("truncated varint at byte {}", self.pos)));
            };
            self.pos += 1;
            if i == 9 && b > 1 {
                return Err(WireError(format!("varint longer than 64 bits at byte {}", self.pos - 1)));
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(WireError(format!("varint longer than 10 bytes at byte {}", self.pos)))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let Some(end) = end else {
            return Err(WireError(format!("field of {n} bytes at byte {} runs past the end", self.pos)));
        };
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// The next `(field number, value)`, `None` at the end.
    pub fn next_field(&mut self) -> Result<Option<(u32, Wire<'a>)>, WireError> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let at = self.pos;
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 || number > u64::from(u32::MAX >> 3) {
            return Err(WireError(format!("field number {number} at byte {at}")));
        }
        let value = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Fixed64(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"))),
            2 => {
                let len = self.varint()?;
                let len = usize::try_from(len).map_err(|_| WireError(format!("length {len} at byte {at}")))?;
                Wire::Bytes(self.take(len)?)
            }
            5 => Wire::Fixed32(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes"))),
            t => return Err(WireError(format!("wire type {t} (field {number}) at byte {at}"))),
        };
        Ok(Some((number as u32, value)))
    }
}

/// Builds one message.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::default()
    }

    fn raw_varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u64) {
        self.raw_varint((u64::from(field) << 3) | wire);
    }

    pub fn varint(&mut self, field: u32, v: u64) -> &mut Writer {
        self.key(field, 0);
        self.raw_varint(v);
        self
    }

    pub fn bool(&mut self, field: u32, v: bool) -> &mut Writer {
        self.varint(field, u64::from(v))
    }

    pub fn fixed64(&mut self, field: u32, v: u64) -> &mut Writer {
        self.key(field, 1);
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Writer {
        self.key(field, 2);
        self.raw_varint(v.len() as u64);
        self.buf.extend_from_slice(v);
        self
    }

    pub fn string(&mut self, field: u32, v: &str) -> &mut Writer {
        self.bytes(field, v.as_bytes())
    }

    /// A field copied as it was read.
    pub fn field(&mut self, field: u32, v: Wire<'_>) -> &mut Writer {
        match v {
            Wire::Varint(x) => self.varint(field, x),
            Wire::Fixed64(x) => self.fixed64(field, x),
            Wire::Bytes(b) => self.bytes(field, b),
            Wire::Fixed32(x) => {
                self.key(field, 5);
                self.buf.extend_from_slice(&x.to_le_bytes());
                self
            }
        }
    }

    pub fn finish(&self) -> Vec<u8> {
        self.buf.clone()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8]) -> Result<Vec<(u32, Wire<'_>)>, WireError> {
        let mut f = Fields::new(bytes);
        let mut out = Vec::new();
        while let Some(x) = f.next_field()? {
            out.push(x);
        }
        Ok(out)
    }

    #[test]
    fn known_encodings() {
        // ToolCall{tool_call_id:"c"} = ca 03 01 63; ConversationStep{assistant_message{text:"a"}} = 0a 03 0a 01 61.
        assert_eq!(Writer::new().string(57, "c").finish(), [0xca, 0x03, 0x01, 0x63]);
        let inner = Writer::new().string(1, "a").finish();
        assert_eq!(Writer::new().bytes(1, &inner).finish(), [0x0a, 0x03, 0x0a, 0x01, 0x61]);
        let turn = [0x0a, 0x01, 0x75, 0x12, 0x01, 0x73, 0x1a, 0x01, 0x72, 0x22, 0x01, 0x65, 0x28, 0x01];
        let fields = all(&turn).unwrap();
        assert_eq!(fields.len(), 5);
        assert_eq!(fields[4], (5, Wire::Varint(1)));
        assert_eq!(fields[0], (1, Wire::Bytes(b"u")));
    }

    #[test]
    fn strict() {
        assert!(all(&[0x0a, 0x05, 0x61]).is_err()); // truncated bytes
        assert!(all(&[0x0b]).is_err()); // group start
        assert!(all(&[0x00, 0x01]).is_err()); // field 0
        assert!(all(&[0x08, 0xff]).is_err()); // truncated varint
        assert!(all(&[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]).is_err());
        let w = Writer::new().varint(3, u64::MAX).fixed64(4, 7).finish();
        assert_eq!(all(&w).unwrap(), vec![(3, Wire::Varint(u64::MAX)), (4, Wire::Fixed64(7))]);
    }
}
