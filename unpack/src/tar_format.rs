//! tar, tar.gz and tar.zst: one stream, read once, in order.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::rc::Rc;
use std::time::{Duration, SystemTime};

use tar::EntryType;

use crate::sink::{Member, Sink};
use crate::{Format, UnpackError};

/// Counts the archive's bytes as the decoder reads them: the offset in
/// errors, and the denominator of the compression ratio.
struct Counting<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

pub(crate) fn unpack(file: File, format: Format, sink: &mut Sink<'_>) -> Result<(), UnpackError> {
    let raw = BufReader::with_capacity(64 << 10, Counting { inner: file, read: sink.read.clone() });
    let stream: Box<dyn Read> = match format {
        Format::Tar => Box::new(raw),
        Format::TarGz => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
        Format::TarZst => match ruzstd::decoding::StreamingDecoder::new(raw) {
            Ok(decoder) => Box::new(decoder),
            Err(e) => return Err(sink.corrupt(0, format!("zstd frame: {e}"))),
        },
        Format::Zip => unreachable!("zip is read by zip_format"),
    };
    let mut archive = tar::Archive::new(stream);
    let entries = archive.entries().map_err(|e| sink.corrupt(sink.read.get(), e))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| sink.corrupt(sink.read.get(), format!("tar header: {e}")))?;
        let offset = if format == Format::Tar { entry.raw_header_position() } else { sink.read.get() };
        let name = entry.path_bytes().into_owned();
        let header = entry.header();
        let mtime = header.mtime().ok().map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        let kind = header.entry_type();
        let link = entry.link_name_bytes().map(|l| l.into_owned());
        let member = match kind {
            EntryType::Regular | EntryType::Continuous => Member::File(&mut entry),
            EntryType::Directory => Member::Dir,
            EntryType::Symlink => Member::Symlink(String::from_utf8_lossy(&link.unwrap_or_default()).into_owned()),
            EntryType::Link => Member::HardLink(link.unwrap_or_default()),
            EntryType::Char => Member::Special("character device"),
            EntryType::Block => Member::Special("block device"),
            EntryType::Fifo => Member::Special("FIFO"),
            EntryType::XGlobalHeader => Member::Metadata("pax global header"),
            other => Member::Unsupported(format!("{other:?}")),
        };
        sink.add(&name, member, mtime, offset)?;
    }
    drop(archive);
    Ok(())
}
