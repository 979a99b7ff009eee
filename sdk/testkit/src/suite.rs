//! The conformance suite: the checks every codec's lab fixtures go through,
//! driven by a table of what the codec's fixtures hold ([`Suite`]).
//!
//! [`conformance_suite!`](crate::conformance_suite) turns the table into one
//! named `#[test]` per check; each check is also a plain function here, for
//! a codec that wants to call one by hand.

use std::path::{Path, PathBuf};

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Body, Record, Usage};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::known::Handling;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Codec, Diagnostic, Operation, Plan, WriteOptions, WrittenFiles};

use crate::{Read, Spans};

/// What the lab's scripted sessions say, the same in every harness: a codec
/// table quotes these rather than copying them.
pub mod lab {
    /// The two prompts of `simple`.
    pub const SIMPLE_PROMPTS: &[&str] =
        &["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"];
    /// The prompt of `parallel`.
    pub const PARALLEL_PROMPT: &str = "Read hello.txt and second.txt and tell me both words.";
    /// The prompt of `failing-tool`.
    pub const FAILING_PROMPT: &str = "Run cat missing.txt and tell me what happened.";
    /// The prompt of `multibyte`.
    pub const MULTIBYTE_PROMPT: &str = "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).";
    /// The prompt of `long-output`.
    pub const LONG_PROMPT: &str = "Print long.txt with cat and tell me how it begins.";
    /// The secret word of hello.txt.
    pub const SECRET: &str = "PAPAYA-42";
    /// The secret word of second.txt.
    pub const SECOND_SECRET: &str = "KIWI-58";
    /// What `multibyte`'s tool result holds, every piece intact.
    pub const MULTIBYTE_PIECES: &[&str] = &[
        "秘密の言葉は「桃」",
        "안녕하세요",
        "👩\u{200d}💻",
        "🏳\u{fe0f}\u{200d}🌈",
        "o\u{302}\u{323}",
        "Sentinel: CHERRY-本-91 ✓",
    ];
    /// The sentinel `multibyte`'s answer repeats.
    pub const MULTIBYTE_SENTINEL: &str = "CHERRY-本-91 ✓";
    /// The first and last lines `long-output`'s command printed.
    pub const LONG_BEGIN: &str = "LONG-OUTPUT-BEGIN LEMON-512";
    pub const LONG_END: &str = "LONG-OUTPUT-END LIME-1024";
}

/// A check the codec runs, or skips saying why (the skip is printed).
#[derive(Debug, Clone, Copy)]
pub enum Check<T> {
    Run(T),
    Skip(&'static str),
}

impl<T> Check<T> {
    /// The value to run with; `None` after printing why the check is skipped.
    pub fn run(&self, what: &str) -> Option<&T> {
        match self {
            Check::Run(t) => Some(t),
            Check::Skip(why) => {
                eprintln!("skipped {what}: {why}");
                None
            }
        }
    }
}

/// What a text must be: every part that is set must hold.
#[derive(Debug, Clone, Copy)]
pub struct Text {
    pub is: Option<&'static str>,
    pub starts: &'static str,
    pub has: &'static [&'static str],
    /// The text is the whole of this file under the home (a spill file).
    pub file: Option<&'static str>,
    pub min_len: usize,
}

impl Text {
    /// Any text.
    pub const ANY: Text = Text { is: None, starts: "", has: &[], file: None, min_len: 0 };
    /// Exactly `text`.
    pub const fn is(text: &'static str) -> Text {
        Text { is: Some(text), ..Text::ANY }
    }
    /// Holding each of `parts`.
    pub const fn has(parts: &'static [&'static str]) -> Text {
        Text { has: parts, ..Text::ANY }
    }
    /// Starting with `prefix`.
    pub const fn starts(prefix: &'static str) -> Text {
        Text { starts: prefix, ..Text::ANY }
    }
    /// And holding each of `parts`.
    pub const fn and_has(self, parts: &'static [&'static str]) -> Text {
        Text { has: parts, ..self }
    }
    /// And the whole of the file at `path` under the home.
    pub const fn and_file(self, path: &'static str) -> Text {
        Text { file: Some(path), ..self }
    }
    /// And at least `len` bytes long.
    pub const fn and_min_len(self, len: usize) -> Text {
        Text { min_len: len, ..self }
    }

    /// Asserts `actual` is such a text; `home` holds `file`.
    pub fn check(&self, what: &str, actual: &str, home: &Path) {
        if let Some(is) = self.is {
            assert_eq!(actual, is, "{what}");
        }
        assert!(actual.starts_with(self.starts), "{what}: does not start with {:?}: {actual:?}", self.starts);
        for part in self.has {
            assert!(actual.contains(part), "{what}: {part:?} missing from {actual:?}");
        }
        if let Some(file) = self.file {
            let whole = std::fs::read_to_string(home.join(file)).unwrap_or_else(|e| panic!("{what}: {file}: {e}"));
            assert!(
                actual == whole,
                "{what}: not the whole of {file} ({} bytes, the file {})",
                actual.len(),
                whole.len()
            );
        }
        assert!(actual.len() >= self.min_len, "{what}: {} bytes, fewer than {}", actual.len(), self.min_len);
    }
}

/// A tool call: its name, and a JSON object its arguments hold (every
/// member of it, equal; others may be there too unless `whole`).
#[derive(Debug, Clone, Copy)]
pub struct Call {
    pub name: &'static str,
    pub args: &'static str,
    pub whole: bool,
}

impl Call {
    /// A call whose arguments hold (at least) the members of `args`.
    pub const fn with(name: &'static str, args: &'static str) -> Call {
        Call { name, args, whole: false }
    }
    /// A call whose arguments are exactly `args`.
    pub const fn exactly(name: &'static str, args: &'static str) -> Call {
        Call { name, args, whole: true }
    }
}

/// A tool result: the call it answers (its index among the calls), its
/// content and its `ok` flag as the store recorded it.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub call: usize,
    pub text: Text,
    pub ok: Option<bool>,
}

/// What one lab scenario's session must hold.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    /// Every user text, in order.
    pub users: &'static [&'static str],
    /// Every tool call, in order.
    pub calls: &'static [Call],
    /// Every tool result, in order; each answers a call of the session.
    pub results: &'static [Outcome],
    /// Every non-empty assistant text, in order.
    pub answers: &'static [Text],
    /// The kind of every record after `meta`, in order; empty: not pinned
    /// (the counts above still are).
    pub kinds: &'static [&'static str],
    /// The session's title, when the store keeps one.
    pub title: Option<&'static str>,
}

impl Expect {
    pub const NOTHING: Expect = Expect { users: &[], calls: &[], results: &[], answers: &[], kinds: &[], title: None };
}

/// One lab scenario: `fixtures/<harness>/<version>/<name>/` is its home.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    pub name: &'static str,
    pub native_id: &'static str,
    pub expect: Expect,
}

/// What the codec's info says.
#[derive(Debug, Clone, Copy)]
pub struct Info {
    pub native_versions: &'static str,
    /// The words of `native_version_source` hold this.
    pub version_source: &'static str,
    pub reads: &'static [&'static str],
    pub writes: &'static [&'static str],
}

/// The native types of the format: the codec's table (`KNOWN_RECORD_TYPES`)
/// and how to tell a raw record's type, classified here independently of
/// the codec.
#[derive(Debug, Clone, Copy)]
pub struct NativeTypes {
    pub table: &'static [(&'static str, Handling)],
    /// The raw records of a session (default: [`crate::raw_lines`] of the
    /// session file).
    pub raw: fn(home: &Path, locator: &str) -> Vec<Value>,
    /// The native type of a raw record, as the table names it.
    pub kind_of: fn(&Value) -> String,
    /// Types the fixtures hold between them (all of them, or at least these).
    pub seen: &'static [&'static str],
    /// `seen` is every type the fixtures hold, not only some.
    pub seen_exactly: bool,
}

/// The raw records of a JSON-lines session file.
pub fn raw_session_lines(home: &Path, locator: &str) -> Vec<Value> {
    crate::raw_lines(&home.join(locator))
}

/// The `type` member of a raw record.
pub fn type_member(line: &Value) -> String {
    line["type"].as_str().unwrap_or("(no type)").to_string()
}

/// Damage to a JSON-lines session: a torn last line, a corrupt middle one.
#[derive(Debug, Clone, Copy)]
pub struct Damage {
    /// The scenario whose session is torn, and the text of the line torn
    /// (cut just before it).
    pub tear: (&'static str, &'static str),
    /// The scenario whose line (by index) is cut to 40 bytes.
    pub corrupt: (&'static str, usize),
}

/// How a written session is compared with its source.
#[derive(Debug, Clone, Copy)]
pub enum Compare {
    /// User texts, tool calls (name, arguments), results, assistant texts.
    Conversation,
    /// Every record body but `meta`, with these members removed, and its
    /// `ts` when `ts` is set.
    Bodies { ignore: &'static [&'static str], ts: bool },
    /// Every record but `meta` whole (ids, parents, times), but its `src`.
    Records,
}

/// How a written export is installed in a test home.
#[derive(Debug, Clone, Copy)]
pub enum Install {
    /// Its artifacts are the files, at their paths.
    Files,
    /// `prepare` into the home, its plan applied with `Writes::apply`.
    Prepare,
}

/// Prepare into a home that already holds sessions.
#[derive(Debug, Clone, Copy)]
pub struct Beside {
    /// The scenarios whose homes, merged, are the target.
    pub scenarios: &'static [&'static str],
    /// Files of the target the plan may change (a database that takes rows).
    pub may_change: &'static [&'static str],
}

/// What the codec writes, and how the suite checks it.
#[derive(Debug, Clone, Copy)]
pub struct Writes {
    pub compare: Compare,
    pub install: Install,
    /// Where the written session is read: from what was written.
    pub locator: fn(&WrittenFiles) -> String,
    /// Applies a plan to a native home, as the host does.
    pub apply: fn(&Plan, &Path),
    /// The options of every write (the home path is set for prepare).
    pub options: fn() -> WriteOptions,
    /// `meta` members the written session keeps from its source.
    pub meta_kept: &'static [&'static str],
    /// Writing the codec's own sessions carries everything: no `not-carried`
    /// or `untranslated-reasoning` diagnostic, and the session reads back
    /// without one.
    pub lossless: bool,
    /// The plan names a resume command holding the session id.
    pub resumes: bool,
    /// What the refusal of a second prepare of one export says.
    pub refusal_says: &'static str,
    /// Prepare beside other sessions.
    pub beside: Check<Beside>,
}

/// The first artifact's path: the session file of a one-file export.
pub fn first_artifact(written: &WrittenFiles) -> String {
    written.artifacts[0].path.clone()
}

/// Options with nothing chosen.
pub fn no_options() -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: None }
}

impl Writes {
    pub const DEFAULT: Writes = Writes {
        compare: Compare::Conversation,
        install: Install::Files,
        locator: first_artifact,
        apply: apply_files,
        options: no_options,
        meta_kept: &["cwd", "title", "started_at"],
        lossless: true,
        resumes: true,
        refusal_says: "",
        beside: Check::Run(Beside { scenarios: &["simple", "parallel"], may_change: &[] }),
    };
}

/// A session file read by a path outside the store's layout.
#[derive(Debug, Clone, Copy)]
pub struct Loose {
    /// The path (under a copy of the home) the session file is moved to.
    pub path: &'static str,
    /// `discover` still lists it (by the id its content holds).
    pub discovered: bool,
    /// `sniff` claims it.
    pub sniffed: bool,
    /// The session's whole folder moves (to `path`'s folder), not its file
    /// alone: a session of several files.
    pub folder: bool,
}

/// The table that drives the suite for one codec.
#[derive(Debug, Clone)]
pub struct Suite {
    /// `fixtures/<harness>/<version>`, and the harness `info` and `meta` name.
    pub harness: &'static str,
    pub version: &'static str,
    pub scenarios: &'static [Scenario],
    /// The locator of a scenario's session, from its id.
    pub locator: fn(native_id: &str) -> String,
    pub spans: Spans,
    pub info: Info,
    /// Every session's cwd and native version, as discover and meta say.
    pub cwd: Option<&'static str>,
    pub native_version: Option<&'static str>,
    /// The model of every assistant record.
    pub model: Option<&'static str>,
    /// The usage of every assistant record (`None`: none recorded).
    pub usage: Check<Option<Usage>>,
    /// Every record has a timestamp, and they never go back.
    pub timestamps: bool,
    /// Diagnostic codes no fixture read may carry.
    pub clean_of: &'static [&'static str],
    pub native_types: Check<NativeTypes>,
    pub damage: Check<Damage>,
    pub writes: Check<Writes>,
    pub loose: Check<Loose>,
}

impl Suite {
    pub fn home(&self, scenario: &str) -> PathBuf {
        crate::fixtures(self.harness, self.version).join(scenario)
    }

    pub fn scenario(&self, name: &str) -> &Scenario {
        self.scenarios.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no scenario {name}"))
    }

    pub fn locator_of(&self, name: &str) -> String {
        (self.locator)(self.scenario(name).native_id)
    }

    /// Reads a scenario's session (in one batch).
    pub fn read<C: Codec>(&self, name: &str) -> Read {
        crate::read::<C>(&self.home(name), &self.locator_of(name))
    }
}

// ------------------------------------------------------------------ the checks

/// `info` names the harness, versions and formats, and its globs match
/// every scenario's session.
pub fn info<C: Codec>(suite: &Suite, codec_version: &str) {
    let info = C::info();
    assert_eq!(info.harness, suite.harness);
    assert_eq!(info.codec_version, codec_version);
    assert_eq!(info.native_versions, suite.info.native_versions);
    assert!(
        info.native_version_source.contains(suite.info.version_source),
        "{:?} does not say {:?}",
        info.native_version_source,
        suite.info.version_source
    );
    assert_eq!(info.reads, suite.info.reads);
    assert_eq!(info.writes, suite.info.writes);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
    for s in suite.scenarios {
        let locator = (suite.locator)(s.native_id);
        assert!(
            info.session_globs.iter().any(|g| crate::glob_matches(g, &locator)),
            "{}: {locator} matches none of {:?}",
            s.name,
            info.session_globs
        );
    }
}

/// `discover` lists each scenario's session, alone in its home and without
/// a diagnostic; `inspect` says the same; `read` agrees on id, cwd, title,
/// start and version.
pub fn discover<C: Codec>(suite: &Suite) {
    for s in suite.scenarios {
        let home = suite.home(s.name);
        let found = crate::discover::<C>(&home);
        assert!(found.diagnostics.is_empty(), "{}: {:?}", s.name, found.diagnostics);
        assert_eq!(found.sessions.len(), 1, "{}: {:?}", s.name, found.sessions);
        let session = &found.sessions[0];
        assert_eq!(session.native_id, s.native_id, "{}", s.name);
        assert_eq!(session.locator, (suite.locator)(s.native_id), "{}", s.name);
        assert_eq!(session.cwd.as_deref(), suite.cwd, "{}", s.name);
        assert_eq!(session.native_version.as_deref(), suite.native_version, "{}", s.name);
        assert!(session.size > 0, "{}: no size", s.name);
        let inspected =
            C::inspect(&Dir::native(&home), &session.locator).unwrap_or_else(|e| panic!("{}: inspect: {e:?}", s.name));
        assert_eq!(format!("{inspected:?}"), format!("{session:?}"), "{}: inspect differs from discover", s.name);
        let read = suite.read::<C>(s.name);
        let meta = read.meta();
        assert_eq!(meta.native_id, session.native_id, "{}", s.name);
        assert_eq!(meta.cwd, session.cwd, "{}", s.name);
        assert_eq!(meta.title, session.title, "{}", s.name);
        assert_eq!(meta.started_at, session.started_at, "{}", s.name);
        assert_eq!(meta.native_version, session.native_version, "{}", s.name);
    }
}

/// A home without the harness holds no sessions and no diagnostics.
pub fn empty_home<C: Codec>() {
    let dir = tempfile::tempdir().unwrap();
    let found = crate::discover::<C>(dir.path());
    assert!(found.sessions.is_empty(), "{:?}", found.sessions);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

/// Every scenario passes [`crate::conformance`]: store untouched, `meta`
/// first, spans, stable and unique ids, batching.
pub fn kit_checks<C: Codec>(suite: &Suite) {
    for s in suite.scenarios {
        let read = crate::conformance::<C>(&suite.home(s.name), &(suite.locator)(s.native_id), suite.spans);
        for code in suite.clean_of {
            assert!(read.diag(code).is_none(), "{}: {code}: {:?}", s.name, read.diagnostics);
        }
    }
}

/// `meta` names the harness, the session, its cwd, version and codec; the
/// first record's time is the session's start.
pub fn meta<C: Codec>(suite: &Suite, codec_version: &str) {
    for s in suite.scenarios {
        let read = suite.read::<C>(s.name);
        let meta = read.meta();
        assert_eq!(meta.harness, suite.harness, "{}", s.name);
        assert_eq!(meta.schema, trajhost_codec_sdk::canonical::SCHEMA, "{}", s.name);
        assert_eq!(meta.native_id, s.native_id, "{}", s.name);
        assert_eq!(meta.cwd.as_deref(), suite.cwd, "{}", s.name);
        assert_eq!(meta.native_version.as_deref(), suite.native_version, "{}", s.name);
        assert_eq!(meta.codec, Some(format!("{}@{codec_version}", suite.harness)), "{}", s.name);
        assert_eq!(read.records[0].ts, meta.started_at, "{}", s.name);
        if let Some(title) = s.expect.title {
            assert_eq!(meta.title.as_deref(), Some(title), "{}", s.name);
        }
    }
}

/// One scenario's session holds what its table says: prompts, calls with
/// their arguments, results answering them (content and `ok`), answers,
/// record kinds; every assistant record the model and usage of the suite.
pub fn scenario<C: Codec>(suite: &Suite, name: &str) {
    let Some(s) = suite.scenarios.iter().find(|s| s.name == name) else {
        eprintln!("skipped {name}: the {} {} fixtures have no {name} scenario", suite.harness, suite.version);
        return;
    };
    let home = suite.home(name);
    let read = suite.read::<C>(name);
    let records = &read.records;
    let expect = &s.expect;
    assert_eq!(crate::users(records), expect.users, "{name}: user texts");

    let calls = crate::tool_calls(records);
    let names: Vec<&str> = calls.iter().map(|c| c.1).collect();
    let expected: Vec<&str> = expect.calls.iter().map(|c| c.name).collect();
    assert_eq!(names, expected, "{name}: tool calls");
    for ((_, call_name, arguments), call) in calls.iter().zip(expect.calls) {
        let want: Value = serde_json::from_str(call.args).unwrap_or_else(|e| panic!("{name}: {}: {e}", call.args));
        if call.whole {
            assert_eq!(*arguments, &want, "{name}: {call_name}'s arguments");
        }
        for (key, value) in want.as_object().unwrap_or_else(|| panic!("{name}: {} is no object", call.args)) {
            assert_eq!(arguments.get(key), Some(value), "{name}: {call_name}.{key} in {arguments}");
        }
    }

    let results = crate::tool_results(records);
    assert_eq!(results.len(), expect.results.len(), "{name}: tool results {results:?}");
    for (i, ((call_id, content, ok), outcome)) in results.iter().zip(expect.results).enumerate() {
        let what = format!("{name}: result {i}");
        let call = calls.get(outcome.call).unwrap_or_else(|| panic!("{what}: no call {}", outcome.call));
        assert_eq!(*call_id, call.0, "{what} answers call {} ({})", outcome.call, call.1);
        outcome.text.check(&what, content, &home);
        assert_eq!(*ok, outcome.ok, "{what}: ok");
    }

    let answers = crate::assistant_texts(records);
    assert_eq!(answers.len(), expect.answers.len(), "{name}: answers {answers:?}");
    for (i, (text, want)) in answers.iter().zip(expect.answers).enumerate() {
        want.check(&format!("{name}: answer {i}"), text, &home);
    }
    if !expect.kinds.is_empty() {
        assert_eq!(&crate::kinds(records)[1..], expect.kinds, "{name}: record kinds");
    }
    if let Some(model) = suite.model {
        for a in crate::assistants(records) {
            assert_eq!(a.model.as_deref(), Some(model), "{name}: model");
        }
    }
    if let Some(usage) = suite.usage.run("usage") {
        for a in crate::assistants(records) {
            assert_eq!(&a.usage, usage, "{name}: usage of {:?}", a.text);
        }
    }
}

/// Records come in the order the store holds them: times never go back
/// (and every record has one, where the suite says so), spans never go
/// back within a JSON-lines file.
pub fn order<C: Codec>(suite: &Suite) {
    for s in suite.scenarios {
        let read = suite.read::<C>(s.name);
        let mut last: Option<&str> = None;
        for r in &read.records {
            let Some(ts) = r.ts.as_deref() else {
                assert!(!suite.timestamps, "{}: {} ({}) has no ts", s.name, r.id, r.body.kind());
                continue;
            };
            if suite.timestamps {
                // RFC 3339 in UTC with one precision sorts as text.
                assert!(last.is_none_or(|l| l <= ts), "{}: {} at {ts} comes after {last:?}", s.name, r.id);
                last = Some(ts);
            }
        }
        if suite.spans == Spans::Lines {
            let mut at: std::collections::BTreeMap<&str, u64> = Default::default();
            for r in read.records.iter().skip(1) {
                let Some(src) = &r.src else { continue };
                let before = at.insert(&src.file, src.offset).unwrap_or(0);
                assert!(before <= src.offset, "{}: {} ({}) goes back in {}", s.name, r.id, r.body.kind(), src.file);
            }
        }
    }
}

/// The key a record's native line names it by: the session id for `meta`,
/// the call id for calls and results, else the record id (before `#`).
fn native_key(record: &Record) -> &str {
    match &record.body {
        Body::Meta(m) => &m.native_id,
        Body::ToolCall { call_id, .. } | Body::ToolResult { call_id, .. } => call_id,
        _ => record.id.split('#').next().unwrap_or(&record.id),
    }
}

/// Whether `value` holds the string `needle` anywhere.
pub fn holds_string(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s == needle,
        Value::Array(a) => a.iter().any(|v| holds_string(v, needle)),
        Value::Object(o) => o.values().any(|v| holds_string(v, needle)),
        _ => false,
    }
}

/// Every record's span slices back to the native record that names it (a
/// JSON value holding the record's native key).
pub fn spans_name_records<C: Codec>(suite: &Suite) {
    if suite.spans == Spans::Rows {
        eprintln!("skipped spans_name_records: row spans point at rows, not JSON");
        return;
    }
    for s in suite.scenarios {
        let home = suite.home(s.name);
        let read = suite.read::<C>(s.name);
        for r in &read.records {
            let src = r.src.as_ref().unwrap_or_else(|| panic!("{}: {} has no src", s.name, r.id));
            let value = crate::span_json(&home, src);
            let key = native_key(r);
            assert!(
                holds_string(&value, key),
                "{}: {} ({}): its span does not name {key:?}",
                s.name,
                r.id,
                r.body.kind()
            );
        }
    }
}

/// Every native type of the fixtures is in the codec's table, handled as
/// the table says, and the fixtures hold the types the suite names.
pub fn native_types<C: Codec>(suite: &Suite) {
    let Some(types) = suite.native_types.run("native_types") else { return };
    let mut seen = std::collections::BTreeSet::new();
    for s in suite.scenarios {
        let home = suite.home(s.name);
        let locator = (suite.locator)(s.native_id);
        let raw = (types.raw)(&home, &locator);
        for line in &raw {
            let kind = (types.kind_of)(line);
            assert!(types.table.iter().any(|(k, _)| *k == kind), "{}: type {kind:?} is not in the table", s.name);
            seen.insert(kind);
        }
        let read = suite.read::<C>(s.name);
        crate::check_handling(&read, types.table, |kind| {
            raw.iter().filter(|l| (types.kind_of)(l) == kind).count() as u32
        });
    }
    let seen: Vec<&str> = seen.iter().map(String::as_str).collect();
    if types.seen_exactly {
        let mut want = types.seen.to_vec();
        want.sort();
        assert_eq!(seen, want, "the fixtures' types");
    } else {
        for kind in types.seen {
            assert!(seen.contains(kind), "no fixture holds {kind}: {seen:?}");
        }
    }
}

/// A torn last line is one `torn-tail` warning, and every record of the
/// lines before it is read as before.
pub fn torn_tail<C: Codec>(suite: &Suite) {
    let Some(damage) = suite.damage.run("torn_tail") else { return };
    let (name, needle) = damage.tear;
    let whole = suite.read::<C>(name);
    let dir = crate::copy_of(&suite.home(name));
    let locator = suite.locator_of(name);
    let line_start = crate::tear_at(&dir.path().join(&locator), needle);
    let torn = crate::read::<C>(dir.path(), &locator);
    crate::check_torn_tail(&torn, line_start, needle);
    let before: Vec<&Record> = whole.records[1..]
        .iter()
        .filter(|r| r.src.as_ref().is_some_and(|src| src.file != locator || src.offset < line_start))
        .collect();
    assert!(before.len() < whole.records.len() - 1, "{name}: tearing at {needle:?} lost nothing");
    assert_eq!(torn.records[1..].iter().collect::<Vec<_>>(), before, "{name}: the records before the torn line");
}

/// A corrupt middle line is one `malformed-line` error, and the tool
/// calls, their results and the last answer are still read.
pub fn corrupt_line<C: Codec>(suite: &Suite) {
    let Some(damage) = suite.damage.run("corrupt_line") else { return };
    let (name, index) = damage.corrupt;
    let whole = suite.read::<C>(name);
    let dir = crate::copy_of(&suite.home(name));
    let locator = suite.locator_of(name);
    let offset = crate::corrupt_line(&dir.path().join(&locator), index, 40);
    let read = crate::read::<C>(dir.path(), &locator);
    crate::check_corrupt_line(&read, offset);
    assert_eq!(crate::tool_calls(&read.records), crate::tool_calls(&whole.records), "{name}: calls");
    assert_eq!(crate::tool_results(&read.records), crate::tool_results(&whole.records), "{name}: results");
    assert_eq!(
        crate::assistant_texts(&read.records).last(),
        crate::assistant_texts(&whole.records).last(),
        "{name}: the last answer"
    );
}

// ------------------------------------------------------------------ writing

/// Writes a canonical document natively, as the host pushes it.
pub fn write<C: Codec>(document: &str, options: WriteOptions) -> WrittenFiles {
    trajhost_codec_sdk::write_document::<C>(document, options).unwrap_or_else(|e| panic!("write: {e:?}"))
}

/// Runs `prepare` of `written` into `home`, with the default target choice.
pub fn prepare<C: Codec>(
    written: &WrittenFiles,
    home: &Path,
    options: WriteOptions,
) -> Result<Plan, trajhost_codec_sdk::CodecError> {
    target::set_for_tests(TargetChoice::default());
    trajhost_codec_sdk::prepare_artifacts::<C>(written.artifacts.clone(), &Dir::native(home), options)
}

/// Applies a plan of `create-file`s as the host does, never over an
/// existing file (any other operation fails the test: a codec whose plans
/// hold others passes its own `apply`).
pub fn apply_files(plan: &Plan, home: &Path) {
    for op in &plan.operations {
        let Operation::CreateFile(create) = op else { panic!("only create-file: {op:?}") };
        let path = home.join(&create.path);
        assert!(!path.exists(), "the plan overwrites {}", create.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &create.bytes).unwrap();
    }
}

/// The codes of `diagnostics` with `code`: their details.
pub fn details<'a>(diagnostics: &'a [Diagnostic], code: &str) -> Vec<&'a str> {
    diagnostics.iter().filter(|d| d.code == code).map(|d| d.detail.as_str()).collect()
}

/// Installs `written` into a fresh home as the suite says, and reads it back.
pub fn install_and_read<C: Codec>(writes: &Writes, written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    let dir = tempfile::tempdir().unwrap();
    match writes.install {
        Install::Files => {
            for artifact in &written.artifacts {
                let path = dir.path().join(&artifact.path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &artifact.bytes).unwrap();
            }
        }
        Install::Prepare => {
            let options = WriteOptions { home_path: Some(dir.path().display().to_string()), ..(writes.options)() };
            let plan = prepare::<C>(written, dir.path(), options).unwrap_or_else(|e| panic!("prepare: {e:?}"));
            (writes.apply)(&plan, dir.path());
        }
    }
    let read = crate::read::<C>(dir.path(), &(writes.locator)(written));
    (dir, read)
}

/// What a round trip must keep of `records`, as the suite compares them.
pub fn kept(compare: Compare, records: &[Record]) -> Value {
    match compare {
        Compare::Conversation => serde_json::to_value(format!("{:?}", crate::conversation(records))).unwrap(),
        Compare::Bodies { ignore, ts } => records
            .iter()
            .filter(|r| !matches!(r.body, Body::Meta(_)))
            .map(|r| {
                let mut body = serde_json::to_value(&r.body).unwrap();
                if let Some(o) = body.as_object_mut() {
                    for member in ignore {
                        o.remove(*member);
                    }
                }
                if ts { serde_json::json!({"ts": r.ts, "body": body}) } else { body }
            })
            .collect(),
        Compare::Records => records
            .iter()
            .filter(|r| !matches!(r.body, Body::Meta(_)))
            .map(|r| Record { src: None, ..r.clone() })
            .map(|r| serde_json::to_value(r).unwrap())
            .collect(),
    }
}

/// Every scenario written and read back keeps what the suite compares, the
/// `meta` members it names, a new session id; the same document gives the
/// same bytes.
pub fn round_trip<C: Codec>(suite: &Suite) {
    let Some(writes) = suite.writes.run("round_trip") else { return };
    for s in suite.scenarios {
        let source = suite.read::<C>(s.name);
        let written = write::<C>(&source.document, (writes.options)());
        if writes.lossless {
            assert!(details(&written.diagnostics, "not-carried").is_empty(), "{}: {:?}", s.name, written.diagnostics);
            assert!(details(&written.diagnostics, "untranslated-reasoning").is_empty(), "{}", s.name);
        }
        let (_home, back) = install_and_read::<C>(writes, &written);
        assert_eq!(kept(writes.compare, &back.records), kept(writes.compare, &source.records), "{}", s.name);
        let (m, o) = (serde_json::to_value(back.meta()).unwrap(), serde_json::to_value(source.meta()).unwrap());
        for member in writes.meta_kept {
            assert_eq!(m[member], o[member], "{}: meta.{member}", s.name);
        }
        assert_eq!(back.meta().native_id, written.native_id, "{}", s.name);
        assert_ne!(back.meta().native_id, s.native_id, "{}: a new id, so the original can stay beside it", s.name);
        if writes.lossless {
            assert!(back.diagnostics.is_empty(), "{}: {:?}", s.name, back.diagnostics);
        }
        let again = write::<C>(&source.document, (writes.options)());
        let files =
            |w: &WrittenFiles| w.artifacts.iter().map(|a| (a.path.clone(), a.bytes.clone())).collect::<Vec<_>>();
        assert!(files(&again) == files(&written), "{}: the same document, other bytes", s.name);
    }
}

/// Prepare of `simple`'s export into an empty home: its files (and only
/// them), found by discover and read back as written; a second prepare of
/// the same export is refused.
pub fn prepare_into_an_empty_home<C: Codec>(suite: &Suite) {
    let Some(writes) = suite.writes.run("prepare_into_an_empty_home") else { return };
    let source = suite.read::<C>("simple");
    let written = write::<C>(&source.document, (writes.options)());
    let target = tempfile::tempdir().unwrap();
    let options = || WriteOptions { home_path: Some(target.path().display().to_string()), ..(writes.options)() };
    let plan = prepare::<C>(&written, target.path(), options()).unwrap_or_else(|e| panic!("prepare: {e:?}"));
    assert_eq!(plan.native_id, written.native_id);
    if writes.resumes {
        let resume = plan.resume_command.as_deref().expect("a resume command");
        assert!(resume.contains(&plan.native_id), "{resume}");
    }
    (writes.apply)(&plan, target.path());
    let found = crate::discover::<C>(target.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    assert_eq!(found.sessions[0].native_id, plan.native_id);
    let back = crate::read::<C>(target.path(), &found.sessions[0].locator);
    assert_eq!(kept(writes.compare, &back.records), kept(writes.compare, &source.records));
    match prepare::<C>(&written, target.path(), options()) {
        Ok(plan) => panic!("a second prepare of the same export: {plan:?}"),
        Err(e) => assert!(format!("{e:?}").contains(writes.refusal_says), "{e:?}"),
    }
}

/// Prepare beside other sessions: every file already there is
/// byte-identical afterwards (but those the suite lets change), the
/// others are still listed, and the new one too.
pub fn prepare_beside_sessions<C: Codec>(suite: &Suite) {
    let Some(writes) = suite.writes.run("prepare_beside_sessions") else { return };
    let Some(beside) = writes.beside.run("prepare_beside_sessions") else { return };
    let source = suite.read::<C>("simple");
    let written = write::<C>(&source.document, (writes.options)());
    let target = tempfile::tempdir().unwrap();
    for name in beside.scenarios {
        crate::copy_dir(&suite.home(name), target.path());
    }
    let listed = crate::discover::<C>(target.path()).sessions;
    assert_eq!(listed.len(), beside.scenarios.len(), "{listed:?}");
    let before = crate::tree_digest(target.path());
    let options = WriteOptions { home_path: Some(target.path().display().to_string()), ..(writes.options)() };
    let plan = prepare::<C>(&written, target.path(), options).unwrap_or_else(|e| panic!("prepare: {e:?}"));
    (writes.apply)(&plan, target.path());
    let after = crate::tree_digest(target.path());
    for (path, digest) in &before {
        if !beside.may_change.contains(&path.as_str()) {
            assert_eq!(after.get(path), Some(digest), "{path} changed");
        }
    }
    let found = crate::discover::<C>(target.path()).sessions;
    assert_eq!(found.len(), listed.len() + 1, "{found:?}");
    for old in &listed {
        assert!(found.iter().any(|s| s.native_id == old.native_id), "{} is gone", old.native_id);
    }
    let new = found.iter().find(|s| s.native_id == plan.native_id).expect("the new session is listed");
    let back = crate::read::<C>(target.path(), &new.locator);
    assert_eq!(kept(writes.compare, &back.records), kept(writes.compare, &source.records));
}

/// `simple`'s session file moved to a path outside the layout reads the
/// same records (but its `meta`, which may tell the move); `sniff` claims
/// it where the codec sniffs, and discover lists it where the suite says.
pub fn loose_file<C: Codec>(suite: &Suite) {
    let Some(loose) = suite.loose.run("loose_file") else { return };
    let whole = suite.read::<C>("simple");
    let dir = crate::copy_of(&suite.home("simple"));
    let to = dir.path().join(loose.path);
    let from = dir.path().join(suite.locator_of("simple"));
    if loose.folder {
        assert_eq!(from.file_name(), to.file_name(), "a moved folder keeps its file's name");
        std::fs::rename(from.parent().unwrap(), to.parent().unwrap()).unwrap();
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::rename(from, &to).unwrap();
    }
    let found = crate::discover::<C>(dir.path());
    if loose.discovered {
        assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
        assert_eq!(found.sessions[0].native_id, suite.scenario("simple").native_id);
        assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    }
    let head = std::fs::read(&to).unwrap();
    let sniffed = C::sniff(loose.path, &head[..head.len().min(64 << 10)]);
    assert_eq!(sniffed.is_some(), loose.sniffed, "sniff of {}: {sniffed:?}", loose.path);
    let read = crate::conformance::<C>(dir.path(), loose.path, suite.spans);
    assert_eq!(read.meta().native_id, whole.meta().native_id);
    assert_eq!(crate::conversation(&read.records), crate::conversation(&whole.records));
}

/// One named `#[test]` per check of the suite, in a module `conformance`
/// of the test crate that calls it:
///
/// ```ignore
/// trajhost_codec_testkit::conformance_suite!(QwenCode, SUITE);
/// ```
///
/// `SUITE` is a `const` (or `static`) [`Suite`]; the codec crate's own
/// version (`CARGO_PKG_VERSION`) is the one `info` and `meta` must name.
#[macro_export]
macro_rules! conformance_suite {
    ($codec:ty, $suite:expr) => {
        mod conformance {
            use super::*;
            use $crate::suite as s;
            const VERSION: &str = env!("CARGO_PKG_VERSION");

            #[test]
            fn info_names_the_codec_and_its_globs_match_every_scenario() {
                s::info::<$codec>(&$suite, VERSION)
            }
            #[test]
            fn discover_lists_every_scenario_as_inspect_and_read_do() {
                s::discover::<$codec>(&$suite)
            }
            #[test]
            fn an_empty_home_has_no_sessions() {
                s::empty_home::<$codec>()
            }
            #[test]
            fn every_scenario_passes_the_kit_checks() {
                s::kit_checks::<$codec>(&$suite)
            }
            #[test]
            fn meta_names_the_session() {
                s::meta::<$codec>(&$suite, VERSION)
            }
            #[test]
            fn simple_scenario() {
                s::scenario::<$codec>(&$suite, "simple")
            }
            #[test]
            fn parallel_scenario() {
                s::scenario::<$codec>(&$suite, "parallel")
            }
            #[test]
            fn failing_tool_scenario() {
                s::scenario::<$codec>(&$suite, "failing-tool")
            }
            #[test]
            fn multibyte_scenario() {
                s::scenario::<$codec>(&$suite, "multibyte")
            }
            #[test]
            fn long_output_scenario() {
                s::scenario::<$codec>(&$suite, "long-output")
            }
            #[test]
            fn records_come_in_store_order() {
                s::order::<$codec>(&$suite)
            }
            #[test]
            fn spans_name_their_records() {
                s::spans_name_records::<$codec>(&$suite)
            }
            #[test]
            fn native_types_are_mapped_or_reported() {
                s::native_types::<$codec>(&$suite)
            }
            #[test]
            fn a_torn_tail_is_a_warning() {
                s::torn_tail::<$codec>(&$suite)
            }
            #[test]
            fn a_corrupt_line_is_an_error() {
                s::corrupt_line::<$codec>(&$suite)
            }
            #[test]
            fn round_trip_keeps_every_scenario() {
                s::round_trip::<$codec>(&$suite)
            }
            #[test]
            fn prepare_into_an_empty_home() {
                s::prepare_into_an_empty_home::<$codec>(&$suite)
            }
            #[test]
            fn prepare_beside_sessions_leaves_them_byte_identical() {
                s::prepare_beside_sessions::<$codec>(&$suite)
            }
            #[test]
            fn a_loose_session_file_is_read() {
                s::loose_file::<$codec>(&$suite)
            }
        }
    };
}
