//! # trajhost codec testkit
//!
//! What the tests of every codec need, natively (no sandbox): read a
//! fixture session with [`trajhost_codec_sdk::read_all`] into a [`Read`],
//! pick records apart ([`users`], [`tool_calls`], …), copy fixture homes,
//! and check the rules every codec follows:
//!
//! - [`check_spans`]: every record but `meta` carries `src`, and the span
//!   lies inside its file (on line boundaries for JSON lines);
//! - [`check_stable_ids`]: two reads give the same records, ids unique;
//! - [`check_store_untouched`]: discover and read leave the store
//!   byte-identical (every file hashed before and after, `-wal` and `-shm`
//!   included, and no file added or removed);
//! - [`check_batching`]: batch caps change how a session is cut, not what
//!   it holds;
//! - [`check_handling`]: every native type of a codec's table is mapped or
//!   counted in a diagnostic;
//! - [`conformance`]: all of these and `meta` first, in one call.
//!
//! ```ignore
//! use trajhost_codec_testkit as kit;
//! let read = kit::conformance::<Codex>(&home, locator, kit::Spans::Lines);
//! assert_eq!(kit::users(&read.records), ["Read hello.txt and tell me the secret word."]);
//! ```
//!
//! ## The conformance suite
//!
//! [`suite`] runs every check a codec's lab fixtures must pass, from a
//! table of what they hold: `tests/conformance.json` beside the codec's
//! tests (see [`suite::Table`]: fixture harness and version, the scenarios
//! with their session ids, what each holds: user texts, tool calls and
//! their arguments, results with their `ok` flag, answers, record kinds,
//! parents; the span kind; what discover takes from the files; whether and
//! how the codec writes and prepares; how a loose session file reads). A
//! codec adds `trajhost-codec-testkit` as a dev-dependency and writes one
//! file, `tests/conformance.rs`:
//!
//! ```ignore
//! use trajhost_codec_testkit::suite::Suite;
//! use my_codec::{KNOWN_RECORD_TYPES, MyCodec};
//!
//! const SUITE: Suite =
//!     Suite { table: include_str!("conformance.json"), types: KNOWN_RECORD_TYPES, ..Suite::DEFAULT };
//! trajhost_codec_testkit::conformance_suite!(MyCodec, SUITE);
//! ```
//!
//! [`conformance_suite!`] makes one named `#[test]` per check, so
//! `cargo test` lists each: info and globs; discover (as inspect and read
//! say); an empty home; the kit checks above; meta; each of the five lab
//! scenarios (`simple`, `parallel`, `failing-tool`, `multibyte`,
//! `long-output`); store order and times; spans naming their records;
//! native types mapped or reported; a torn tail and a corrupt line; the
//! round trip read → write → read; prepare into an empty home and beside
//! other sessions (every file there byte-identical); a loose session file.
//! A part a codec cannot take says why in its table (`{"skip": "…"}`), and
//! the test prints it. A codec without lab sessions of its own (an older
//! sibling format) names sessions of its hand-written fixtures as
//! scenarios (a scenario's `home`, shared by several, and its own `cwd`,
//! `native_version`, `model`), checked like the lab's. What JSON cannot say the codec passes in the
//! [`suite::Suite`]: its type table, how to tell a raw record's type, how
//! to read raw records of a store that is not JSON lines, how to apply a
//! plan of databases (`suite::apply_plan`, feature `sqlite`). Its own
//! tests reach the same fixtures through [`suite::Lab`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use trajhost_codec_sdk::canonical::{Assistant, Body, Meta, Reasoning, Record, SourceSpan};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::known::{Handling, UNKNOWN_RECORD_TYPE, UNMAPPED_RECORD_TYPE};
use trajhost_codec_sdk::{
    Codec, CodecError, Diagnostic, Discovery, Operation, Plan, ReadOptions, Severity, WrittenFiles,
};

pub use trajhost_codec_sdk as sdk;

pub mod suite;

// ------------------------------------------------------------------ paths

/// The repository's `fixtures/` directory: found from the crate under test
/// (cargo sets its `CARGO_MANIFEST_DIR` when running tests), so a testkit
/// compiled in another checkout sharing the target dir still finds this
/// checkout's fixtures.
pub fn fixtures_root() -> PathBuf {
    let under_test = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    under_test
        .iter()
        .flat_map(|dir| dir.ancestors())
        .find(|dir| dir.join("fixtures").is_dir() && dir.join("wit").is_dir())
        .map(|root| root.join("fixtures"))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures"))
}

/// The directory of the crate whose tests run (cargo sets
/// `CARGO_MANIFEST_DIR` for them).
pub fn crate_under_test() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."))
}

/// `fixtures/<harness>/<version>`, e.g. `fixtures("codex", "0.171.0")`.
pub fn fixtures(harness: &str, version: &str) -> PathBuf {
    fixtures_root().join(harness).join(version)
}

/// The first session of a harness version's lab `simple` fixture, read by
/// its own codec `C`: the source of the convert tests that write it as
/// another harness.
pub fn simple_session<C: Codec>(harness: &str, version: &str) -> Read {
    let home = fixtures(harness, version).join("simple");
    let found = discover::<C>(&home);
    let session = found.sessions.first().unwrap_or_else(|| panic!("{harness} {version}: no session in {home:?}"));
    read::<C>(&home, &session.locator)
}

/// One `- {field}: …` line of a lab scenario's section of the
/// `PROVENANCE.md` in `fixtures` (a harness version's fixture directory).
pub fn provenance(fixtures: &Path, scenario: &str, field: &str) -> String {
    let text = std::fs::read_to_string(fixtures.join("PROVENANCE.md")).unwrap();
    let start = text.find(&format!("<!-- scenario:{scenario} -->")).unwrap();
    let section = &text[start..start + text[start..].find("<!-- /scenario -->").unwrap()];
    let prefix = format!("- {field}: ");
    section
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("{scenario}: no {field}"))
        .to_string()
}

/// A session time (`YYYY-MM-DDTHH:MM:SS…`, UTC) lies in the lab's run of
/// the scenario: at most ten minutes before PROVENANCE.md's `generated`
/// time, and not after it.
pub fn assert_in_lab_run(fixtures: &Path, scenario: &str, t: &str) {
    let generated = epoch_s(&provenance(fixtures, scenario, "generated"));
    let t = epoch_s(t);
    assert!((generated - 600..=generated).contains(&t), "{scenario}: {t} vs generated {generated}");
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SS…` (UTC).
fn epoch_s(t: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| t[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d - 719_469;
    days * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19)
}

/// Copies a directory tree: files, directories, and symlinks as symlinks
/// (fixtures keep the links a harness left, dangling ones included).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("list {}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            let link = std::fs::read_link(entry.path()).unwrap();
            std::os::unix::fs::symlink(&link, &target).unwrap_or_else(|e| panic!("link {}: {e}", target.display()));
        } else if kind.is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("copy {}: {e}", entry.path().display()));
        }
    }
}

/// A private copy of a fixture home, for tests that change it (or that open
/// a SQLite store with a native client that would leave files beside it).
pub fn copy_of(home: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(home, dir.path());
    dir
}

/// Writes each written artifact as a file under `home`, folders created.
pub fn put_artifacts(written: &WrittenFiles, home: &Path) {
    for artifact in &written.artifacts {
        let path = home.join(&artifact.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &artifact.bytes).unwrap();
    }
}

/// A fresh home holding the written artifacts as files, as an export
/// directory holds them.
pub fn install(written: &WrittenFiles) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put_artifacts(written, dir.path());
    dir
}

/// Creates the file `path` under `home`, folders too, as a plan's
/// `create-file` does: never over an existing file.
pub fn create_new_file(home: &Path, path: &str, bytes: &[u8]) {
    let at = home.join(path);
    assert!(!at.exists(), "the plan overwrites {path}");
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(&at, bytes).unwrap();
}

/// Applies a plan of `create-file`s only ([`create_new_file`]); any other
/// operation fails the test.
pub fn apply_new_files(plan: &Plan, home: &Path) {
    for op in &plan.operations {
        let Operation::CreateFile(file) = op else { panic!("a plan of create-file only, not {op:?}") };
        create_new_file(home, &file.path, &file.bytes);
    }
}

/// [`install`]s `written` in a fresh home and reads the session at
/// `locator` there (in one batch).
pub fn read_installed<C: Codec>(written: &WrittenFiles, locator: &str) -> (tempfile::TempDir, Read) {
    let home = install(written);
    let read = read::<C>(home.path(), locator);
    (home, read)
}

/// The JSON values of a JSON-lines file's non-blank lines.
pub fn raw_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: bad line {l}: {e}", path.display())))
        .collect()
}

/// Whether a glob of `info.session_globs` (`*` within one segment) matches
/// a `/`-separated path.
pub fn glob_matches(glob: &str, path: &str) -> bool {
    fn segment(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => segment(&p[1..], s) || (!s.is_empty() && segment(p, &s[1..])),
            (Some(a), Some(b)) if a == b => segment(&p[1..], &s[1..]),
            _ => false,
        }
    }
    let g: Vec<&str> = glob.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    g.len() == p.len() && g.iter().zip(&p).all(|(g, p)| segment(g.as_bytes(), p.as_bytes()))
}

// ------------------------------------------------------------------ reading

/// Batch caps as the host passes them.
pub fn options(records: u32, bytes: u32) -> ReadOptions {
    ReadOptions { max_batch_records: records, max_batch_bytes: bytes }
}

/// Caps large enough that a fixture session comes in one batch.
pub fn one_batch() -> ReadOptions {
    options(1000, 1 << 20)
}

/// A session read natively.
#[derive(Debug, Default)]
pub struct Read {
    pub records: Vec<Record>,
    pub diagnostics: Vec<Diagnostic>,
    pub batches: usize,
    /// Diagnostics that came in a batch other than the last.
    pub early_diagnostics: usize,
    /// The canonical document: every batch's record lines, concatenated.
    pub document: String,
}

impl Read {
    /// The first diagnostic with `code`.
    pub fn diag(&self, code: &str) -> Option<&Diagnostic> {
        diag(&self.diagnostics, code)
    }

    /// The first diagnostic with `code` and `detail`.
    pub fn diag_with(&self, code: &str, detail: &str) -> Option<&Diagnostic> {
        diag_with(&self.diagnostics, code, detail)
    }

    /// The session's `meta` (the first record).
    pub fn meta(&self) -> &Meta {
        match self.records.first().map(|r| &r.body) {
            Some(Body::Meta(m)) => m,
            other => panic!("the first record is not meta: {other:?}"),
        }
    }
}

/// Reads a session; `Err` is the codec's error from `read` or `next_batch`.
pub fn try_read<C: Codec>(home: &Path, locator: &str, options: ReadOptions) -> Result<Read, CodecError> {
    let mut read = Read::default();
    let mut last = 0;
    let mut bad = None;
    trajhost_codec_sdk::read_all::<C>(Dir::native(home), locator, options, |batch| {
        read.batches += 1;
        read.early_diagnostics += last;
        last = batch.diagnostics.len();
        read.document.push_str(&batch.records);
        for line in batch.records.lines() {
            match serde_json::from_str::<Record>(line) {
                Ok(record) => read.records.push(record),
                Err(e) => bad = bad.take().or(Some(format!("bad record line {line}: {e}"))),
            }
        }
        read.diagnostics.extend(batch.diagnostics.iter().cloned());
    })?;
    if let Some(bad) = bad {
        panic!("{locator}: {bad}");
    }
    Ok(read)
}

/// Reads a session with `options`; panics naming the locator on an error.
pub fn read_with<C: Codec>(home: &Path, locator: &str, options: ReadOptions) -> Read {
    try_read::<C>(home, locator, options).unwrap_or_else(|e| panic!("read {locator}: {e:?}"))
}

/// Reads a session in one batch; panics naming the locator on an error.
pub fn read<C: Codec>(home: &Path, locator: &str) -> Read {
    read_with::<C>(home, locator, one_batch())
}

/// `discover` over a native home; panics on an error.
pub fn discover<C: Codec>(home: &Path) -> Discovery {
    C::discover(&Dir::native(home)).unwrap_or_else(|e| panic!("discover {}: {e:?}", home.display()))
}

/// The canonical document of `records`, as `write` takes it.
pub fn document(records: &[Record]) -> String {
    records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect()
}

// ------------------------------------------------------------------ picking records apart

/// The `kind` of each record.
pub fn kinds(records: &[Record]) -> Vec<&'static str> {
    records.iter().map(|r| r.body.kind()).collect()
}

/// The text of each `user` record.
pub fn users(records: &[Record]) -> Vec<&str> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::User { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Every `assistant` record's body.
pub fn assistants(records: &[Record]) -> Vec<&Assistant> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// The non-empty texts of `assistant` records.
pub fn assistant_texts(records: &[Record]) -> Vec<&str> {
    assistants(records).into_iter().map(|a| a.text.as_str()).filter(|t| !t.is_empty()).collect()
}

/// Every `reasoning` record's body.
pub fn reasonings(records: &[Record]) -> Vec<&Reasoning> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Reasoning(x) => Some(x),
            _ => None,
        })
        .collect()
}

/// (call id, name, arguments) of each `tool_call`.
pub fn tool_calls(records: &[Record]) -> Vec<(&str, &str, &Value)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), name.as_str(), arguments)),
            _ => None,
        })
        .collect()
}

/// (call id, content, ok) of each `tool_result`.
pub fn tool_results(records: &[Record]) -> Vec<(&str, &str, Option<bool>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call_id, content, ok } => Some((call_id.as_str(), content.as_str(), *ok)),
            _ => None,
        })
        .collect()
}

/// (subtype, text) of each `observation`.
pub fn observations(records: &[Record]) -> Vec<(&str, Option<&str>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Observation { subtype, text } => Some((subtype.as_str(), text.as_deref())),
            _ => None,
        })
        .collect()
}

/// The texts of the observations of one `subtype` (`""` for none).
pub fn observations_of<'a>(records: &'a [Record], subtype: &str) -> Vec<&'a str> {
    observations(records).into_iter().filter(|(s, _)| *s == subtype).map(|(_, t)| t.unwrap_or("")).collect()
}

/// The conversational content of a session, for round-trip comparisons.
#[derive(Debug, PartialEq)]
pub struct Conversation {
    pub users: Vec<String>,
    /// (name, arguments) of each tool call.
    pub calls: Vec<(String, Value)>,
    /// The content of each tool result.
    pub results: Vec<String>,
    pub assistant_texts: Vec<String>,
}

/// What was said in `records`: user texts, tool calls, tool results and
/// assistant texts, in order.
pub fn conversation(records: &[Record]) -> Conversation {
    Conversation {
        users: users(records).into_iter().map(str::to_string).collect(),
        calls: tool_calls(records).into_iter().map(|(_, n, a)| (n.to_string(), a.clone())).collect(),
        results: tool_results(records).into_iter().map(|(_, c, _)| c.to_string()).collect(),
        assistant_texts: assistant_texts(records).into_iter().map(str::to_string).collect(),
    }
}

/// The first diagnostic with `code`.
pub fn diag<'a>(diagnostics: &'a [Diagnostic], code: &str) -> Option<&'a Diagnostic> {
    diagnostics.iter().find(|d| d.code == code)
}

/// The first diagnostic with `code` and `detail`.
pub fn diag_with<'a>(diagnostics: &'a [Diagnostic], code: &str, detail: &str) -> Option<&'a Diagnostic> {
    diagnostics.iter().find(|d| d.code == code && d.detail == detail)
}

/// The diagnostic with `code` that names `file`.
pub fn file_diag<'a>(diagnostics: &'a [Diagnostic], code: &str, file: &str) -> Option<&'a Diagnostic> {
    diagnostics.iter().find(|d| d.code == code && d.file.as_deref() == Some(file))
}

/// Asserts every `(code, detail)` of `expected` is among `diagnostics`
/// (others may be there too).
pub fn check_diags_include(diagnostics: &[Diagnostic], expected: &[(&str, &str)]) {
    let got: Vec<(&str, &str)> = diagnostics.iter().map(|d| (d.code.as_str(), d.detail.as_str())).collect();
    for want in expected {
        assert!(got.contains(want), "{want:?} in {got:?}");
    }
}

/// Asserts each of `details` is reported with `code` (what a writer says
/// it does not carry, say).
pub fn check_reported(diagnostics: &[Diagnostic], code: &str, details: &[&str]) {
    for detail in details {
        assert!(diag_with(diagnostics, code, detail).is_some(), "{code} {detail} not reported: {diagnostics:?}");
    }
}

/// Asserts what `diagnostics` say about files (discover's, of the files in
/// a home that are no session): exactly the `(code, file)` pairs of
/// `expected`, in any order, every diagnostic naming its file.
pub fn check_named_files(diagnostics: &[Diagnostic], expected: &[(&str, impl AsRef<str>)]) {
    let named: BTreeSet<(&str, &str)> =
        diagnostics.iter().map(|d| (d.code.as_str(), d.file.as_deref().expect("names its file"))).collect();
    let expected: BTreeSet<(&str, &str)> = expected.iter().map(|(c, f)| (*c, f.as_ref())).collect();
    assert_eq!(named, expected);
}

// ------------------------------------------------------------------ spans

/// What a codec's `src` spans point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spans {
    /// Whole lines of a JSON-lines file: each span starts a line and ends
    /// with its `\n` (or the end of the file).
    Lines,
    /// Bytes of a file (a JSON document, one file per event): inside it,
    /// not empty.
    Bytes,
    /// Rows of a SQLite database: `offset` is the rowid, `len` is 0, and
    /// the file exists.
    Rows,
}

/// The bytes a span covers, checked to lie inside its file under `home`.
pub fn span_bytes(home: &Path, src: &SourceSpan) -> Vec<u8> {
    let bytes = std::fs::read(home.join(&src.file)).unwrap_or_else(|e| panic!("span file {}: {e}", src.file));
    let end = src.offset.saturating_add(src.len);
    assert!(end <= bytes.len() as u64, "span {src:?} ends past its file ({} bytes)", bytes.len());
    bytes[src.offset as usize..end as usize].to_vec()
}

/// The JSON of a span that covers one whole line.
pub fn span_json(home: &Path, src: &SourceSpan) -> Value {
    let bytes = span_bytes(home, src);
    let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    serde_json::from_slice(line).unwrap_or_else(|e| panic!("span {src:?} is not one JSON line: {e}"))
}

/// Every record but `meta` carries `src`, and every span lies inside its
/// file as `kind` says. `meta`'s span, when it has one, need only lie
/// inside its file (codecs point it at the header line, or at the whole
/// file with an empty span).
pub fn check_spans(home: &Path, read: &Read, kind: Spans) {
    let mut files: BTreeMap<&str, Vec<u8>> = BTreeMap::new();
    for record in &read.records {
        let is_meta = matches!(record.body, Body::Meta(_));
        let Some(src) = &record.src else {
            assert!(is_meta, "record {} ({}) has no src", record.id, record.body.kind());
            continue;
        };
        let bytes = files.entry(src.file.as_str()).or_insert_with(|| {
            std::fs::read(home.join(&src.file))
                .unwrap_or_else(|e| panic!("record {}: src file {}: {e}", record.id, src.file))
        });
        let at = format!("record {} ({}) src {src:?}", record.id, record.body.kind());
        let end = src.offset.saturating_add(src.len);
        match kind {
            Spans::Rows => assert_eq!(src.len, 0, "{at}: a row span has no length"),
            _ if is_meta => assert!(end <= bytes.len() as u64, "{at}: ends past the file ({} bytes)", bytes.len()),
            Spans::Bytes | Spans::Lines => {
                assert!(src.len > 0, "{at}: empty span");
                assert!(end <= bytes.len() as u64, "{at}: ends past the file ({} bytes)", bytes.len());
                if kind == Spans::Lines {
                    let (start, end) = (src.offset as usize, end as usize);
                    assert!(start == 0 || bytes[start - 1] == b'\n', "{at}: does not start a line");
                    assert!(end == bytes.len() || bytes[end - 1] == b'\n', "{at}: does not end a line");
                }
            }
        }
    }
}

// ------------------------------------------------------------------ damage

/// Where `needle` first occurs in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Cuts the JSON-lines file at `path` in the middle of the line holding
/// `needle` (as a writer killed mid-line leaves it); returns the offset of
/// that line, where a reader should report the torn tail.
pub fn tear_at(path: &Path, needle: &str) -> u64 {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let cut = find(&bytes, needle.as_bytes()).unwrap_or_else(|| panic!("{needle:?} not in {}", path.display()));
    std::fs::write(path, &bytes[..cut]).unwrap();
    bytes[..cut].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) as u64
}

/// Cuts line `index` of the JSON-lines file at `path` to its first `keep`
/// bytes, in the middle of the file; returns the line's offset.
pub fn corrupt_line(path: &Path, index: usize, keep: usize) -> u64 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(index + 1 < lines.len(), "line {index} is not in the middle of {}", path.display());
    let offset: usize = lines[..index].iter().map(|l| l.len() + 1).sum();
    lines[index].truncate(keep);
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
    offset as u64
}

/// The index of the first line of the file at `path` holding `needle`.
pub fn line_with(path: &Path, needle: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in {}", path.display()))
}

/// A torn tail at `offset` is one `torn-tail` warning there (naming no
/// content: not `sentinel`, the text of the torn line), and no
/// `malformed-line`.
pub fn check_torn_tail(read: &Read, offset: u64, sentinel: &str) {
    let d = read.diag("torn-tail").unwrap_or_else(|| panic!("no torn-tail diagnostic: {:?}", read.diagnostics));
    assert_eq!((d.severity, d.offset, d.count), (Severity::Warning, Some(offset), 1), "{d:?}");
    assert!(!d.detail.contains(sentinel), "diagnostics carry no content: {d:?}");
    assert!(read.diag("malformed-line").is_none(), "{:?}", read.diagnostics);
}

/// A corrupt line at `offset` is one `malformed-line` error there, and no
/// `torn-tail`.
pub fn check_corrupt_line(read: &Read, offset: u64) {
    let d =
        read.diag("malformed-line").unwrap_or_else(|| panic!("no malformed-line diagnostic: {:?}", read.diagnostics));
    assert_eq!((d.severity, d.offset, d.count), (Severity::Error, Some(offset), 1), "{d:?}");
    assert!(read.diag("torn-tail").is_none(), "{:?}", read.diagnostics);
}

/// A home holding one JSON-lines file at `locator`, a line per value.
pub fn home_with_lines(locator: &str, lines: &[Value]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    dir
}

/// A home holding one JSON document at `locator`, pretty-printed as the
/// harnesses that rewrite a whole session file write it.
pub fn home_with_document(locator: &str, doc: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(locator);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    dir
}

// ------------------------------------------------------------------ native types

/// Every native type of `table` that the raw session holds (`count` says
/// how many records of a type it holds) is handled as the table says:
/// a mapped one is named by no diagnostic; a reported one by one
/// `unmapped-record-type` info diagnostic that counts exactly its records.
/// And no `unknown-record-type` diagnostic at all.
pub fn check_handling(read: &Read, table: &[(&str, Handling)], count: impl Fn(&str) -> u32) {
    assert!(read.diag(UNKNOWN_RECORD_TYPE).is_none(), "unknown types: {:?}", read.diagnostics);
    for (kind, handling) in table {
        let n = count(kind);
        if n == 0 {
            continue;
        }
        match handling {
            Handling::Reported => {
                let d = read
                    .diag_with(UNMAPPED_RECORD_TYPE, kind)
                    .unwrap_or_else(|| panic!("{kind}: {n} records, not reported: {:?}", read.diagnostics));
                assert_eq!(d.count, n, "{kind}: reported {} times, {n} records", d.count);
                assert_eq!(d.severity, Severity::Info, "{kind}");
            }
            Handling::Mapped(_) => {
                assert!(
                    !read.diagnostics.iter().any(|d| d.detail == *kind),
                    "{kind} is mapped, yet named: {:?}",
                    read.diagnostics
                )
            }
        }
    }
}

// ------------------------------------------------------------------ ids

/// Two reads of the same bytes give the same records, and ids are unique.
pub fn check_stable_ids<C: Codec>(home: &Path, locator: &str) {
    let a = read::<C>(home, locator);
    let b = read::<C>(home, locator);
    assert_eq!(a.records, b.records, "{locator}: a second read differs");
    check_unique_ids(&a);
}

/// No two records share an id.
pub fn check_unique_ids(read: &Read) {
    let mut seen = BTreeSet::new();
    for r in &read.records {
        assert!(seen.insert(r.id.as_str()), "duplicate record id {:?} ({})", r.id, r.body.kind());
    }
}

/// Batch caps change how a session is cut, never what it holds: read in
/// one batch, in batches of 2 records / 512 bytes (soft caps: a native
/// line that gives several records may overshoot, but the session is cut),
/// and
/// with zero caps (one record a batch), the records and diagnostics are
/// the same, and diagnostics go out with the last batch. Returns the read
/// in one batch.
pub fn check_batching<C: Codec>(home: &Path, locator: &str) -> Read {
    let whole = read::<C>(home, locator);
    // A resume point ends a batch: what its reader released at the end of the file comes in a second one.
    assert!(whole.batches <= 2, "{locator}: a fixture session fits one batch ({} batches)", whole.batches);
    let small = read_with::<C>(home, locator, options(2, 512));
    if whole.records.len() > 2 {
        assert!(small.batches > 1, "{locator}: {} records in one batch of 2", whole.records.len());
    }
    assert_eq!(small.records, whole.records, "{locator}: small batches");
    assert_eq!(format!("{:?}", small.diagnostics), format!("{:?}", whole.diagnostics), "{locator}: small batches");
    assert_eq!(small.early_diagnostics, 0, "{locator}: diagnostics go out with the last batch");
    let zero = read_with::<C>(home, locator, options(0, 0));
    assert_eq!(zero.records, whole.records, "{locator}: zero caps");
    whole
}

/// The first record is `meta`, and only the first.
pub fn check_meta_first(read: &Read) {
    let kinds = kinds(&read.records);
    assert_eq!(kinds.first(), Some(&"meta"), "the first record is not meta: {kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "meta").count(), 1, "more than one meta: {kinds:?}");
}

// ------------------------------------------------------------------ the store

/// What a tree holds: every entry's path (relative) with a digest of its
/// contents (`sha256:` of a file's bytes, `dir`, `link:` and its target).
pub fn tree_digest(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("list {}: {e}", dir.display())) {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                out.insert(rel, format!("link:{}", std::fs::read_link(&path).unwrap().display()));
            } else if kind.is_dir() {
                out.insert(rel, "dir".into());
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
                out.insert(rel, format!("sha256:{}", hex::encode(Sha256::digest(bytes))));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Every file under `root` (directories followed), its bytes by its path
/// relative to `root`.
pub fn files_of(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("list {}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
                out.insert(path.strip_prefix(root).unwrap().to_string_lossy().into_owned(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Asserts every file of `before` ([`files_of`]) is in `after` with the
/// same bytes: files may have been added, none changed or removed.
pub fn assert_files_kept(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) {
    for (path, bytes) in before {
        assert_eq!(after.get(path), Some(bytes), "{path} changed");
    }
}

/// Asserts two digests of a tree are equal, naming what changed.
pub fn assert_same_tree(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>, what: &str) {
    let changed: Vec<String> = before
        .keys()
        .chain(after.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| match (before.get(k), after.get(k)) {
            (None, Some(_)) => format!("added {k}"),
            (Some(_), None) => format!("removed {k}"),
            _ => format!("changed {k}"),
        })
        .collect();
    assert!(changed.is_empty(), "{what} changed the store: {changed:?}");
}

/// Runs `read` while a writer keeps the SQLite database `db` (a path under
/// `home`) open with `change` committed to its WAL and not checkpointed, as
/// a running harness does: the WAL holds the change, and the read leaves
/// every file under `home` byte-identical, none added.
#[cfg(feature = "sqlite")]
pub fn read_with_live_wal<T>(
    home: &Path,
    db: &str,
    change: &str,
    params: impl rusqlite::Params,
    read: impl FnOnce() -> T,
) -> T {
    let writer = rusqlite::Connection::open(home.join(db)).unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer.execute(change, params).unwrap();
    assert!(std::fs::metadata(home.join(format!("{db}-wal"))).unwrap().len() > 0);
    let before = tree_digest(home);
    let out = read();
    assert_same_tree(&before, &tree_digest(home), "reading with a live WAL");
    drop(writer);
    out
}

/// `discover`, `inspect` and `read` of `locator` leave every file under
/// `home` byte-identical, add none and remove none.
pub fn check_store_untouched<C: Codec>(home: &Path, locator: &str) {
    let before = tree_digest(home);
    discover::<C>(home);
    // `inspect` may refuse a locator it cannot place; the store must not
    // change either way.
    let _ = C::inspect(&Dir::native(home), locator);
    read::<C>(home, locator);
    assert_same_tree(&before, &tree_digest(home), &format!("reading {locator}"));
}

/// Every check of this kit on one session; returns the (first) read.
pub fn conformance<C: Codec>(home: &Path, locator: &str, spans: Spans) -> Read {
    check_store_untouched::<C>(home, locator);
    let read = read::<C>(home, locator);
    check_meta_first(&read);
    check_spans(home, &read, spans);
    check_stable_ids::<C>(home, locator);
    check_batching::<C>(home, locator);
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_of_a_table_holds_its_text_beside_call_and_ok() {
        let json = r#"{"call": 1, "has": ["PAPAYA"], "starts": "The", "min_len": 3, "ok": false, "note": "x"}"#;
        let outcome: suite::Outcome = serde_json::from_str(json).unwrap();
        assert_eq!((outcome.call, outcome.ok), (1, Some(false)));
        assert_eq!((outcome.text.has.as_slice(), outcome.text.starts.as_str()), (&["PAPAYA".to_string()][..], "The"));
        assert_eq!((outcome.text.min_len, outcome.text.is.as_deref()), (3, None));
        // A text standing alone refuses a member it does not know.
        assert!(serde_json::from_str::<suite::Text>(r#"{"has": [], "note": "x"}"#).is_err());
    }

    #[test]
    fn globs_match_within_a_segment() {
        assert!(glob_matches(".codex/sessions/*/*/*/rollout-*.jsonl", ".codex/sessions/2026/11/30/rollout-x.jsonl"));
        assert!(!glob_matches(".codex/sessions/*/*/*/rollout-*.jsonl", ".codex/sessions/2026/11/rollout-x.jsonl"));
        assert!(!glob_matches("a/*.json", "a/b/c.json"));
        assert!(glob_matches("a/*", "a/"), "`*` matches the empty name too");
    }

    #[test]
    fn copies_keep_symlinks_dangling_ones_too() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/f"), b"x").unwrap();
        std::os::unix::fs::symlink("f", dir.path().join("d/to-f")).unwrap();
        std::os::unix::fs::symlink("/nowhere/at/all", dir.path().join("dangling")).unwrap();
        let copy = copy_of(dir.path());
        assert_eq!(tree_digest(copy.path()), tree_digest(dir.path()));
        assert_eq!(std::fs::read(copy.path().join("d/to-f")).unwrap(), b"x");
    }

    #[test]
    fn tree_digests_see_changed_added_and_removed_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/db"), b"x").unwrap();
        let before = tree_digest(dir.path());
        assert_eq!(before.len(), 2);
        assert_same_tree(&before, &tree_digest(dir.path()), "nothing");
        std::fs::write(dir.path().join("d/db-wal"), b"").unwrap();
        let added = std::panic::catch_unwind(|| assert_same_tree(&before, &tree_digest(dir.path()), "x"));
        let message = *added.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("added d/db-wal"), "{message}");
        std::fs::remove_file(dir.path().join("d/db-wal")).unwrap();
        std::fs::write(dir.path().join("d/db"), b"y").unwrap();
        let changed = std::panic::catch_unwind(|| assert_same_tree(&before, &tree_digest(dir.path()), "x"));
        assert!(changed.unwrap_err().downcast::<String>().unwrap().contains("changed d/db"));
    }

    fn record(id: &str, body: Body, src: Option<(&str, u64, u64)>) -> Record {
        Record {
            id: id.into(),
            body,
            parent: None,
            ts: None,
            agent: None,
            src: src.map(|(f, o, l)| SourceSpan { file: f.into(), offset: o, len: l }),
        }
    }

    #[test]
    fn span_checks_catch_missing_and_misplaced_spans() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.jsonl"), b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let user = || Body::User { text: "hi".into(), attachments: vec![] };
        let meta = record("m", Body::Meta(Meta::default()), None);
        let good =
            Read { records: vec![meta.clone(), record("u", user(), Some(("s.jsonl", 8, 8)))], ..Read::default() };
        check_spans(dir.path(), &good, Spans::Lines);
        assert_eq!(span_json(dir.path(), good.records[1].src.as_ref().unwrap()), serde_json::json!({"b": 2}));
        let bad = |src: Option<(&str, u64, u64)>, kind: Spans| {
            let read = Read { records: vec![meta.clone(), record("u", user(), src)], ..Read::default() };
            std::panic::catch_unwind(|| check_spans(dir.path(), &read, kind)).is_err()
        };
        assert!(bad(None, Spans::Lines), "a record without src");
        assert!(bad(Some(("s.jsonl", 8, 9)), Spans::Bytes), "past the end");
        assert!(bad(Some(("s.jsonl", 3, 5)), Spans::Lines), "not on a line start");
        assert!(!bad(Some(("s.jsonl", 3, 5)), Spans::Bytes), "bytes may start anywhere");
        assert!(bad(Some(("gone.jsonl", 0, 1)), Spans::Bytes), "a missing file");
        assert!(bad(Some(("s.jsonl", 7, 1)), Spans::Rows), "a row span has no length");
    }

    #[test]
    fn handling_checks_count_reported_types_and_refuse_named_mapped_ones() {
        const TABLE: &[(&str, Handling)] = &[("user", Handling::Mapped("user")), ("progress", Handling::Reported)];
        let diag = |code: &str, detail: &str, count| Diagnostic {
            code: code.into(),
            severity: Severity::Info,
            detail: detail.into(),
            count,
            file: None,
            offset: None,
        };
        let read = |diagnostics| Read { diagnostics, ..Read::default() };
        let counts = |k: &str| if k == "progress" { 2 } else { 1 };
        check_handling(&read(vec![diag(UNMAPPED_RECORD_TYPE, "progress", 2)]), TABLE, counts);
        let fails = |r: Read| std::panic::catch_unwind(|| check_handling(&r, TABLE, counts)).is_err();
        assert!(fails(read(vec![diag(UNMAPPED_RECORD_TYPE, "progress", 1)])), "wrong count");
        assert!(fails(read(vec![])), "not reported");
        assert!(fails(read(vec![diag(UNMAPPED_RECORD_TYPE, "progress", 2), diag("x", "user", 1)])), "mapped yet named");
        assert!(fails(read(vec![diag(UNMAPPED_RECORD_TYPE, "progress", 2), diag(UNKNOWN_RECORD_TYPE, "y", 1)])));
    }

    #[test]
    fn damage_helpers_cut_where_they_say() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":\"SECRET\"}\n{\"c\":3}\n").unwrap();
        assert_eq!(line_with(&path, "SECRET"), 1);
        assert_eq!(corrupt_line(&path, 1, 4), 8);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"b\"\n{\"c\":3}\n");
        assert_eq!(tear_at(&path, ":3"), 13);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"b\"\n{\"c\"");
        let home = home_with_lines("a/b.jsonl", &[serde_json::json!({"x": 1})]);
        assert_eq!(std::fs::read_to_string(home.path().join("a/b.jsonl")).unwrap(), "{\"x\":1}\n");
    }

    #[test]
    fn id_and_meta_checks_fail_when_they_should() {
        let meta = record("m", Body::Meta(Meta::default()), None);
        let user = record("u", Body::User { text: "x".into(), attachments: vec![] }, None);
        let twice = Read { records: vec![meta.clone(), user.clone(), user.clone()], ..Read::default() };
        assert!(std::panic::catch_unwind(|| check_unique_ids(&twice)).is_err());
        let no_meta = Read { records: vec![user.clone()], ..Read::default() };
        assert!(std::panic::catch_unwind(|| check_meta_first(&no_meta)).is_err());
        check_meta_first(&Read { records: vec![meta, user], ..Read::default() });
    }
}
