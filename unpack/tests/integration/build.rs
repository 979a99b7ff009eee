//! Archives built byte by byte, hostile ones included (tar's and zip's own
//! writers refuse most of what these tests need).

use std::io::Write;
use std::path::{Path, PathBuf};

/// A tar member: name, type flag, content, link target.
pub struct Member {
    pub name: Vec<u8>,
    pub kind: tar::EntryType,
    pub data: Vec<u8>,
    pub link: Vec<u8>,
}

pub fn file(name: &str, data: &[u8]) -> Member {
    Member { name: name.as_bytes().to_vec(), kind: tar::EntryType::Regular, data: data.to_vec(), link: vec![] }
}
pub fn dir(name: &str) -> Member {
    Member { name: name.as_bytes().to_vec(), kind: tar::EntryType::Directory, data: vec![], link: vec![] }
}
pub fn link(name: &str, kind: tar::EntryType, target: &str) -> Member {
    Member { name: name.as_bytes().to_vec(), kind, data: vec![], link: target.as_bytes().to_vec() }
}
pub fn special(name: &str, kind: tar::EntryType) -> Member {
    Member { name: name.as_bytes().to_vec(), kind, data: vec![], link: vec![] }
}

/// A tar stream; names up to 100 bytes go in the header as given.
pub fn tar(members: &[Member]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for m in members {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(m.kind);
        header.set_size(m.data.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(1_700_000_000);
        let old = header.as_old_mut();
        assert!(m.name.len() <= 100, "test names fit the header");
        old.name[..m.name.len()].copy_from_slice(&m.name);
        old.linkname[..m.link.len()].copy_from_slice(&m.link);
        header.set_cksum();
        builder.append(&header, m.data.as_slice()).unwrap();
    }
    builder.into_inner().unwrap()
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

pub fn zstd(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

/// A zip of (name, content) files.
pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in files {
        writer.start_file(*name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// A scratch place: `parent` receives the private dirs, `outside` must stay empty.
pub struct Scratch {
    pub root: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("parent")).unwrap();
        std::fs::create_dir(root.path().join("outside")).unwrap();
        Scratch { root }
    }
    pub fn parent(&self) -> PathBuf {
        self.root.path().join("parent")
    }
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.root.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
    /// Every path under the scratch root except the archives written there
    /// and the (removed) private dirs.
    pub fn stray_files(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        walk(self.root.path(), &mut found);
        found.retain(|p| {
            let top = p.strip_prefix(self.root.path()).unwrap();
            let first = top.components().next().unwrap().as_os_str().to_str().unwrap().to_string();
            !(first == "parent" && top.components().count() == 1)
                && !(first == "outside" && top.components().count() == 1)
                && !(top.components().count() == 1 && p.is_file())
        });
        found
    }
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        found.push(path.clone());
        if path.is_dir() && !path.is_symlink() {
            walk(&path, found);
        }
    }
}
