use tar::EntryType;
use trajhost_unpack::{Limits, Refusal, UnpackError, unpack_in};

use crate::build::{self, Scratch};

/// Opens `bytes` as an archive named `name`: it must fail with an error for
/// which `expect` holds, write nothing outside the private dir, and leave
/// the next archive served.
fn refused(name: &str, bytes: &[u8], limits: &Limits, expect: impl Fn(&UnpackError) -> bool) -> String {
    let scratch = Scratch::new();
    let path = scratch.write(name, bytes);
    let error = unpack_in(&path, limits, &scratch.parent()).expect_err(name);
    assert!(expect(&error), "{name}: unexpected error {error:?}");
    let message = error.to_string();
    assert!(message.contains(name), "{name}: the message names the archive: {message}");
    assert!(!message.chars().any(|c| c.is_control()), "{name}: raw control characters in {message:?}");
    assert!(scratch.stray_files().is_empty(), "{name}: left {:?}", scratch.stray_files());
    still_served(&scratch);
    message
}

fn still_served(scratch: &Scratch) {
    let good = scratch.write("good.tar", &build::tar(&[build::file("ok.txt", b"ok")]));
    let unpacked = unpack_in(&good, &Limits::default(), &scratch.parent()).expect("the next archive");
    assert_eq!(std::fs::read(unpacked.dir().join("ok.txt")).unwrap(), b"ok");
}

fn refusal(expected: Refusal) -> impl Fn(&UnpackError) -> bool {
    move |e| matches!(e, UnpackError::Refused { reason, .. } if *reason == expected)
}

#[test]
fn zip_slip_is_refused_in_tar_and_zip() {
    let tar = build::tar(&[build::file("ok.txt", b"1"), build::file("../../outside/slip", b"x")]);
    let message = refused("slip.tar", &tar, &Limits::default(), refusal(Refusal::ParentComponent));
    assert!(message.contains("../../outside/slip"), "{message}");
    let zip = build::zip(&[("../../outside/slip", b"x")]);
    refused("slip.zip", &zip, &Limits::default(), refusal(Refusal::ParentComponent));
    let zip = build::zip(&[("..\\..\\outside\\slip", b"x")]);
    refused("backslash.zip", &zip, &Limits::default(), refusal(Refusal::ParentComponent));
}

#[test]
fn an_absolute_member_is_refused() {
    refused(
        "absolute.tar",
        &build::tar(&[build::file("/etc/evil", b"x")]),
        &Limits::default(),
        refusal(Refusal::Absolute),
    );
    refused("absolute.zip", &build::zip(&[("/etc/evil", b"x")]), &Limits::default(), refusal(Refusal::Absolute));
}

#[test]
fn a_symbolic_link_to_etc_passwd_is_skipped_not_followed() {
    let scratch = Scratch::new();
    let tar = build::tar(&[
        build::link("passwd", EntryType::Symlink, "/etc/passwd"),
        build::link("up", EntryType::Symlink, "../../outside"),
        build::file("after.txt", b"after"),
    ]);
    let unpacked = unpack_in(&scratch.write("symlink.tar", &tar), &Limits::default(), &scratch.parent()).unwrap();
    assert!(std::fs::symlink_metadata(unpacked.dir().join("passwd")).is_err());
    assert!(std::fs::symlink_metadata(unpacked.dir().join("up")).is_err());
    assert_eq!(std::fs::read(unpacked.dir().join("after.txt")).unwrap(), b"after");
    let reasons: Vec<&str> = unpacked.skipped().iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[0].contains("/etc/passwd"), "{reasons:?}");
    // A file through the skipped link's name lands in a real directory, inside.
    drop(unpacked);
    let through = build::tar(&[build::link("up", EntryType::Symlink, "../../outside"), build::file("up/x", b"x")]);
    refused("through.tar", &through, &Limits::default(), refusal(Refusal::ParentIsFile));
    assert!(scratch.stray_files().is_empty(), "{:?}", scratch.stray_files());
}

#[test]
fn a_hard_link_out_is_refused() {
    for target in ["/etc/passwd", "../../outside/x", "not-earlier.txt"] {
        let tar = build::tar(&[build::link("hard", EntryType::Link, target), build::file("not-earlier.txt", b"x")]);
        let message = refused("hardlink.tar", &tar, &Limits::default(), |e| {
            matches!(e, UnpackError::Refused { reason: Refusal::HardLinkOutside(_), .. })
        });
        assert!(message.contains("hard link to"), "{message}");
    }
}

#[test]
fn devices_and_fifos_are_refused() {
    for (kind, what) in
        [(EntryType::Char, "character device"), (EntryType::Block, "block device"), (EntryType::Fifo, "FIFO")]
    {
        let tar = build::tar(&[build::special("dev/null", kind)]);
        refused("device.tar", &tar, &Limits::default(), refusal(Refusal::SpecialFile(what)));
    }
}

#[test]
fn a_gigabyte_of_zeros_in_a_megabyte_is_a_bomb() {
    let bomb = build::zeros_bomb();
    assert!(bomb.len() < 2 << 20, "about a megabyte: {}", bomb.len());
    let message = refused("bomb.tgz", &bomb, &Limits::default(), |e| {
        matches!(e, UnpackError::Refused { reason: Refusal::Bomb { .. }, .. })
    });
    assert!(message.contains("zeros.jsonl") && message.contains("compression bomb"), "{message}");
    // The total limit stops it too, when the ratio is allowed.
    let limits = Limits { max_ratio: u64::MAX, max_total_bytes: 100 << 20, ..Limits::default() };
    refused("bomb.tgz", &bomb, &limits, refusal(Refusal::TooLarge(100 << 20)));
}

#[test]
fn a_name_with_a_newline_and_an_escape_sequence_is_refused_and_shown_escaped() {
    let tar = build::tar(&[build::file("evil\n\x1b]0;pwned\x07.jsonl", b"x")]);
    let message = refused("escape.tar", &tar, &Limits::default(), refusal(Refusal::ControlCharacter));
    assert!(message.contains("\\n") && message.contains("\\u{1b}"), "{message}");
    let zip = build::zip(&[("evil\x1b[2J.jsonl", b"x")]);
    refused("escape.zip", &zip, &Limits::default(), refusal(Refusal::ControlCharacter));
}

#[test]
fn a_name_that_is_not_utf8_is_refused() {
    let mut member = build::file("x", b"x");
    member.name = b"caf\xe9.jsonl".to_vec();
    refused("latin1.tar", &build::tar(&[member]), &Limits::default(), refusal(Refusal::NotUtf8));
}

#[test]
fn duplicate_names_are_refused() {
    let tar = build::tar(&[build::file("a.jsonl", b"1"), build::file("./a.jsonl", b"2")]);
    refused("duplicate.tar", &tar, &Limits::default(), refusal(Refusal::Duplicate));
    let tar = build::tar(&[build::file("a", b"1"), build::file("a/b", b"2")]);
    refused("below-file.tar", &tar, &Limits::default(), refusal(Refusal::ParentIsFile));
}

#[test]
fn long_and_deep_names_are_refused() {
    let limits = Limits { max_path_bytes: 40, max_depth: 4, ..Limits::default() };
    let long = "x".repeat(41);
    refused("long.tar", &build::tar(&[build::file(&long, b"")]), &limits, refusal(Refusal::PathTooLong(41, 40)));
    refused("deep.tar", &build::tar(&[build::file("a/b/c/d/e", b"")]), &limits, refusal(Refusal::TooDeep(5, 4)));
}

#[test]
fn a_truncated_gzip_is_an_error_with_the_offset() {
    let tgz = build::gzip(&build::tar(&[build::file("big.jsonl", &build::noise(300_000))]));
    let half = &tgz[..tgz.len() / 2];
    let message = refused("truncated.tgz", half, &Limits::default(), |e| matches!(e, UnpackError::Corrupt { .. }));
    assert!(message.contains("at byte"), "{message}");
    let zst = build::zstd(&build::tar(&[build::file("big.jsonl", &build::noise(300_000))]));
    refused("truncated.tar.zst", &zst[..zst.len() / 2], &Limits::default(), |e| {
        matches!(e, UnpackError::Corrupt { .. })
    });
    let tar = build::tar(&[build::file("big.jsonl", &build::noise(300_000))]);
    refused("truncated.tar", &tar[..tar.len() / 2], &Limits::default(), |e| matches!(e, UnpackError::Corrupt { .. }));
}

#[test]
fn a_zip_with_a_wrong_central_directory_is_an_error() {
    let mut zip = build::zip(&[("a.jsonl", b"{}"), ("b.jsonl", b"{}")]);
    // The end record's offset of the central directory, pointed into the data.
    let end = zip.len() - 22;
    assert_eq!(&zip[end..end + 4], b"PK\x05\x06");
    zip[end + 16..end + 20].copy_from_slice(&7u32.to_le_bytes());
    refused("central.zip", &zip, &Limits::default(), |e| matches!(e, UnpackError::Corrupt { .. }));
    // And a member whose data is damaged: its checksum fails.
    let mut zip = build::zip(&[("big.jsonl", &build::noise(100_000))]);
    zip[200] ^= 0xff;
    refused("damaged.zip", &zip, &Limits::default(), |e| matches!(e, UnpackError::Corrupt { .. }));
}

#[test]
fn random_bytes_are_not_an_archive_and_garbage_after_a_magic_is_corrupt() {
    refused("noise.bin", &build::noise(4096), &Limits::default(), |e| matches!(e, UnpackError::NotArchive { .. }));
    let mut gz = vec![0x1f, 0x8b];
    gz.extend(build::noise(4096));
    refused("garbage.tgz", &gz, &Limits::default(), |e| matches!(e, UnpackError::Corrupt { .. }));
}

#[test]
fn the_whole_hostile_suite_errs_clearly_or_is_safe() {
    for case in build::hostile_suite(false) {
        if case.refused {
            refused(case.name, &case.bytes, &Limits::default(), |_| true);
        } else {
            let scratch = Scratch::new();
            let path = scratch.write(case.name, &case.bytes);
            let unpacked = unpack_in(&path, &Limits::default(), &scratch.parent()).expect(case.name);
            drop(unpacked);
            assert!(scratch.stray_files().is_empty(), "{}: {:?}", case.name, scratch.stray_files());
        }
    }
}
