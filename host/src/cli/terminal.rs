//! Text from someone's session, made safe to print on a terminal.
//!
//! Titles, paths, cwd and transcript text come from files the user may have
//! been sent. ANSI and OSC sequences start with a control character (ESC,
//! CSI U+009B, OSC U+009D, BEL ends one), so escaping every control
//! character keeps a session from moving the cursor, retitling the window
//! or writing to the clipboard. JSON output is never passed through here:
//! it stays exact.

use std::borrow::Cow;
use std::io::{self, Write};

/// Multi-line text: newline and tab pass, every other control character is
/// shown escaped (`\u{1b}`).
pub fn safe_text(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// One field of a line (an id, a cwd, a title): newlines and tabs are
/// escaped too, so a field cannot fake another row.
pub fn safe_field(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

/// `text` with every control character for which `keep` is false escaped.
pub fn escape(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && !keep(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that escapes control characters (other than newline and tab)
/// in everything written through it: the text output of a command goes
/// through one, whatever formatted it.
pub struct SafeWriter<W: Write> {
    inner: W,
    /// A lead byte 0xC2 at the end of the last write: whether it starts a C1
    /// control depends on the next byte.
    pending_c2: bool,
}

impl<W: Write> SafeWriter<W> {
    pub fn new(inner: W) -> Self {
        SafeWriter { inner, pending_c2: false }
    }
}

impl<W: Write> Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len() + 8);
        let mut bytes = buf.iter().copied().peekable();
        if std::mem::take(&mut self.pending_c2) {
            match bytes.peek() {
                Some(&b @ 0x80..=0x9f) => {
                    bytes.next();
                    out.extend_from_slice(format!("\\u{{{b:x}}}").as_bytes());
                }
                _ => out.push(0xc2),
            }
        }
        while let Some(b) = bytes.next() {
            match b {
                b'\n' | b'\t' => out.push(b),
                0x00..=0x1f | 0x7f => out.extend_from_slice(format!("\\u{{{b:x}}}").as_bytes()),
                // U+0080..U+009F (C1 controls) are 0xC2 0x80..0x9F in UTF-8.
                0xc2 => match bytes.peek() {
                    Some(&next @ 0x80..=0x9f) => {
                        bytes.next();
                        out.extend_from_slice(format!("\\u{{{next:x}}}").as_bytes());
                    }
                    Some(_) => out.push(b),
                    None => self.pending_c2 = true,
                },
                _ => out.push(b),
            }
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.pending_c2) {
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for SafeWriter<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_text_escape_controls() {
        assert_eq!(safe_field("a\u{1b}]0;pwned\u{7}b\nc"), "a\\u{1b}]0;pwned\\u{7}b\\u{a}c");
        assert_eq!(safe_text("line\n\ttab\u{9b}31m"), "line\n\ttab\\u{9b}31m");
        assert!(matches!(safe_text("plain — ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn the_writer_escapes_across_write_boundaries() {
        let mut out = Vec::new();
        {
            let mut w = SafeWriter::new(&mut out);
            w.write_all(b"x\x1b[2J\n").unwrap();
            // U+009B split over two writes, then a C2 that is not a control.
            w.write_all(b"a\xc2").unwrap();
            w.write_all(b"\x9bb\xc2").unwrap();
            w.write_all("\u{a9}".as_bytes()[1..].as_ref()).unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "x\\u{1b}[2J\na\\u{9b}b\u{a9}");
    }
}
