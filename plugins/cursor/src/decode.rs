//! Strict decoding helpers shared by the message decoders: every error names
//! the message type, the field, the blob and the file.

use trajhost_codec_sdk::CodecError;

use crate::wire::{Fields, Wire, WireError};

/// Where a message was read from.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The blob's id (hex).
    pub blob: &'a str,
    pub file: &'a str,
}

/// One message type being decoded in a context.
#[derive(Clone, Copy)]
pub struct Msg<'a> {
    pub ctx: Ctx<'a>,
    pub name: &'static str,
}

impl<'a> Msg<'a> {
    pub fn new(ctx: Ctx<'a>, name: &'static str) -> Msg<'a> {
        Msg { ctx, name }
    }

    fn err(&self, what: String) -> CodecError {
        CodecError::Malformed(format!("{}: {} in {} (blob {})", self.ctx.file, what, self.name, self.ctx.blob))
    }

    pub fn wire(&self, e: WireError) -> CodecError {
        self.err(format!("not a protobuf message ({})", e.0))
    }

    pub fn unknown(&self, field: u32, w: &Wire<'_>) -> CodecError {
        self.err(format!("unknown field {field} ({})", w.type_name()))
    }

    pub fn wrong(&self, field: u32, w: &Wire<'_>, want: &str) -> CodecError {
        self.err(format!("field {field} is {}, expected {want}", w.type_name()))
    }

    /// Every field of `buf`, in order.
    pub fn fields<'b>(&self, buf: &'b [u8]) -> Result<Vec<(u32, Wire<'b>)>, CodecError> {
        let mut it = Fields::new(buf);
        let mut out = Vec::new();
        while let Some(f) = it.next_field().map_err(|e| self.wire(e))? {
            out.push(f);
        }
        Ok(out)
    }

    pub fn bytes<'b>(&self, field: u32, w: &Wire<'b>) -> Result<&'b [u8], CodecError> {
        match w {
            Wire::Bytes(b) => Ok(b),
            _ => Err(self.wrong(field, w, "length-delimited")),
        }
    }

    pub fn string(&self, field: u32, w: &Wire<'_>) -> Result<String, CodecError> {
        let b = self.bytes(field, w)?;
        String::from_utf8(b.to_vec()).map_err(|_| self.err(format!("field {field} is not UTF-8")))
    }

    pub fn varint(&self, field: u32, w: &Wire<'_>) -> Result<u64, CodecError> {
        match w {
            Wire::Varint(v) => Ok(*v),
            _ => Err(self.wrong(field, w, "varint")),
        }
    }

    pub fn double(&self, field: u32, w: &Wire<'_>) -> Result<f64, CodecError> {
        match w {
            Wire::Fixed64(v) => Ok(f64::from_bits(*v)),
            _ => Err(self.wrong(field, w, "fixed64 (double)")),
        }
    }

    /// A 32-byte blob id.
    pub fn blob_id(&self, field: u32, w: &Wire<'_>) -> Result<[u8; 32], CodecError> {
        let b = self.bytes(field, w)?;
        b.try_into().map_err(|_| self.err(format!("field {field} is a blob id of {} bytes, not 32", b.len())))
    }

    /// A message nested in `field`, decoded as `name`.
    pub fn nested(&self, name: &'static str) -> Msg<'a> {
        Msg { ctx: self.ctx, name }
    }
}
