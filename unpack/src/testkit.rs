//! Archives built byte by byte, hostile ones included (tar's and zip's own
//! writers refuse most of what the tests need): the hostile suite of this
//! crate's tests, the host's CLI tests and the fuzzers' seeds.

use std::io::Write;

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
        assert!(m.name.len() <= 100 && m.link.len() <= 100, "names fit the header");
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

/// One archive of the hostile suite: a name (with the format's extension)
/// and its bytes. None of them may escape the private dir or panic; each
/// gives a clear error or, for links, a safe result.
pub struct Case {
    pub name: &'static str,
    pub bytes: Vec<u8>,
    /// Whether opening it is refused (else: a safe result).
    pub refused: bool,
}

/// The hostile suite (the 100,000-entry and the gigabyte bomb cases take
/// seconds to build; `heavy` adds them).
pub fn hostile_suite(heavy: bool) -> Vec<Case> {
    use tar::EntryType;
    let case = |name, bytes, refused| Case { name, bytes, refused };
    let mut zip_bad_directory = zip(&[("a.jsonl", b"{}"), ("b.jsonl", b"{}")]);
    let end = zip_bad_directory.len() - 22;
    zip_bad_directory[end + 16..end + 20].copy_from_slice(&7u32.to_le_bytes());
    let big = gzip(&tar(&[file("big.jsonl", &noise(300_000))]));
    let mut cases = vec![
        case("zip-slip.tar", tar(&[file("ok.txt", b"1"), file("../../outside/slip", b"x")]), true),
        case("zip-slip.zip", zip(&[("../../outside/slip", b"x")]), true),
        case("absolute.tar", tar(&[file("/etc/evil", b"x")]), true),
        case(
            "symlink-passwd.tar",
            tar(&[link("passwd", EntryType::Symlink, "/etc/passwd"), file("a.txt", b"a")]),
            false,
        ),
        case("hardlink-out.tar", tar(&[link("hard", EntryType::Link, "/etc/passwd")]), true),
        case("device.tar", tar(&[special("dev/sda", EntryType::Block)]), true),
        case("fifo.tar", tar(&[special("pipe", EntryType::Fifo)]), true),
        case("escape-name.tar", tar(&[file("evil\n\x1b]0;pwned\x07.jsonl", b"x")]), true),
        case("duplicate.tar", tar(&[file("a.jsonl", b"1"), file("./a.jsonl", b"2")]), true),
        case("truncated.tgz", big[..big.len() / 2].to_vec(), true),
        case("bad-central-directory.zip", zip_bad_directory, true),
    ];
    if heavy {
        let members: Vec<Member> = (0..100_000).map(|i| file(&format!("d{}/f{i}", i % 100), b"")).collect();
        cases.push(case("many-empty.tgz", gzip(&tar(&members)), false));
        cases.push(case("bomb.tgz", zeros_bomb(), true));
    }
    cases
}

/// A gigabyte of zeros as one tar member, gzipped to about a megabyte.
pub fn zeros_bomb() -> Vec<u8> {
    use std::io::Read;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    {
        let mut builder = tar::Builder::new(&mut encoder);
        let mut header = tar::Header::new_gnu();
        header.set_size(1 << 30);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, "zeros.jsonl", std::io::repeat(0).take(1 << 30)).unwrap();
        builder.finish().unwrap();
    }
    encoder.finish().unwrap()
}

/// Bytes that do not compress: a truncation lands inside the data.
pub fn noise(len: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// The fuzz target's invariants for one input (also replayed by the tests):
/// an error, or a tree of plain files and directories inside the private
/// dir; either way nothing left behind. Panics on a violation.
pub fn check(data: &[u8]) {
    let scratch = tempfile::tempdir().unwrap();
    let input = scratch.path().join("input");
    std::fs::write(&input, data).unwrap();
    let parent = scratch.path().join("parent");
    std::fs::create_dir(&parent).unwrap();
    // Small limits: a bomb is refused in milliseconds, not after gigabytes.
    let limits =
        crate::Limits { max_total_bytes: 64 << 20, ratio_floor: 1 << 20, max_entries: 20_000, ..Default::default() };
    if let Ok(unpacked) = crate::unpack_in(&input, &limits, &parent) {
        assert!(unpacked.bytes() <= limits.max_total_bytes);
        assert_plain_tree(unpacked.dir());
        let home = unpacked.find_home(&[".claude", ".codex"]);
        assert!(home.starts_with(unpacked.dir()));
    }
    assert_eq!(std::fs::read_dir(&parent).unwrap().count(), 0, "the private dir is removed");
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 2, "nothing is made beside it");
}

fn assert_plain_tree(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        assert!(!kind.is_symlink(), "a link was created: {}", entry.path().display());
        if kind.is_dir() {
            assert_plain_tree(&entry.path());
        } else {
            assert!(kind.is_file(), "not a plain file: {}", entry.path().display());
        }
    }
}
