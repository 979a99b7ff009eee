use std::time::{Duration, SystemTime};

use trajhost_unpack::{Format, Limits, find_home, split_member, unpack_in};

use crate::build::{self, Scratch};

fn claude_home() -> Vec<build::Member> {
    vec![
        build::dir("home/"),
        build::dir("home/.claude/"),
        build::file("home/.claude/projects/-w/a.jsonl", b"{\"type\":\"user\"}\n"),
        build::file("home/.claude/settings.json", b"{}"),
        build::file("home/notes.txt", b"hello"),
    ]
}

#[test]
fn each_format_unpacks_the_same_tree() {
    let scratch = Scratch::new();
    let tar = build::tar(&claude_home());
    let archives = [
        ("a.tar", tar.clone(), Format::Tar),
        ("a.tgz", build::gzip(&tar), Format::TarGz),
        ("a.tar.zst", build::zstd(&tar), Format::TarZst),
        (
            "a.zip",
            build::zip(&[
                ("home/.claude/projects/-w/a.jsonl", b"{\"type\":\"user\"}\n"),
                ("home/.claude/settings.json", b"{}"),
                ("home/notes.txt", b"hello"),
            ]),
            Format::Zip,
        ),
    ];
    for (name, bytes, format) in archives {
        let path = scratch.write(name, &bytes);
        let unpacked = unpack_in(&path, &Limits::default(), &scratch.parent()).unwrap();
        assert_eq!(unpacked.format(), format, "{name}");
        let session = unpacked.dir().join("home/.claude/projects/-w/a.jsonl");
        assert_eq!(std::fs::read(&session).unwrap(), b"{\"type\":\"user\"}\n", "{name}");
        assert_eq!(unpacked.bytes(), 16 + 2 + 5, "{name}");
        assert_eq!(unpacked.find_home(&[".claude", ".codex"]), unpacked.dir().join("home"), "{name}");
        if format != Format::Zip {
            let modified = std::fs::metadata(&session).unwrap().modified().unwrap();
            assert_eq!(modified, SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000), "{name}");
        }
        let dir = unpacked.dir().to_path_buf();
        drop(unpacked);
        assert!(!dir.exists(), "{name}: the private dir is removed");
    }
    assert!(scratch.stray_files().is_empty(), "{:?}", scratch.stray_files());
}

#[test]
fn the_home_is_the_marker_folder_s_parent_or_the_single_top_folder() {
    let scratch = Scratch::new();
    let deep = build::tar(&[build::file("backup/2026/me/.codex/sessions/x.jsonl", b"{}")]);
    let unpacked = unpack_in(&scratch.write("deep.tar", &deep), &Limits::default(), &scratch.parent()).unwrap();
    assert_eq!(unpacked.find_home(&[".claude", ".codex"]), unpacked.dir().join("backup/2026/me"));

    let single = build::tar(&[build::file("top/x.jsonl", b"{}")]);
    let unpacked = unpack_in(&scratch.write("single.tar", &single), &Limits::default(), &scratch.parent()).unwrap();
    assert_eq!(unpacked.find_home(&[".claude"]), unpacked.dir().join("top"));

    let flat = build::tar(&[build::file("a.jsonl", b"{}"), build::file("b.jsonl", b"{}")]);
    let unpacked = unpack_in(&scratch.write("flat.tar", &flat), &Limits::default(), &scratch.parent()).unwrap();
    assert_eq!(find_home(unpacked.dir(), &[".claude"]), unpacked.dir());
}

#[test]
fn a_hard_link_to_an_earlier_member_is_a_copy_and_symbolic_links_are_skipped() {
    let scratch = Scratch::new();
    let tar = build::tar(&[
        build::file("a.txt", b"content"),
        build::link("b.txt", tar::EntryType::Link, "a.txt"),
        build::link("c.txt", tar::EntryType::Symlink, "a.txt"),
    ]);
    let unpacked = unpack_in(&scratch.write("links.tar", &tar), &Limits::default(), &scratch.parent()).unwrap();
    let b = unpacked.dir().join("b.txt");
    assert_eq!(std::fs::read(&b).unwrap(), b"content");
    assert!(!std::fs::symlink_metadata(&b).unwrap().file_type().is_symlink());
    assert!(std::fs::symlink_metadata(unpacked.dir().join("c.txt")).is_err(), "no link is created");
    assert_eq!(unpacked.skipped().len(), 1);
    assert_eq!(unpacked.skipped()[0].name, "c.txt");
}

#[test]
fn a_member_path_splits_at_the_archive() {
    let scratch = Scratch::new();
    let archive = scratch.write("home.tgz", &build::gzip(&build::tar(&claude_home())));
    let asked = format!("{}#.claude/projects/-w/a.jsonl", archive.display());
    let (found, member) = split_member(std::path::Path::new(&asked)).unwrap();
    assert_eq!(found, archive);
    assert_eq!(member, ".claude/projects/-w/a.jsonl");
    // A file whose name holds a `#` is itself, not a member.
    let hashed = scratch.write("odd#name.jsonl", b"{}");
    assert_eq!(split_member(&hashed), None);
    // A `#` after something that is not an archive splits nothing.
    let text = scratch.write("text.txt", b"just text");
    assert_eq!(split_member(std::path::Path::new(&format!("{}#x", text.display()))), None);
}

#[test]
fn a_hundred_thousand_empty_members_are_a_safe_result_or_the_entry_limit() {
    let scratch = Scratch::new();
    let members: Vec<build::Member> = (0..100_000).map(|i| build::file(&format!("d{}/f{i}", i % 100), b"")).collect();
    let path = scratch.write("many.tgz", &build::gzip(&build::tar(&members)));
    let unpacked = unpack_in(&path, &Limits::default(), &scratch.parent()).unwrap();
    assert_eq!(unpacked.entries(), 100_000);
    assert_eq!(std::fs::read_dir(unpacked.dir().join("d7")).unwrap().count(), 1000);
    drop(unpacked);

    let limits = Limits { max_entries: 50_000, ..Limits::default() };
    let error = unpack_in(&path, &limits, &scratch.parent()).unwrap_err().to_string();
    assert!(error.contains("more than 50000 members") && error.contains("many.tgz"), "{error}");
    assert!(scratch.stray_files().is_empty(), "{:?}", scratch.stray_files());
}
