//! A JSON-lines reader over the fs capability.
//!
//! It reads the file in chunks, hands out one line at a time with its byte
//! offset (so every canonical record can point at its raw bytes), and keeps
//! memory bounded by the longest line, not the file.

use crate::fs::{Dir, File, FsError, READ_CHUNK};

/// One line of a JSON-lines file, without its `\n` (and `\r`).
#[derive(Debug)]
pub struct Line<'a> {
    /// Byte offset of the line's first byte in the file.
    pub offset: u64,
    /// Length on disk including the line terminator.
    pub len: u64,
    pub bytes: &'a [u8],
    /// False for a last line with no `\n`: the tail of a file that may still
    /// be being written.
    pub terminated: bool,
}

/// What an unparseable line is: a torn tail (the unterminated last line of a
/// live file, expected and harmless) or corruption inside the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadLine {
    TornTail,
    Corrupt,
}

impl BadLine {
    /// Classifies a line that failed to parse.
    pub fn of(line: &Line<'_>) -> BadLine {
        if line.terminated { BadLine::Corrupt } else { BadLine::TornTail }
    }

    /// The stable diagnostic code.
    pub fn code(self) -> &'static str {
        match self {
            BadLine::TornTail => "torn-tail",
            BadLine::Corrupt => "malformed-line",
        }
    }

    /// How bad it is: a torn tail is a warning (a live file mid-write: the
    /// next read may find the line whole), a corrupt line an error (the
    /// record it held is lost).
    pub fn severity(self) -> crate::Severity {
        match self {
            BadLine::TornTail => crate::Severity::Warning,
            BadLine::Corrupt => crate::Severity::Error,
        }
    }
}

/// A line of a document held whole: where it starts, its length with its
/// newline, and its bytes without it.
#[derive(Debug, Clone, Copy)]
pub struct WholeLine<'a> {
    pub offset: u64,
    pub len: u64,
    pub bytes: &'a [u8],
}

/// The lines of a document held whole that are not blank, in order.
pub fn non_blank_lines(bytes: &[u8]) -> impl Iterator<Item = WholeLine<'_>> {
    let mut offset = 0u64;
    bytes.split_inclusive(|&b| b == b'\n').filter_map(move |raw| {
        let at = offset;
        offset += raw.len() as u64;
        let line = raw.strip_suffix(b"\n").unwrap_or(raw);
        (!line.iter().all(u8::is_ascii_whitespace)).then_some(WholeLine {
            offset: at,
            len: raw.len() as u64,
            bytes: line,
        })
    })
}

/// Opens a side file a reader indexes beside the session (a wire, an update
/// journal): `None` when it is missing (an empty index), or when it cannot
/// be opened, which is then an `unreadable-file` warning.
pub fn open_side(home: &Dir, path: &str, diags: &mut crate::diag::Diagnostics) -> Option<JsonLines> {
    match JsonLines::open(home, path) {
        Ok(lines) => Some(lines),
        Err(FsError::NotFound(_)) => None,
        Err(e) => {
            diags.add("unreadable-file", crate::Severity::Warning, crate::errors::fs_kind(&e), Some(path), None);
            None
        }
    }
}

/// The next line of a side file `path` opened with [`open_side`]: `None` at
/// its end, or at a read error, which is then an `unreadable-file` warning.
pub fn next_side_line<'a>(
    lines: &'a mut JsonLines,
    path: &str,
    diags: &mut crate::diag::Diagnostics,
) -> Option<Line<'a>> {
    match lines.next_line()? {
        Ok(line) => Some(line),
        Err(e) => {
            diags.add("unreadable-file", crate::Severity::Warning, crate::errors::fs_kind(&e), Some(path), None);
            None
        }
    }
}

/// Reports a line of `file` that is not the JSON expected (`what`): a torn
/// tail is a warning, any other an error, at the line's offset.
pub fn report_bad_line(diags: &mut crate::diag::Diagnostics, line: &Line<'_>, what: &str, file: &str) {
    let bad = BadLine::of(line);
    diags.add(bad.code(), bad.severity(), what, Some(file), Some(line.offset));
}

/// Streams the lines of one file.
pub struct JsonLines {
    file: File,
    path: String,
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    buf_offset: u64,
    /// Next unread position in `buf`.
    pos: usize,
    eof: bool,
    chunk: u32,
}

impl JsonLines {
    /// Opens `path` under `dir`.
    pub fn open(dir: &Dir, path: &str) -> Result<JsonLines, FsError> {
        Ok(JsonLines::new(dir.open(path)?, path))
    }

    /// Reads an already open file; `path` is what records and diagnostics name.
    pub fn new(file: File, path: &str) -> JsonLines {
        JsonLines {
            file,
            path: path.to_string(),
            buf: Vec::new(),
            buf_offset: 0,
            pos: 0,
            eof: false,
            chunk: READ_CHUNK,
        }
    }

    /// Starts at byte `offset` (which should be a line start).
    pub fn seek(&mut self, offset: u64) {
        self.buf.clear();
        self.buf_offset = offset;
        self.pos = 0;
        self.eof = false;
    }

    /// The path given at open.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// File offset of the next line.
    pub fn position(&self) -> u64 {
        self.buf_offset + self.pos as u64
    }

    /// The next line, or `None` at end of file. Empty lines are skipped.
    pub fn next_line(&mut self) -> Option<Result<Line<'_>, FsError>> {
        let (start, end, terminator, terminated) = loop {
            let unread = &self.buf[self.pos..];
            if let Some(i) = memchr::memchr(b'\n', unread) {
                let start = self.pos;
                self.pos += i + 1;
                let cr = usize::from(i > 0 && unread[i - 1] == b'\r');
                if i - cr == 0 {
                    continue;
                }
                break (start, start + i - cr, 1 + cr, true);
            }
            if self.eof {
                if unread.iter().all(u8::is_ascii_whitespace) {
                    self.pos = self.buf.len();
                    return None;
                }
                let start = self.pos;
                self.pos = self.buf.len();
                break (start, self.buf.len(), 0, false);
            }
            if let Err(error) = self.fill() {
                self.eof = true;
                return Some(Err(error));
            }
        };
        Some(Ok(Line {
            offset: self.buf_offset + start as u64,
            len: (end - start + terminator) as u64,
            bytes: &self.buf[start..end],
            terminated,
        }))
    }

    /// Drops consumed bytes and appends the next chunk.
    fn fill(&mut self) -> Result<(), FsError> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos.., 0);
            self.buf.truncate(self.buf.len() - self.pos);
            self.buf_offset += self.pos as u64;
            self.pos = 0;
        }
        let chunk = self.file.read_at(self.buf_offset + self.buf.len() as u64, self.chunk)?;
        if chunk.is_empty() {
            self.eof = true;
        } else {
            self.buf.extend_from_slice(&chunk);
        }
        Ok(())
    }
}
