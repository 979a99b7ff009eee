use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::UnpackError;

/// An archive format, told by content (the name is only a tie-breaker for
/// tar, whose old form has no magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Tar,
    TarGz,
    TarZst,
    Zip,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Tar => "tar",
            Format::TarGz => "tar.gz",
            Format::TarZst => "tar.zst",
            Format::Zip => "zip",
        }
    }
}

/// The format of an archive from its first 512 bytes, if it is one.
pub fn sniff(head: &[u8]) -> Option<Format> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Format::TarGz)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Format::TarZst)
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(Format::Zip)
    } else if head.len() >= 512 && (&head[257..262] == b"ustar" || tar_checksum_matches(head)) {
        Some(Format::Tar)
    } else {
        None
    }
}

/// A v7 tar header (no `ustar` magic) still carries its checksum.
fn tar_checksum_matches(head: &[u8]) -> bool {
    let field = &head[148..156];
    let text: String = field.iter().take_while(|b| **b != 0 && **b != b' ').map(|b| *b as char).collect();
    let Ok(expected) = u32::from_str_radix(text.trim(), 8) else { return false };
    let sum: u32 =
        head[..512].iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { 32 } else { *b as u32 }).sum();
    sum == expected && head[..100].iter().any(|b| *b != 0)
}

pub(crate) fn sniff_file(file: &mut File, path: &Path) -> Result<Option<Format>, UnpackError> {
    let mut head = Vec::with_capacity(512);
    file.by_ref().take(512).read_to_end(&mut head).map_err(|e| UnpackError::io(path, e))?;
    file.seek(SeekFrom::Start(0)).map_err(|e| UnpackError::io(path, e))?;
    Ok(sniff(&head))
}

/// Whether the file at `path` is an archive by its content.
pub fn is_archive(path: &Path) -> bool {
    File::open(path).ok().and_then(|mut f| sniff_file(&mut f, path).ok().flatten()).is_some()
}
