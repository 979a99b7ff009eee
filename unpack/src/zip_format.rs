//! zip: the central directory lists the members; each is read through its
//! own decompressor, its bytes counted as written.

use std::fs::File;
use std::time::SystemTime;

use crate::UnpackError;
use crate::sink::{Member, Sink};

/// Unix file types, from the high bits of a zip's external attributes.
const S_IFMT: u32 = 0o170000;
const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;
const S_IFCHR: u32 = 0o020000;
const S_IFBLK: u32 = 0o060000;
const S_IFIFO: u32 = 0o010000;
const S_IFSOCK: u32 = 0o140000;

pub(crate) fn unpack(file: File, sink: &mut Sink<'_>) -> Result<(), UnpackError> {
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut archive = zip::ZipArchive::new(file).map_err(|e| sink.corrupt(size, format!("central directory: {e}")))?;
    for index in 0..archive.len() {
        let mut entry = match archive.by_index(index) {
            Ok(entry) => entry,
            Err(e) => return Err(sink.corrupt(sink.read.get(), format!("member {}: {e}", index + 1))),
        };
        let offset = entry.header_start();
        // Bytes of the archive this member may read: the ratio's denominator.
        sink.read.set(sink.read.get() + entry.compressed_size() + 30 + entry.name_raw().len() as u64);
        let name = entry.name_raw().to_vec();
        let mtime = entry.last_modified().and_then(dos_time);
        let mode = entry.unix_mode().unwrap_or(0);
        let member = match mode & S_IFMT {
            S_IFLNK => {
                let mut target = Vec::new();
                // A link's target is its content; a long one is not a link.
                std::io::Read::read_to_end(&mut std::io::Read::take(&mut entry, 4096), &mut target)
                    .map_err(|e| sink.corrupt(offset, e))?;
                Member::Symlink(String::from_utf8_lossy(&target).into_owned())
            }
            S_IFCHR => Member::Special("character device"),
            S_IFBLK => Member::Special("block device"),
            S_IFIFO => Member::Special("FIFO"),
            S_IFSOCK => Member::Special("socket"),
            S_IFDIR => Member::Dir,
            _ if entry.is_dir() => Member::Dir,
            0 | S_IFREG => Member::File(&mut entry),
            other => Member::Unsupported(format!("unix mode {other:o}")),
        };
        sink.add(&name, member, mtime, offset)?;
    }
    Ok(())
}

/// A zip's DOS date and time (local, no zone: read as UTC).
fn dos_time(t: zip::DateTime) -> Option<SystemTime> {
    let (y, m, d) = (t.year() as i64, t.month() as i64, t.day() as i64);
    if !(1..=12).contains(&m) || d < 1 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    let secs = days * 86400 + t.hour() as i64 * 3600 + t.minute() as i64 * 60 + t.second() as i64;
    u64::try_from(secs).ok().map(|s| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(s))
}
