//! Native lines made one at a time and handed back as artifact pieces.

use serde::Serialize;

use crate::{Artifact, CodecError};

/// One native line of `value`, without its `\n`.
///
/// The native shapes writers serialize have string keys only, so this
/// cannot fail; a failure is a bug in the shape, hence the panic.
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("a native line serializes")
}

/// `lines`, each followed by `\n`: a JSON-lines file.
pub fn join_lines<S: AsRef<str>>(lines: impl IntoIterator<Item = S>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line.as_ref().as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

/// A whole-document format (one JSON value, pretty-printed as the harness
/// writes it), for the writers that can only emit at `finish`.
pub fn json_document<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CodecError> {
    serde_json::to_vec_pretty(value).map_err(|e| CodecError::Other(format!("serializing the session document: {e}")))
}

/// `value` as Python's `json.dumps` writes it by default (`", "` and `": "`
/// separators, every non-ASCII character as a `\\uXXXX` escape, surrogate
/// pairs beyond the BMP): for harnesses written in Python whose stores keep
/// that text (a column, a line) and compare or re-parse it as such. Empty
/// when `value` does not serialize.
pub fn python_json(value: &(impl Serialize + ?Sized)) -> Vec<u8> {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
            w.write_all(b": ")
        }
        fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, s: &str) -> std::io::Result<()> {
            let mut plain = 0;
            for (i, c) in s.char_indices() {
                if !c.is_ascii() {
                    w.write_all(&s.as_bytes()[plain..i])?;
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        write!(w, "\\u{unit:04x}")?;
                    }
                    plain = i + c.len_utf8();
                }
            }
            w.write_all(&s.as_bytes()[plain..])
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    if value.serialize(&mut ser).is_err() {
        out.clear();
    }
    out
}

/// A JSON-lines artifact assembled line by line.
///
/// Streaming writers hand back what they made at the end of every push, so
/// memory follows one batch rather than the whole session; pieces of one
/// path are appended by the host in order. The path may be unknown when
/// the first lines are made (it often holds the session id or start), so it
/// can be set later, before the first [`take_chunks`](Self::take_chunks).
#[derive(Debug, Default, Clone)]
pub struct JsonlAssembler {
    path: String,
    pending: Vec<u8>,
    lines: u64,
}

impl JsonlAssembler {
    /// An assembler for the artifact at `path`.
    pub fn new(path: impl Into<String>) -> JsonlAssembler {
        JsonlAssembler { path: path.into(), pending: Vec::new(), lines: 0 }
    }

    /// Names the artifact once its path is known.
    pub fn set_path(&mut self, path: impl Into<String>) {
        self.path = path.into();
    }

    /// The artifact's path (empty until set).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Appends `value` as one line.
    pub fn push<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Serializing into the buffer itself saves a copy per line.
        serde_json::to_writer(&mut self.pending, value).expect("a native line serializes");
        self.end_line();
    }

    /// Appends a line already serialized (without its `\n`).
    pub fn push_line(&mut self, line: &str) {
        self.pending.extend_from_slice(line.as_bytes());
        self.end_line();
    }

    fn end_line(&mut self) {
        self.pending.push(b'\n');
        self.lines += 1;
    }

    /// Lines appended so far, handed back or not.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Whether nothing waits to be handed back.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The bytes not handed back yet (to look at, e.g. to size a header).
    pub fn pending(&self) -> &[u8] {
        &self.pending
    }

    /// The lines made since the last call, as one piece (none when there are
    /// none).
    pub fn take_chunks(&mut self) -> Vec<Artifact> {
        self.take_chunk().into_iter().collect()
    }

    /// As [`take_chunks`](Self::take_chunks), for writers that gather pieces
    /// of several files.
    pub fn take_chunk(&mut self) -> Option<Artifact> {
        if self.pending.is_empty() {
            return None;
        }
        Some(Artifact { path: self.path.clone(), bytes: std::mem::take(&mut self.pending) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_back_lines_once_under_a_late_path() {
        let mut out = JsonlAssembler::default();
        out.push(&serde_json::json!({"a": 1}));
        out.push_line("{\"b\":2}");
        out.set_path("s/x.jsonl");
        let chunks = out.take_chunks();
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].path, "s/x.jsonl");
        assert_eq!(chunks[0].bytes, b"{\"a\":1}\n{\"b\":2}\n");
        assert!(out.take_chunks().is_empty());
        assert_eq!(out.lines(), 2);
        assert_eq!(join_lines(["x", "y"]), b"x\ny\n");
        assert_eq!(json_line(&serde_json::json!([1])), "[1]");
        let python = python_json(&serde_json::json!({"a": [1, 2], "b": "é😀"}));
        assert_eq!(String::from_utf8(python).unwrap(), r#"{"a": [1, 2], "b": "\u00e9\ud83d\ude00"}"#);
    }
}
