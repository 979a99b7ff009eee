//! The store's streaming put, on the embedded archive: a session arrives
//! as bounded parts in one transaction; a session that fails midway leaves
//! nothing behind; evidence in several chunks reads back whole.

use std::collections::VecDeque;
use std::path::Path;

use trajhost_archive::store::*;
use trajhost_archive::{ArchiveError, ArchiveStore, SqliteArchive};

/// Parts handed over from a queue; `Err` entries stand for a reader that
/// failed at that point.
struct Queue(VecDeque<Result<SessionPart, String>>);

impl SessionParts for Queue {
    fn next_part(&mut self) -> Result<SessionPart, ArchiveError> {
        match self.0.pop_front() {
            Some(Ok(part)) => Ok(part),
            Some(Err(message)) => Err(ArchiveError::Io { path: "reader".into(), message }),
            None => panic!("the store asked for a part after the session's end"),
        }
    }
}

fn head(home: i64, id: &str) -> SessionHead {
    SessionHead {
        home,
        harness: "claude-code".into(),
        native_id: id.into(),
        locator: format!("{id}.jsonl"),
        codec: "claude-code@0.1.0".into(),
        native_version: Some("2.1.197".into()),
        started_at: None,
        updated_at: Some("2026-12-07T00:00:00Z".into()),
        resumed_after: None,
    }
}

fn record(n: usize, text: &str) -> PutRecord {
    PutRecord {
        record_id: format!("r{n}"),
        kind: "user".into(),
        ts_ms: None,
        json: format!(r#"{{"id":"r{n}","kind":"user","text":"{text}"}}"#),
        text: Some(text.into()),
    }
}

fn tail(records: u64) -> SessionPart {
    SessionPart::End(SessionTail {
        records,
        snapshot_id: format!("snap-{records}"),
        cwd: Some("/work".into()),
        title: Some("a title".into()),
        cursor: None,
    })
}

/// A file's bytes as the evidence parts sync hands over: chunks of at most
/// `chunk` bytes, then the file.
fn evidence_parts(path: &str, bytes: &[u8], chunk: usize) -> Vec<Result<SessionPart, String>> {
    let mut parts: Vec<Result<SessionPart, String>> = bytes
        .chunks(chunk)
        .enumerate()
        .map(|(i, piece)| {
            Ok(SessionPart::Evidence {
                path: path.into(),
                generation: Generation { offset: (i * chunk) as u64, bytes: piece.to_vec(), base: i == 0 },
            })
        })
        .collect();
    parts.push(Ok(SessionPart::File(PutFile {
        path: path.into(),
        seen: FileState { size: bytes.len() as u64, mtime_ns: 1, inode: 1 },
        kept: KeptFile { size: bytes.len() as u64, tail_sha256: "tail".into() },
    })));
    parts
}

fn open(dir: &Path) -> (SqliteArchive, i64) {
    let mut store = SqliteArchive::open(&dir.join("archive.db")).unwrap();
    let home = store.known_home(&dir.join("home")).unwrap().id;
    (store, home)
}

#[test]
fn a_session_in_many_parts_is_kept_whole_and_its_chunked_evidence_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, home) = open(dir.path());
    let file: Vec<u8> = (0..10_000).flat_map(|n| format!("line {n} of the session\n").into_bytes()).collect();
    let mut parts = VecDeque::new();
    for batch in 0..5 {
        parts.push_back(Ok(SessionPart::Records((0..20).map(|n| record(batch * 20 + n, "kiwi")).collect())));
    }
    parts.extend(evidence_parts("a.jsonl", &file, 64 << 10));
    parts.push_back(Ok(tail(100)));
    let outcome = store.put_session(&head(home, "a"), &mut Queue(parts)).unwrap();
    assert!(outcome.new_session);
    assert_eq!(outcome.records_added, 100);
    assert_eq!(outcome.evidence_bytes, file.len() as u64);

    let sessions = store.sessions(&SessionFilter::default()).unwrap();
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert_eq!((session.records, session.snapshot_id.as_str()), (100, "snap-100"));
    assert_eq!((session.cwd.as_deref(), session.title.as_deref()), (Some("/work"), Some("a title")));
    let records = store.records(session).unwrap();
    assert_eq!(records.len(), 100);
    assert!(records[57].contains(r#""id":"r57""#), "{}", records[57]);
    let evidence = store.evidence(session).unwrap();
    assert_eq!(evidence.files.len(), 1);
    assert!(evidence.files[0].1 == file, "the chunks join back into the file's bytes");
    let chunks: i64 = store.connection().query_row("SELECT count(*) FROM generations", [], |r| r.get(0)).unwrap();
    assert_eq!(chunks as usize, file.len().div_ceil(64 << 10));
}

#[test]
fn a_session_whose_reader_fails_midway_leaves_the_archive_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, home) = open(dir.path());
    let kept = VecDeque::from([Ok(SessionPart::Records(vec![record(0, "old")])), Ok(tail(1))]);
    store.put_session(&head(home, "a"), &mut Queue(kept)).unwrap();

    // The same session again, and a new one, each failing after some parts.
    for id in ["a", "b"] {
        let mut parts = VecDeque::from([Ok(SessionPart::Records((0..50).map(|n| record(n, "new")).collect()))]);
        parts.extend(evidence_parts(&format!("{id}.jsonl"), b"bytes\n", 4));
        parts.push_back(Err("the codec trapped".into()));
        let error = store.put_session(&head(home, id), &mut Queue(parts)).unwrap_err();
        assert!(error.to_string().contains("the codec trapped"), "{error}");
    }
    let sessions = store.sessions(&SessionFilter::default()).unwrap();
    assert_eq!(sessions.len(), 1, "the new session left no row");
    assert_eq!((sessions[0].native_id.as_str(), sessions[0].records), ("a", 1));
    let records = store.records(&sessions[0]).unwrap();
    assert_eq!(records.len(), 1);
    assert!(records[0].contains("old"), "{}", records[0]);
    for table in ["generations", "blobs", "session_files"] {
        let rows: i64 =
            store.connection().query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0, "{table} holds nothing of the failed puts");
    }
}

#[test]
fn a_shorter_session_drops_the_records_past_its_end_and_keeps_the_same_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, home) = open(dir.path());
    let first = VecDeque::from([
        Ok(SessionPart::Records((0..6).map(|n| record(n, "same")).collect())),
        Ok(SessionPart::Records((6..10).map(|n| record(n, "same")).collect())),
        Ok(tail(10)),
    ]);
    store.put_session(&head(home, "a"), &mut Queue(first)).unwrap();
    let second = VecDeque::from([
        Ok(SessionPart::Records((0..3).map(|n| record(n, "same")).collect())),
        Ok(SessionPart::Records(vec![record(3, "changed"), record(4, "same")])),
        Ok(tail(5)),
    ]);
    let outcome = store.put_session(&head(home, "a"), &mut Queue(second)).unwrap();
    assert_eq!(
        (outcome.new_session, outcome.records_added, outcome.records_changed, outcome.records_removed),
        (false, 0, 1, 5)
    );
    let session = &store.sessions(&SessionFilter::default()).unwrap()[0];
    assert_eq!(session.records, 5);
    let hits = store.search(&SearchQuery { text: "changed".into(), limit: 10, ..Default::default() }).unwrap();
    assert_eq!(hits.len(), 1, "the changed record is indexed once");
    assert_eq!(hits[0].record_id, "r3");
}

#[test]
fn a_session_continued_from_its_cursor_keeps_the_records_before_it_and_replaces_meta_and_those_after() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, home) = open(dir.path());
    let cursor = |records: u64| SessionCursor {
        codec: "claude-code@0.1.0".into(),
        file: "a.jsonl".into(),
        file_size: 100,
        offset: 90,
        records,
        state: b"state".to_vec(),
        digest: b"digest".to_vec(),
    };
    // Six records: meta, four kept for good, a provisional one after the point.
    let mut first: VecDeque<_> = (0..6).map(|n| Ok(SessionPart::Records(vec![record(n, "old")]))).collect();
    first.extend(evidence_parts("a.jsonl", b"x", 1));
    let SessionPart::End(mut end) = tail(6) else { unreachable!() };
    end.cursor = Some(cursor(5));
    first.push_back(Ok(SessionPart::End(end)));
    store.put_session(&head(home, "a"), &mut Queue(first)).unwrap();
    assert_eq!(store.cursor(home, "claude-code", "a").unwrap(), Some(cursor(5)));

    // Continued after 5: a new meta, the provisional record again as it is
    // now, and one more; the title the continued meta does not give stays.
    let mut head2 = head(home, "a");
    head2.resumed_after = Some(5);
    let mut parts = VecDeque::from([
        Ok(SessionPart::Records(vec![record(0, "meta now")])),
        Ok(SessionPart::Records(vec![record(5, "settled"), record(6, "new")])),
    ]);
    let SessionPart::End(mut end) = tail(7) else { unreachable!() };
    end.title = None;
    end.cursor = Some(cursor(7));
    parts.push_back(Ok(SessionPart::End(end)));
    let outcome = store.put_session(&head2, &mut Queue(parts)).unwrap();
    assert_eq!((outcome.records_added, outcome.records_changed, outcome.records_removed), (1, 2, 0));

    let session = &store.sessions(&SessionFilter::default()).unwrap()[0];
    assert_eq!((session.records, session.title.as_deref()), (7, Some("a title")));
    let records = store.records(session).unwrap();
    let texts: Vec<&str> =
        records.iter().map(|r| r.split(r#""text":""#).nth(1).unwrap().trim_end_matches("\"}")).collect();
    assert_eq!(texts, ["meta now", "old", "old", "old", "old", "settled", "new"]);
    assert_eq!(store.cursor(home, "claude-code", "a").unwrap(), Some(cursor(7)));
    let files: i64 = store.connection().query_row("SELECT count(*) FROM session_files", [], |r| r.get(0)).unwrap();
    assert_eq!(files, 1, "the session's file stays linked");

    // A whole read without a point drops the cursor.
    let whole = VecDeque::from([Ok(SessionPart::Records(vec![record(0, "m")])), Ok(tail(1))]);
    store.put_session(&head(home, "a"), &mut Queue(whole)).unwrap();
    assert_eq!(store.cursor(home, "claude-code", "a").unwrap(), None);
}
