//! Reading session facts from the start (and end) of a JSON-lines file
//! without reading it all, as `discover` needs them: the head is read in
//! steps of [`HEAD_STEP`] until the codec has what it wants or
//! [`HEAD_MAX`] bytes were read; the tail, for facts written late (titles,
//! summaries), is the last [`TAIL_BYTES`].

use crate::fs::{File, FsError};

/// Bytes read per step of the head read.
pub const HEAD_STEP: u32 = 64 * 1024;
/// How far the head read goes at most (a huge first line, an attachment).
pub const HEAD_MAX: u64 = 1 << 20;
/// Bytes read from the end of a larger file.
pub const TAIL_BYTES: u32 = 64 * 1024;

/// What a codec's head parser takes.
pub trait HeadLines {
    /// One line (without its `\n`; a `\r` before it is kept), at file
    /// `offset`, `len` bytes on disk with the terminator.
    fn line(&mut self, bytes: &[u8], offset: u64, len: u64);
    /// True once the head says all the codec wants; checked after each
    /// step, so every complete line of a step is fed.
    fn enough(&self) -> bool;
}

/// How far a head read went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadRead {
    /// Bytes of complete lines fed: where a tail read may start.
    pub consumed: u64,
    /// The whole file was read (its unterminated last line, if any, was fed
    /// too): there is no tail to read.
    pub whole: bool,
}

/// Feeds the lines at the start of `file` to `sink`, step by step, until
/// `sink.enough()`, the file ends or `max` bytes were read.
pub fn read_head(file: &File, max: u64, sink: &mut impl HeadLines) -> Result<HeadRead, FsError> {
    let size = file.size();
    let mut buf = file.read_at(0, HEAD_STEP)?;
    let mut done = 0;
    loop {
        done += feed(&buf[done..], done as u64, sink);
        if buf.len() as u64 >= size {
            // A last line without `\n` still counts.
            if done < buf.len() {
                sink.line(&buf[done..], done as u64, (buf.len() - done) as u64);
            }
            return Ok(HeadRead { consumed: done as u64, whole: true });
        }
        if sink.enough() || buf.len() as u64 >= max {
            return Ok(HeadRead { consumed: done as u64, whole: false });
        }
        let more = file.read_at(buf.len() as u64, HEAD_STEP)?;
        if more.is_empty() {
            // The file shrank under us: what was read is all there is.
            return Ok(HeadRead { consumed: done as u64, whole: true });
        }
        buf.extend_from_slice(&more);
    }
}

/// Feeds the complete lines of `buf` (at file offset `base`); returns the
/// bytes consumed.
fn feed(buf: &[u8], base: u64, sink: &mut impl HeadLines) -> usize {
    let mut pos = 0;
    while let Some(i) = memchr::memchr(b'\n', &buf[pos..]) {
        sink.line(&buf[pos..pos + i], base + pos as u64, (i + 1) as u64);
        pos += i + 1;
    }
    pos
}

/// Calls `line` with each line of the last [`TAIL_BYTES`] of `file` that
/// lies wholly after `after` (a head read's `consumed`): a line cut by the
/// tail's start is skipped. Nothing when the head reached the end.
pub fn read_tail(file: &File, after: u64, mut line: impl FnMut(&[u8])) -> Result<(), FsError> {
    let size = file.size();
    let start = size.saturating_sub(u64::from(TAIL_BYTES)).max(after);
    if start >= size {
        return Ok(());
    }
    // From one byte before the start: it tells whether the start begins a line.
    let from = start.saturating_sub(1).max(after);
    let tail = file.read_at(from, TAIL_BYTES + 1)?;
    let skip = if from == after { 0 } else { memchr::memchr(b'\n', &tail).map_or(tail.len(), |i| i + 1) };
    for l in tail[skip..].split(|&b| b == b'\n') {
        line(l);
    }
    Ok(())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::fs::Dir;

    #[derive(Default)]
    struct Lines {
        seen: Vec<(String, u64, u64)>,
        want: usize,
    }

    impl HeadLines for Lines {
        fn line(&mut self, bytes: &[u8], offset: u64, len: u64) {
            self.seen.push((String::from_utf8_lossy(bytes).into_owned(), offset, len));
        }
        fn enough(&self) -> bool {
            self.want > 0 && self.seen.len() >= self.want
        }
    }

    fn file(bytes: &[u8]) -> (tempfile::TempDir, File) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), bytes).unwrap();
        let file = Dir::native(dir.path()).open("f").unwrap();
        (dir, file)
    }

    #[test]
    fn a_small_file_is_read_whole_with_its_unterminated_tail() {
        let (_dir, f) = file(b"{\"a\":1}\r\n\n{\"b\":2}");
        let mut lines = Lines::default();
        let read = read_head(&f, HEAD_MAX, &mut lines).unwrap();
        assert_eq!(read, HeadRead { consumed: 10, whole: true });
        let seen: Vec<_> = lines.seen.iter().map(|(s, o, l)| (s.as_str(), *o, *l)).collect();
        assert_eq!(seen, [("{\"a\":1}\r", 0, 9), ("", 9, 1), ("{\"b\":2}", 10, 7)]);
    }

    #[test]
    fn stops_after_the_step_that_was_enough_and_reads_the_tail_after_it() {
        let line = format!("{}\n", "x".repeat(999));
        let body = line.repeat(300); // 300 KB of 1000-byte lines
        let (_dir, f) = file(body.as_bytes());
        let mut lines = Lines { want: 1, ..Lines::default() };
        let read = read_head(&f, HEAD_MAX, &mut lines).unwrap();
        assert!(!read.whole);
        assert_eq!(lines.seen.len(), 65, "every complete line of the first 64 KiB step");
        assert_eq!(read.consumed, 65_000);
        let mut tail = Vec::new();
        read_tail(&f, read.consumed, |l| tail.push(l.len())).unwrap();
        // 64 KiB from the end cuts a line: it is skipped; the last split is empty.
        assert_eq!(tail.iter().filter(|n| **n == 999).count(), 65);
        assert_eq!(tail.last(), Some(&0));
        assert!(tail.iter().all(|n| *n == 999 || *n == 0), "no cut line");
    }

    #[test]
    fn the_head_grows_until_max_for_a_long_first_line() {
        let body = format!("{}\n{{}}\n", "y".repeat(200_000));
        let (_dir, f) = file(body.as_bytes());
        let mut lines = Lines { want: 1, ..Lines::default() };
        let read = read_head(&f, 128 * 1024, &mut lines).unwrap();
        assert_eq!(read, HeadRead { consumed: 0, whole: false }, "max reached before the first \\n");
        let mut lines = Lines { want: 1, ..Lines::default() };
        let read = read_head(&f, HEAD_MAX, &mut lines).unwrap();
        assert_eq!(lines.seen[0].2, 200_001);
        assert!(read.whole);
    }
}
