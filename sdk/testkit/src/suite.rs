//! The conformance suite: the checks every codec's lab fixtures go through,
//! driven by a table of what the codec's fixtures hold.
//!
//! The table is JSON (`tests/conformance.json` beside the codec's tests,
//! see [`Table`]): the values particular to the codec (ids, tool names,
//! result texts, flags). What JSON cannot say, the codec passes in a
//! [`Suite`]: its table of native types and how to tell a raw record's
//! type, and how to apply a plan that is more than files.
//! [`conformance_suite!`](crate::conformance_suite) turns both into one
//! named `#[test]` per check; each check is also a plain function here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;
use trajhost_codec_sdk::canonical::{Body, Record, Usage};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::known::Handling;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Codec, Diagnostic, Operation, Plan, SessionReader, WriteOptions, WrittenFiles};

use crate::{Read, Spans};

/// What the lab's scripted sessions say, the same in every harness.
pub mod lab {
    /// The prompts of each lab scenario: a table's `users` default.
    pub const PROMPTS: &[(&str, &[&str])] = &[
        ("simple", &["Read hello.txt and tell me the secret word.", "What was the secret word again? [notool]"]),
        ("parallel", &["Read hello.txt and second.txt and tell me both words."]),
        ("failing-tool", &["Run cat missing.txt and tell me what happened."]),
        ("multibyte", &[MULTIBYTE_PROMPT]),
        ("long-output", &["Print long.txt with cat and tell me how it begins."]),
    ];
    /// Each lab scenario and its first prompt.
    pub const FIRST_PROMPTS: [(&str, &str); 5] = {
        let mut out = [("", ""); 5];
        let mut i = 0;
        while i < out.len() {
            out[i] = (PROMPTS[i].0, PROMPTS[i].1[0]);
            i += 1;
        }
        out
    };
    pub const MULTIBYTE_PROMPT: &str = "Lies bitte unicode.txt — 読んでください 🍍, and tell me the sentinel (café with a combining acute: cafe\u{301}).";
    /// What `multibyte`'s tool result holds, every piece intact: a table
    /// says `"@multibyte"` among the parts a text `has`.
    pub const MULTIBYTE_PIECES: &[&str] = &[
        "秘密の言葉は「桃」",
        "안녕하세요",
        "👩\u{200d}💻",
        "🏳\u{fe0f}\u{200d}🌈",
        "o\u{302}\u{323}",
        "Sentinel: CHERRY-本-91 ✓",
    ];
}

/// What the codec passes besides its JSON table: what JSON cannot say.
#[derive(Debug, Clone, Copy)]
pub struct Suite {
    /// The JSON table, `include_str!("conformance.json")`.
    pub table: &'static str,
    /// The codec's table of native types (`KNOWN_RECORD_TYPES`); empty:
    /// the JSON table says why the types are not checked.
    pub types: &'static [(&'static str, Handling)],
    /// The native types a raw record holds (one, mostly), classified here
    /// independently of the codec (default: its `type` member).
    pub kind_of: fn(&Value) -> Vec<String>,
    /// The raw records of a session (default: the session file's lines).
    pub raw: fn(home: &Path, locator: &str) -> Vec<Value>,
    /// Applies a plan to a native home as the host does, the export's
    /// artifacts at hand (default: files).
    pub apply: fn(&Plan, &WrittenFiles, &Path),
}

impl Suite {
    pub const DEFAULT: Suite =
        Suite { table: "", types: &[], kind_of: type_member, raw: raw_session_lines, apply: apply_files };

    /// The parsed table.
    pub fn table(&self) -> &'static Table {
        Table::load(self.table)
    }
}

/// Several type tables as one, each name behind its table's prefix (`""`:
/// none), for a codec that reports a type by its table's prefix
/// (`event_msg/token_count`, `wire:TurnBegin`): a [`Suite::types`] built
/// in a `fn suite() -> Suite` that the macro is given.
pub fn prefixed_types(tables: &[(&str, &'static [(&'static str, Handling)])]) -> &'static [(&'static str, Handling)] {
    let all = tables.iter().flat_map(|(prefix, table)| {
        table.iter().map(move |(kind, handling)| {
            let name: &'static str = if prefix.is_empty() { kind } else { format!("{prefix}{kind}").leak() };
            (name, *handling)
        })
    });
    all.collect::<Vec<_>>().leak()
}

/// The raw records of a JSON-lines session file.
pub fn raw_session_lines(home: &Path, locator: &str) -> Vec<Value> {
    crate::raw_lines(&home.join(locator))
}

/// The `type` member of a raw record.
pub fn type_member(line: &Value) -> Vec<String> {
    vec![line["type"].as_str().unwrap_or("(no type)").to_string()]
}

/// The `role` member of a raw message.
pub fn role_member(message: &Value) -> Vec<String> {
    vec![message["role"].as_str().unwrap_or("(no role)").to_string()]
}

// ------------------------------------------------------------------ the table

/// A part of the table that runs, or says why it is skipped (the reason is
/// printed when the check is).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Part<T> {
    Skip { skip: String },
    Run(T),
}

impl<T> Part<T> {
    /// The part to run with; `None` after printing why it is skipped.
    pub fn run(&self, what: &str) -> Option<&T> {
        match self {
            Part::Run(t) => Some(t),
            Part::Skip { skip } => {
                eprintln!("skipped {what}: {skip}");
                None
            }
        }
    }
}

/// A codec's conformance table (`tests/conformance.json`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// `fixtures/<harness>/<version>`; the harness is the one `info` and
    /// `meta` name.
    pub harness: String,
    pub version: String,
    /// Where the scenario homes are, relative to the crate under test
    /// (a codec outside this repository: `"fixtures"` holds
    /// `fixtures/<scenario>/`); default: the repository's
    /// `fixtures/<harness>/<version>/`.
    pub fixtures: Option<String>,
    /// A session's locator, `{id}` standing for its native id and `{file}`
    /// for its scenario's `file`.
    pub locator: String,
    pub spans: SpanKind,
    /// Why records' spans do not name them (ids the codec makes, by a
    /// record's index in its session); `None`: they do.
    pub spans_unnamed: Option<String>,
    pub info: Info,
    /// Every session's cwd and native version, as discover and meta say.
    pub cwd: Option<String>,
    pub native_version: Option<String>,
    /// What discover takes from the files.
    #[serde(default)]
    pub discover: Discover,
    /// The model of every assistant record.
    pub model: Option<String>,
    /// The usage of every assistant record (`null`: none recorded).
    pub usage: Part<Option<Usage>>,
    /// Every record has a time.
    pub timestamps: bool,
    /// Times never go back (where the store keeps records in the order
    /// they happened).
    pub times_ordered: bool,
    /// The member of a record's native line (a JSON pointer) that holds its
    /// time, when the line has it.
    pub ts_member: Option<String>,
    /// Each tool call's record id is its call id.
    #[serde(default)]
    pub call_ids_are_record_ids: bool,
    /// Diagnostic codes no fixture read may carry.
    #[serde(default)]
    pub clean_of: Vec<String>,
    /// Why `meta` carries no time (the session's start, where it has one,
    /// is only its `started_at`); default: its time is the start.
    pub meta_untimed: Option<String>,
    /// Diagnostic codes discover may give for a fixture home (say why in
    /// the codec's tests).
    #[serde(default)]
    pub discover_may_say: Vec<String>,
    pub native_types: Part<NativeTypes>,
    pub damage: Part<Damage>,
    /// The codec continues a grown session file from a resume point
    /// (`read-from`); `{"skip": why}` when it cannot.
    #[serde(default = "Resumes::not_declared")]
    pub resumes: Part<Resumes>,
    pub writes: Part<Writes>,
    pub loose: Part<Loose>,
    /// The lab scenarios, by name: `fixtures/<harness>/<version>/<name>/`.
    pub scenarios: BTreeMap<String, Scenario>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SpanKind {
    Lines,
    Bytes,
    Rows,
}

impl From<SpanKind> for Spans {
    fn from(kind: SpanKind) -> Spans {
        match kind {
            SpanKind::Lines => Spans::Lines,
            SpanKind::Bytes => Spans::Bytes,
            SpanKind::Rows => Spans::Rows,
        }
    }
}

/// What the codec's info says.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Info {
    pub native_versions: String,
    /// The words of `native_version_source` hold this.
    pub version_source: String,
    pub reads: Vec<String>,
    pub writes: Vec<String>,
    /// Paths no session glob may match (files beside a session).
    #[serde(default)]
    pub not_sessions: Vec<String>,
    /// The session globs, exactly (default: only that they match).
    pub globs: Option<Vec<String>>,
}

/// What discover takes from the session's files.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discover {
    /// `updated_at` is the session file's modification time.
    #[serde(default)]
    pub updated_is_mtime: bool,
    /// `size` is the bytes of the session file and of these (relative to
    /// its folder, `{id}` standing for the id; `dir/*`: every file of that
    /// folder; `"*"`: every file of the session's folder, its file among
    /// them); `None`: not pinned.
    pub size_of: Option<Vec<String>>,
    /// `started_at` is this member (a JSON pointer) of the line at index 0
    /// of the session file, or of the line the number says.
    pub started_at: Option<(usize, String)>,
    /// `title` is this member (a JSON pointer) of the line at this index.
    pub title: Option<(usize, String)>,
    /// Discover titles a session (by its first prompt) though the store
    /// keeps no title, so `meta` has none.
    #[serde(default)]
    pub title_only_in_discover: bool,
    /// The title is a prefix of the first prompt (at most 80 characters,
    /// an ellipsis marking a cut).
    #[serde(default)]
    pub title_from_prompt: bool,
}

/// The native types the fixtures hold (the codec's table is in [`Suite`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeTypes {
    /// Types the fixtures hold between them: at least these, or exactly.
    pub seen: Vec<String>,
    #[serde(default)]
    pub exactly: bool,
    /// Why the handling of the types is not checked against the codec's
    /// table (it reports some by a finer name); `None`: it is.
    pub handling_unchecked: Option<String>,
}

/// Damage to a JSON-lines session: a torn last line, a corrupt middle one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Damage {
    /// The scenario whose session is torn, and the text of the line cut
    /// (just before that text).
    pub tear: (String, String),
    /// The scenario whose line (0-based) is cut to 40 bytes.
    pub corrupt: (String, usize),
}

/// How a written session is compared with its source.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compare {
    /// User texts, tool calls (name, arguments), results, assistant texts.
    Conversation,
    /// Every record body but `meta`, these members removed, with its `ts`
    /// when `ts` is set.
    Bodies { ignore: Vec<String>, ts: bool },
    /// Every record but `meta` whole (ids, parents, times) but its `src`.
    Records,
    /// As `records`, but for the ids holding this text (records named by
    /// their place in the file, which a rewrite moves).
    RecordsBut { ids_holding: String },
}

/// How a written export is installed in a test home.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Install {
    /// Its artifacts are the files, at their paths.
    Files,
    /// `prepare` into the home, the plan applied with [`Suite::apply`].
    Prepare,
}

/// What the codec writes, and how the suite checks it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Writes {
    pub compare: Compare,
    pub install: Install,
    /// The written session is read at the artifact whose path ends so
    /// (default: the first artifact; installed by `prepare`, where discover
    /// finds it).
    pub session_file: Option<String>,
    /// `meta` members the written session keeps from its source.
    pub meta_kept: Vec<String>,
    /// Writing the codec's own sessions carries everything: no
    /// `not-carried` or `untranslated-reasoning`, and read back it gives
    /// no diagnostic the source did not give.
    pub lossless: bool,
    /// The plan names a resume command holding the session id.
    pub resumes: bool,
    /// What the refusal of a second prepare of one export says.
    #[serde(default)]
    pub refusal_says: String,
    /// Prepare beside other sessions.
    pub beside: Part<Beside>,
    /// The scenario prepared into a home (default: `simple`).
    pub source: Option<String>,
    /// The cwd write and prepare are given (default: none, the
    /// session's): a store that files sessions by their work directory
    /// needs one where the session names none.
    pub cwd: Option<String>,
    /// A second prepare of one export into a home without the store's
    /// index is not refused by the codec but by the host: its plan creates
    /// a file that exists, which the host never overwrites.
    #[serde(default)]
    pub refused_on_apply: bool,
    /// The written session keeps its source's id (a store that files a
    /// session by its id); default: a new id, so the original can stay
    /// beside it.
    #[serde(default)]
    pub keeps_id: bool,
    /// The scenarios the round trip writes (default: every one), where the
    /// writer refuses some (say why in the codec's tests).
    pub round_trips: Option<Vec<String>>,
    /// Folders every target home holds before `prepare` (an installed
    /// harness the plan checks for), relative to the home.
    #[serde(default)]
    pub target_dirs: Vec<String>,
}

/// Prepare into a home that already holds sessions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Beside {
    /// The scenarios whose homes, merged, are the target.
    pub scenarios: Vec<String>,
    /// Files the plan may change (a database that takes rows).
    #[serde(default)]
    pub may_change: Vec<String>,
}

/// `simple`'s session file read by a path outside the store's layout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Loose {
    /// The scenario whose session moves (default: `simple`).
    pub scenario: Option<String>,
    /// The path (under a copy of the home) the session file moves to.
    pub path: String,
    /// `discover` still lists it (by the id its content holds).
    pub discovered: bool,
    /// `sniff` claims it.
    pub sniffed: bool,
    /// The session's whole folder moves (to `path`'s folder, the file's
    /// name kept): a session of several files.
    #[serde(default)]
    pub folder: bool,
}

/// What a text must be: every part that is set must hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub is: Option<String>,
    #[serde(default)]
    pub starts: String,
    /// Parts it holds; `"@multibyte"` stands for [`lab::MULTIBYTE_PIECES`].
    #[serde(default)]
    pub has: Vec<String>,
    /// It is the whole of this file under the home (a spill file).
    pub file: Option<String>,
    #[serde(default)]
    pub min_len: usize,
    /// It is the first string at this JSON pointer among the raw records.
    pub raw: Option<String>,
}

impl Text {
    /// Asserts `actual` is such a text, `raw` being the session's records.
    pub fn check(&self, what: &str, actual: &str, home: &Path, raw: &dyn Fn() -> Vec<Value>) {
        if let Some(is) = &self.is {
            assert_eq!(actual, is, "{what}");
        }
        assert!(actual.starts_with(&self.starts), "{what}: does not start with {:?}: {actual:?}", self.starts);
        let mut parts: Vec<&str> = Vec::new();
        for part in &self.has {
            match part.as_str() {
                "@multibyte" => parts.extend(lab::MULTIBYTE_PIECES),
                part => parts.push(part),
            }
        }
        for part in parts {
            assert!(actual.contains(part), "{what}: {part:?} missing from {actual:?}");
        }
        if let Some(file) = &self.file {
            let whole = std::fs::read_to_string(home.join(file)).unwrap_or_else(|e| panic!("{what}: {file}: {e}"));
            assert!(
                actual == whole,
                "{what}: not the whole of {file} ({} bytes, the file {})",
                actual.len(),
                whole.len()
            );
        }
        assert!(actual.len() >= self.min_len, "{what}: {} bytes, fewer than {}", actual.len(), self.min_len);
        if let Some(pointer) = &self.raw {
            let records = raw();
            let recorded = records.iter().find_map(|r| r.pointer(pointer).and_then(Value::as_str));
            assert_eq!(Some(actual), recorded, "{what}: the raw {pointer}");
        }
    }
}

/// A tool call: its name, and members its arguments hold (others may be
/// there too, unless `whole`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub name: String,
    /// Its call id, where the table pins it.
    pub id: Option<String>,
    #[serde(default)]
    pub args: serde_json::Map<String, Value>,
    #[serde(default)]
    pub whole: bool,
}

/// A tool result: the call it answers (its index), its content, its `ok`.
#[derive(Debug, Deserialize)]
pub struct Outcome {
    #[serde(default)]
    pub call: usize,
    /// Its content (a flattened [`Text`]: `Text` refuses members it does
    /// not know only where it stands alone).
    #[serde(flatten)]
    pub text: Text,
    pub ok: Option<bool>,
}

/// What one lab scenario's session must hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub id: String,
    /// The scenario's home, a folder of `fixtures/<harness>/<version>`
    /// (default: its name): hand-written fixtures hold several sessions in
    /// one home, which scenarios then share.
    pub home: Option<String>,
    /// The session's file name, where the id does not give it.
    pub file: Option<String>,
    /// Every user text, in order (default: the lab's prompts).
    pub users: Option<Vec<String>>,
    /// Every tool call, in order.
    pub calls: Vec<Call>,
    /// Every tool result, in order.
    pub results: Vec<Outcome>,
    /// Every non-empty assistant text, in order.
    pub answers: Vec<Text>,
    /// The kind of every record after `meta`, in order (default: not
    /// pinned; the counts above still are).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// The session's title.
    pub title: Option<String>,
    /// The model of each assistant record, in order, where they differ
    /// (default: the table's `model` for every one).
    pub models: Option<Vec<Option<String>>>,
    /// Record id → the id of its parent (`null`: none).
    #[serde(default)]
    pub parents: BTreeMap<String, Option<String>>,
    /// The session's cwd, native version and model where they are not the
    /// table's (`null`: none).
    #[serde(default, deserialize_with = "present")]
    pub cwd: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub native_version: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub model: Option<Option<String>>,
    /// What the session's spans point at where it is not the table's (a
    /// store of databases beside JSON-lines files).
    pub spans: Option<SpanKind>,
}

/// A member that is there, `null` included.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

// ------------------------------------------------------------------ helpers

/// A codec's lab fixtures as its conformance table names them, for the
/// codec's own tests: `fn lab() -> Lab<MyCodec> { Lab::new(include_str!("conformance.json")) }`.
pub struct Lab<C> {
    pub table: &'static Table,
    codec: std::marker::PhantomData<C>,
}

impl<C: Codec> Lab<C> {
    pub fn new(json: &'static str) -> Lab<C> {
        Lab { table: Table::load(json), codec: std::marker::PhantomData }
    }

    /// `(scenario, native id)` of every scenario, by name.
    pub fn ids(&self) -> Vec<(&'static str, &'static str)> {
        self.table.scenarios.iter().map(|(name, s)| (name.as_str(), s.id.as_str())).collect()
    }

    /// A scenario's user texts (the table's, else the lab's prompts).
    pub fn users(&self, scenario: &str) -> Vec<String> {
        self.table.users(scenario)
    }

    /// A scenario's native id.
    pub fn id(&self, scenario: &str) -> &'static str {
        &self.table.scenario(scenario).id
    }

    /// A scenario's home, `fixtures/<harness>/<version>/<scenario>`.
    pub fn home(&self, scenario: &str) -> PathBuf {
        self.table.home(scenario)
    }

    /// A scenario's locator.
    pub fn locator(&self, scenario: &str) -> String {
        self.table.locator_of(scenario)
    }

    /// A scenario's session file.
    pub fn path(&self, scenario: &str) -> PathBuf {
        self.home(scenario).join(self.locator(scenario))
    }

    /// A scenario's session, read in one batch.
    pub fn read(&self, scenario: &str) -> Read {
        self.table.read::<C>(scenario)
    }

    /// A writable copy of a scenario's home.
    pub fn copy(&self, scenario: &str) -> tempfile::TempDir {
        crate::copy_of(&self.home(scenario))
    }

    /// A scenario's session, read in one batch from a private copy of its
    /// home (a store a reader may add files beside, a SQLite database's
    /// `-wal`, or that tests change).
    pub fn read_copy(&self, scenario: &str) -> Read {
        let home = self.copy(scenario);
        crate::read::<C>(home.path(), &self.locator(scenario))
    }
}

impl Table {
    /// Parses a table (once a test binary): a codec's own tests use the
    /// ids and paths of its `conformance.json` too.
    pub fn load(json: &'static str) -> &'static Table {
        static TABLES: OnceLock<std::sync::Mutex<BTreeMap<usize, &'static Table>>> = OnceLock::new();
        let mut tables = TABLES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        tables.entry(json.as_ptr() as usize).or_insert_with(|| {
            let table: Table = serde_json::from_str(json).unwrap_or_else(|e| panic!("conformance table: {e}"));
            Box::leak(Box::new(table))
        })
    }

    pub fn home(&self, scenario: &str) -> PathBuf {
        let folder = self.scenarios.get(scenario).and_then(|s| s.home.as_deref()).unwrap_or(scenario);
        match &self.fixtures {
            Some(dir) => crate::crate_under_test().join(dir).join(folder),
            None => crate::fixtures(&self.harness, &self.version).join(folder),
        }
    }

    /// A scenario's cwd, native version and model: its own, else the table's.
    pub fn cwd_of(&self, scenario: &str) -> Option<String> {
        self.scenario(scenario).cwd.clone().unwrap_or_else(|| self.cwd.clone())
    }

    pub fn native_version_of(&self, scenario: &str) -> Option<String> {
        self.scenario(scenario).native_version.clone().unwrap_or_else(|| self.native_version.clone())
    }

    pub fn model_of(&self, scenario: &str) -> Option<String> {
        self.scenario(scenario).model.clone().unwrap_or_else(|| self.model.clone())
    }

    /// What a scenario's spans point at: its own kind, else the table's.
    pub fn spans_of(&self, scenario: &str) -> SpanKind {
        self.scenario(scenario).spans.unwrap_or(self.spans)
    }

    /// A scenario's locator: the table's, `{id}` and `{file}` filled in.
    pub fn locator(&self, s: &Scenario) -> String {
        self.locator.replace("{id}", &s.id).replace("{file}", s.file.as_deref().unwrap_or("{file}"))
    }

    pub fn locator_of(&self, scenario: &str) -> String {
        self.locator(self.scenario(scenario))
    }

    pub fn scenario(&self, name: &str) -> &Scenario {
        self.scenarios.get(name).unwrap_or_else(|| panic!("no scenario {name}"))
    }

    /// A scenario's user texts: the table's, else the lab's prompts.
    pub fn users(&self, name: &str) -> Vec<String> {
        let lab = lab::PROMPTS.iter().find(|(n, _)| *n == name).map(|(_, p)| p.iter().map(|p| p.to_string()).collect());
        self.scenario(name).users.clone().or(lab).unwrap_or_default()
    }

    /// Reads a scenario's session (in one batch).
    pub fn read<C: Codec>(&self, name: &str) -> Read {
        crate::read::<C>(&self.home(name), &self.locator_of(name))
    }

    /// `(name, scenario, home, locator)` of every scenario.
    pub fn each(&self) -> impl Iterator<Item = (&str, &Scenario, PathBuf, String)> {
        self.scenarios.iter().map(|(name, s)| (name.as_str(), s, self.home(name), self.locator(s)))
    }

    /// The scenario a check that needs one session starts from: `simple`,
    /// else the one the table names.
    pub fn first_scenario<'a>(&self, named: Option<&'a String>) -> &'a str {
        named.map(String::as_str).unwrap_or("simple")
    }
}

/// A file's modification time as codecs give `updated_at`: RFC 3339 in UTC
/// with milliseconds.
pub fn mtime_rfc3339(path: &Path) -> String {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let millis = modified.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let (days, ms) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

// ------------------------------------------------------------------ reading

/// `info` names the harness, versions and formats; its globs match every
/// scenario's session and none of the files the table says are none.
pub fn info<C: Codec>(suite: &Suite, codec_version: &str) {
    let table = suite.table();
    let info = C::info();
    assert_eq!(info.harness, table.harness);
    assert_eq!(info.codec_version, codec_version);
    assert_eq!(info.native_versions, table.info.native_versions);
    let source = &table.info.version_source;
    assert!(info.native_version_source.contains(source), "{:?} does not say {source:?}", info.native_version_source);
    assert_eq!(info.reads, table.info.reads);
    assert_eq!(info.writes, table.info.writes);
    assert_eq!(info.canonical_schema, trajhost_codec_sdk::canonical::SCHEMA);
    let globs = &info.session_globs;
    if let Some(exactly) = &table.info.globs {
        assert_eq!(globs, exactly, "the session globs");
    }
    for (name, _, _, locator) in table.each() {
        // A locator may name a session inside its file (`store.db#id`).
        let file = locator.split('#').next().unwrap_or(&locator);
        assert!(globs.iter().any(|g| crate::glob_matches(g, file)), "{name}: {file} matches none of {globs:?}");
    }
    for (_, s, _, _) in table.each() {
        for path in &table.info.not_sessions {
            let path = path.replace("{id}", &s.id);
            assert!(!globs.iter().any(|g| crate::glob_matches(g, &path)), "{path} is no session: {globs:?}");
        }
    }
}

/// `discover` lists each scenario's session, alone in its home and without
/// a diagnostic; `inspect` says the same; `read` agrees on id, cwd, title,
/// start and version; times and size come from the files as the table says.
pub fn discover<C: Codec>(suite: &Suite) {
    let table = suite.table();
    for (name, s, home, locator) in table.each() {
        let found = crate::discover::<C>(&home);
        let unexpected = found.diagnostics.iter().filter(|d| !table.discover_may_say.contains(&d.code));
        assert_eq!(unexpected.count(), 0, "{name}: {:?}", found.diagnostics);
        let session = listed(name, s, &found.sessions);
        assert_eq!((session.native_id.as_str(), session.locator.as_str()), (s.id.as_str(), locator.as_str()));
        assert_eq!(session.cwd, table.cwd_of(name), "{name}");
        assert_eq!(session.native_version, table.native_version_of(name), "{name}");
        let inspected = C::inspect(&Dir::native(&home), &locator).unwrap_or_else(|e| panic!("{name}: inspect: {e:?}"));
        assert_eq!(format!("{inspected:?}"), format!("{session:?}"), "{name}: inspect differs from discover");
        let read = table.read::<C>(name);
        let meta = read.meta();
        assert_eq!((&meta.native_id, &meta.cwd), (&session.native_id, &session.cwd), "{name}");
        if table.discover.title_only_in_discover {
            assert_eq!(meta.title, None, "{name}: the store keeps no title");
        } else {
            assert_eq!(meta.title, session.title, "{name}: title");
        }
        assert_eq!((&meta.started_at, &meta.native_version), (&session.started_at, &session.native_version));

        let path = home.join(&locator);
        let rules = &table.discover;
        if rules.updated_is_mtime {
            assert_eq!(session.updated_at.as_deref(), Some(mtime_rfc3339(&path).as_str()), "{name}: updated_at");
        }
        if let Some(others) = &rules.size_of {
            let folder = path.parent().unwrap();
            let len = |p: &Path| std::fs::metadata(p).unwrap_or_else(|e| panic!("{p:?}: {e}")).len();
            // `dir/*`: every file of a folder.
            let files = |dir: &Path| -> u64 {
                let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir:?}: {e}"));
                entries.map(|e| e.unwrap().metadata().unwrap()).filter(|m| m.is_file()).map(|m| m.len()).sum()
            };
            let size_of = |o: &String| match o.strip_suffix('*') {
                Some(dir) => files(&folder.join(dir)),
                None => len(&folder.join(o.replace("{id}", &s.id))),
            };
            let whole_folder = others.iter().any(|o| o == "*");
            let size = if whole_folder { 0 } else { len(&path) } + others.iter().map(size_of).sum::<u64>();
            assert_eq!(session.size, size, "{name}: size");
        }
        let member = |(index, pointer): &(usize, String)| {
            let raw = (suite.raw)(&home, &locator);
            raw[*index].pointer(pointer).and_then(Value::as_str).map(str::to_string)
        };
        if let Some(started_at) = &rules.started_at {
            assert_eq!(session.started_at, member(started_at), "{name}: started_at");
        }
        if let Some(title) = &rules.title {
            assert_eq!(session.title, member(title), "{name}: title");
        }
        if rules.title_from_prompt {
            let title = session.title.as_deref().unwrap_or_else(|| panic!("{name}: no title"));
            let prompt = crate::users(&read.records)[0];
            assert!(title.chars().count() <= 80, "{title}");
            assert!(prompt.starts_with(title.trim_end_matches('…')), "{name}: {title:?} vs {prompt:?}");
        }
    }
}

/// A scenario's session among those discover listed: alone in its home, or
/// by its id in a home the table says it shares.
fn listed<'a>(
    name: &str,
    s: &Scenario,
    sessions: &'a [trajhost_codec_sdk::SessionRef],
) -> &'a trajhost_codec_sdk::SessionRef {
    if s.home.is_none() {
        assert_eq!(sessions.len(), 1, "{name}: {sessions:?}");
        return &sessions[0];
    }
    let mut of_id = sessions.iter().filter(|x| x.native_id == s.id);
    let session = of_id.next().unwrap_or_else(|| panic!("{name}: {} is not listed: {sessions:?}", s.id));
    assert!(of_id.next().is_none(), "{name}: {} is listed twice", s.id);
    session
}

/// A home without the harness holds no sessions and no diagnostics.
pub fn empty_home<C: Codec>(_suite: &Suite) {
    let dir = tempfile::tempdir().unwrap();
    let found = crate::discover::<C>(dir.path());
    assert!(found.sessions.is_empty(), "{:?}", found.sessions);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

/// Every scenario passes [`crate::conformance`] (store untouched, `meta`
/// first, spans, stable and unique ids, batching) and carries none of the
/// diagnostics the table rules out.
pub fn kit_checks<C: Codec>(suite: &Suite) {
    let table = suite.table();
    for (name, _, home, locator) in table.each() {
        let read = crate::conformance::<C>(&home, &locator, table.spans_of(name).into());
        for code in &table.clean_of {
            assert!(read.diag(code).is_none(), "{name}: {code}: {:?}", read.diagnostics);
        }
    }
}

/// `meta` names the harness, the session, its cwd, version and codec; the
/// first record's time is the session's start.
pub fn meta<C: Codec>(suite: &Suite, codec_version: &str) {
    let table = suite.table();
    for (name, s, _, _) in table.each() {
        let read = table.read::<C>(name);
        let meta = read.meta();
        assert_eq!((meta.harness.as_str(), meta.schema.as_str()), (table.harness.as_str(), sdk_schema()));
        assert_eq!((&meta.native_id, &meta.cwd), (&s.id, &table.cwd_of(name)), "{name}");
        assert_eq!(meta.native_version, table.native_version_of(name), "{name}");
        assert_eq!(meta.codec, Some(format!("{}@{codec_version}", table.harness)), "{name}");
        match &table.meta_untimed {
            Some(why) => assert_eq!(read.records[0].ts, None, "{name}: {why}"),
            None => assert_eq!(read.records[0].ts, meta.started_at, "{name}"),
        }
        if let Some(title) = &s.title {
            assert_eq!(meta.title.as_ref(), Some(title), "{name}");
        }
    }
}

fn sdk_schema() -> &'static str {
    trajhost_codec_sdk::canonical::SCHEMA
}

/// One scenario's session holds what its table says: prompts, calls with
/// their arguments, results answering them (content and `ok`), answers,
/// record kinds and parents; every assistant record the model and usage of
/// the table.
pub fn scenario<C: Codec>(suite: &Suite, name: &str) {
    let table = suite.table();
    let Some(s) = table.scenarios.get(name) else {
        eprintln!("skipped {name}: the {} {} fixtures have no {name} scenario", table.harness, table.version);
        return;
    };
    let (home, locator) = (table.home(name), table.locator(s));
    let raw = || (suite.raw)(&home, &locator);
    let read = table.read::<C>(name);
    let records = &read.records;
    assert_eq!(crate::users(records), table.users(name), "{name}: user texts");

    let calls = crate::tool_calls(records);
    let names: Vec<&str> = calls.iter().map(|c| c.1).collect();
    assert_eq!(names, s.calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), "{name}: tool calls");
    for ((call_id, call_name, arguments), call) in calls.iter().zip(&s.calls) {
        if let Some(id) = &call.id {
            assert_eq!(call_id, id, "{name}: {call_name}'s call id");
        }
        if call.whole {
            assert_eq!(arguments.as_object(), Some(&call.args), "{name}: {call_name}'s arguments");
        }
        for (key, value) in &call.args {
            assert_eq!(arguments.get(key), Some(value), "{name}: {call_name}.{key} in {arguments}");
        }
    }

    let results = crate::tool_results(records);
    assert_eq!(results.len(), s.results.len(), "{name}: tool results {results:?}");
    for (i, ((call_id, content, ok), outcome)) in results.iter().zip(&s.results).enumerate() {
        let what = format!("{name}: result {i}");
        let call = calls.get(outcome.call).unwrap_or_else(|| panic!("{what}: no call {}", outcome.call));
        assert_eq!(*call_id, call.0, "{what} answers call {} ({})", outcome.call, call.1);
        outcome.text.check(&what, content, &home, &raw);
        assert_eq!(*ok, outcome.ok, "{what}: ok");
    }

    let answers = crate::assistant_texts(records);
    assert_eq!(answers.len(), s.answers.len(), "{name}: answers {answers:?}");
    for (i, (text, want)) in answers.iter().zip(&s.answers).enumerate() {
        want.check(&format!("{name}: answer {i}"), text, &home, &raw);
    }
    if !s.kinds.is_empty() {
        assert_eq!(&crate::kinds(records)[1..], s.kinds, "{name}: record kinds");
    }
    for (id, parent) in &s.parents {
        let record = records.iter().find(|r| r.id == *id).unwrap_or_else(|| panic!("{name}: no record {id}"));
        assert_eq!(&record.parent, parent, "{name}: the parent of {id}");
    }
    let assistants = crate::assistants(records);
    if let Some(models) = &s.models {
        let got: Vec<Option<String>> = assistants.iter().map(|a| a.model.clone()).collect();
        assert_eq!(&got, models, "{name}: the models");
    }
    for a in assistants {
        if s.models.is_none() {
            assert_eq!(a.model, table.model_of(name), "{name}: model");
        }
        if let Some(usage) = table.usage.run("usage") {
            assert_eq!(&a.usage, usage, "{name}: usage of {:?}", a.text);
        }
    }
}

/// Records come in the order the store holds them: times never go back
/// and every record has one, where the table says so; spans never go back
/// within a JSON-lines file. A record's time is its line's, and a call's
/// record id its call id, where the table says so.
pub fn order<C: Codec>(suite: &Suite) {
    let table = suite.table();
    for (name, _, home, _) in table.each() {
        let read = table.read::<C>(name);
        let mut last: Option<&str> = None;
        let mut at: BTreeMap<&str, u64> = BTreeMap::new();
        for r in &read.records {
            let what = format!("{name}: {} ({})", r.id, r.body.kind());
            match r.ts.as_deref() {
                // RFC 3339 in UTC with one precision sorts as text.
                Some(ts) if table.times_ordered => {
                    assert!(last.is_none_or(|l| l <= ts), "{what} at {ts} comes after {last:?}");
                    last = Some(ts);
                }
                None => assert!(!table.timestamps, "{what} has no ts"),
                Some(_) => {}
            }
            // `meta`'s time is the session's start, checked with `meta`.
            if let (Some(src), SpanKind::Lines, false) = (&r.src, table.spans_of(name), matches!(r.body, Body::Meta(_)))
            {
                let before = at.insert(&src.file, src.offset).unwrap_or(0);
                assert!(before <= src.offset, "{what} goes back in {}", src.file);
                if let Some(pointer) = &table.ts_member {
                    let line = &span_values(&home, src, SpanKind::Lines)[0];
                    if let Some(ts) = line.pointer(pointer).and_then(Value::as_str) {
                        assert_eq!(r.ts.as_deref(), Some(ts), "{what}: its line's time");
                    }
                }
            }
            if let (Body::ToolCall { call_id, .. }, true) = (&r.body, table.call_ids_are_record_ids) {
                assert_eq!(&r.id, call_id, "{what}");
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

/// The JSON values a span covers: each of its lines for JSON lines (a
/// record merged from several lines spans them all), else the whole span.
pub fn span_values(home: &Path, src: &trajhost_codec_sdk::canonical::SourceSpan, kind: SpanKind) -> Vec<Value> {
    let bytes = crate::span_bytes(home, src);
    let parse = |b: &[u8]| serde_json::from_slice(b).unwrap_or_else(|e| panic!("span {src:?} is not JSON: {e}"));
    match kind {
        SpanKind::Lines => bytes.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty()).map(parse).collect(),
        _ => vec![parse(&bytes)],
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

/// A system prompt kept as one string (no native record around it): its
/// span is that string.
fn spans_its_text(record: &Record, values: &[Value]) -> bool {
    matches!(&record.body, Body::System { text } if values.iter().any(|v| v.as_str() == Some(text)))
}

/// Every record's span slices back to the native record that names it (a
/// JSON value holding the record's native key).
pub fn spans_name_records<C: Codec>(suite: &Suite) {
    let table = suite.table();
    if let Some(why) = &table.spans_unnamed {
        eprintln!("skipped spans_name_records: {why}");
        return;
    }
    for (name, _, home, _) in table.each() {
        let spans = table.spans_of(name);
        if spans == SpanKind::Rows {
            eprintln!("skipped spans_name_records of {name}: row spans point at rows, not JSON");
            continue;
        }
        let read = table.read::<C>(name);
        for r in &read.records {
            let Some(src) = r.src.as_ref() else {
                assert!(matches!(r.body, Body::Meta(_)), "{name}: {} has no src", r.id);
                continue;
            };
            // `meta` may point at its file with an empty span (see
            // `check_spans`): it covers no record to name it.
            if matches!(r.body, Body::Meta(_)) && src.len == 0 {
                continue;
            }
            // Named by its place (`<file>@<offset>`): its span is that place.
            let place = r.id.split('#').next().and_then(|id| id.rsplit_once('@'));
            if place.is_some_and(|(file, at)| src.file.ends_with(file) && at == src.offset.to_string()) {
                continue;
            }
            let key = native_key(r);
            let values = span_values(&home, src, spans);
            if spans_its_text(r, &values) {
                continue;
            }
            let named = values.iter().any(|v| holds_string(v, key));
            assert!(named, "{name}: {} ({}): its span does not name {key:?}", r.id, r.body.kind());
        }
    }
}

/// Every native type of the fixtures is in the codec's table, handled as
/// the table says, and the fixtures hold the types the JSON table names.
pub fn native_types<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(types) = table.native_types.run("native_types") else { return };
    assert!(!suite.types.is_empty(), "the suite names no table of native types");
    let mut seen = std::collections::BTreeSet::new();
    for (name, _, home, locator) in table.each() {
        let raw = (suite.raw)(&home, &locator);
        for kind in raw.iter().flat_map(suite.kind_of) {
            assert!(suite.types.iter().any(|(k, _)| *k == kind), "{name}: type {kind:?} is not in the table");
            seen.insert(kind);
        }
        if let Some(why) = &types.handling_unchecked {
            eprintln!("skipped the handling of {name}'s types: {why}");
            continue;
        }
        let read = table.read::<C>(name);
        crate::check_handling(&read, suite.types, |kind| {
            raw.iter().filter(|l| (suite.kind_of)(l).iter().any(|k| k == kind)).count() as u32
        });
    }
    if types.exactly {
        let mut want = types.seen.clone();
        want.sort();
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), want, "the fixtures' types");
    } else {
        for kind in &types.seen {
            assert!(seen.contains(kind), "no fixture holds {kind}: {seen:?}");
        }
    }
}

/// A torn last line is one `torn-tail` warning, and every record of the
/// lines before it is read as before.
pub fn torn_tail<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(damage) = table.damage.run("torn_tail") else { return };
    let (name, needle) = (&damage.tear.0, &damage.tear.1);
    let whole = table.read::<C>(name);
    let dir = crate::copy_of(&table.home(name));
    let locator = table.locator_of(name);
    let line_start = crate::tear_at(&dir.path().join(&locator), needle);
    let torn = crate::read::<C>(dir.path(), &locator);
    crate::check_torn_tail(&torn, line_start, needle);
    // The records of the session file's lines before the tear are read as
    // before (records of other files, a journal, may change with the turns
    // the tear cut).
    let of_file = |r: &&Record| r.src.as_ref().is_some_and(|s| s.file == locator);
    let before: Vec<&Record> =
        whole.records.iter().filter(of_file).filter(|r| r.src.as_ref().unwrap().offset < line_start).collect();
    assert!(before.len() < whole.records.iter().filter(of_file).count(), "{name}: tearing at {needle:?} lost nothing");
    assert_eq!(torn.records.iter().filter(of_file).collect::<Vec<_>>(), before, "{name}: the records before the tear");
}

/// A corrupt middle line is one `malformed-line` error, and the tool calls,
/// their results and the last answer are still read.
pub fn corrupt_line<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(damage) = table.damage.run("corrupt_line") else { return };
    let (name, index) = (&damage.corrupt.0, damage.corrupt.1);
    let whole = table.read::<C>(name);
    let dir = crate::copy_of(&table.home(name));
    let locator = table.locator_of(name);
    let offset = crate::corrupt_line(&dir.path().join(&locator), index, 40);
    let read = crate::read::<C>(dir.path(), &locator);
    crate::check_corrupt_line(&read, offset);
    assert_eq!(crate::tool_calls(&read.records), crate::tool_calls(&whole.records), "{name}: calls");
    assert_eq!(crate::tool_results(&read.records), crate::tool_results(&whole.records), "{name}: results");
    let last = |r: &Read| crate::assistant_texts(&r.records).last().map(|t| t.to_string());
    assert_eq!(last(&read), last(&whole), "{name}: the last answer");
}

/// How a codec resumes (`"resumes"` in the table).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resumes {
    /// Lines at the start of the file that the session's `meta` is taken
    /// from: no point is required before they are whole (default 0).
    #[serde(default)]
    pub head_lines: usize,
    /// `read_from` may decline (`unsupported`) when what was appended
    /// changes records before the point (Pi: a new branch off an earlier
    /// entry); the host then reads the file whole. A decline is counted,
    /// never a wrong continuation; at least one cut must continue.
    #[serde(default)]
    pub declines: bool,
}

impl Resumes {
    fn not_declared() -> Part<Resumes> {
        Part::Skip { skip: "the table has no `resumes`: the codec does not continue a grown file".into() }
    }
}

/// A session file cut at every line end and inside every line, read, then
/// grown back and continued from the point that read gave: the records
/// before the point and those continued are the whole file's read, in
/// order. A point is given once the head lines are whole; no point is
/// allowed, never a wrong one.
pub fn resume<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(resumes) = table.resumes.run("resume") else { return };
    for (name, _, _, locator) in table.each() {
        let whole = table.read::<C>(name);
        let dir = crate::copy_of(&table.home(name));
        let path = dir.path().join(&locator);
        let bytes = std::fs::read(&path).unwrap();
        let line_ends: Vec<usize> =
            bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1).collect();
        let mut cuts: Vec<(usize, bool)> = Vec::new();
        let mut start = 0;
        for (n, &end) in line_ends.iter().enumerate() {
            let whole_head = n + 1 >= resumes.head_lines;
            if end - start > 2 {
                cuts.push((start + (end - start) / 2, whole_head && n >= resumes.head_lines));
            }
            cuts.push((end, whole_head));
            start = end;
        }
        let mut continued = 0;
        for (cut, must_point) in cuts {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let options = trajhost_codec_sdk::ReadOptions { max_batch_records: 3, max_batch_bytes: 1 << 20 };
            // Before its head lines are whole, a file may not read at all.
            let mut reader = match C::read(Dir::native(dir.path()), &locator, options) {
                Ok(reader) => reader,
                Err(e) if !must_point => {
                    eprintln!("{name}: cut at {cut} does not read ({e:?}): no point expected");
                    continue;
                }
                Err(e) => panic!("{name}: cut at {cut}: {e:?}"),
            };
            let mut before: Vec<String> = Vec::new();
            let mut boundaries = vec![0u64];
            while let Some(batch) = reader.next_batch().unwrap() {
                before.extend(batch.records.lines().map(String::from));
                boundaries.push(before.len() as u64);
            }
            let point = reader.resume_point();
            std::fs::write(&path, &bytes).unwrap();
            let Some(point) = point else {
                assert!(!must_point, "{name}: no resume point after {cut} of {} bytes", bytes.len());
                continue;
            };
            assert!(
                boundaries.contains(&point.records),
                "{name}, cut at {cut}: the point's {} records do not end a batch ({boundaries:?})",
                point.records
            );
            assert!(point.offset <= cut as u64, "{name}, cut at {cut}: the point is past the cut");
            let mut rest = match C::read_from(Dir::native(dir.path()), &locator, point.clone(), options) {
                Ok(rest) => rest,
                Err(trajhost_codec_sdk::CodecError::Unsupported(why)) if resumes.declines => {
                    eprintln!("{name}: read_from after {cut} declined: {why}");
                    continue;
                }
                Err(e) => panic!("{name}: read_from after {cut}: {e:?}"),
            };
            let mut after: Vec<String> = Vec::new();
            while let Some(batch) = rest.next_batch().unwrap() {
                after.extend(batch.records.lines().map(String::from));
            }
            // `meta` as it is now replaces the first record.
            assert!(!after.is_empty(), "{name}: read_from after {cut} returned no meta");
            let mut joined = after[..1].to_vec();
            joined.extend_from_slice(&before[1.min(before.len())..(point.records as usize).max(1)]);
            joined.extend_from_slice(&after[1..]);
            let expected: Vec<String> = whole.document.lines().map(String::from).collect();
            if joined != expected {
                let at =
                    joined.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(joined.len().min(expected.len()));
                let cut_to = |l: Option<&String>| l.map_or(String::from("(none)"), |l| l.chars().take(300).collect());
                panic!(
                    "{name}: continued after {cut} of {} bytes (point: offset {}, {} records), record {at} differs \
                     ({} records, the whole read {}):\n continued: {}\n whole:     {}",
                    bytes.len(),
                    point.offset,
                    point.records,
                    joined.len(),
                    expected.len(),
                    cut_to(joined.get(at)),
                    cut_to(expected.get(at))
                );
            }
            continued += 1;
        }
        assert!(continued > 0, "{name}: no cut was continued");
    }
}

// ------------------------------------------------------------------ writing

/// Writes a canonical document natively, as the host pushes it.
pub fn write<C: Codec>(document: &str, options: WriteOptions) -> WrittenFiles {
    trajhost_codec_sdk::write_document::<C>(document, options).unwrap_or_else(|e| panic!("write: {e:?}"))
}

/// The options a table's writes are made with: its cwd, if any.
pub fn write_options(writes: &Writes) -> WriteOptions {
    WriteOptions { cwd: writes.cwd.clone(), ..options_for(None) }
}

/// Options with nothing chosen but the home a plan is for.
pub fn options_for(home: Option<&Path>) -> WriteOptions {
    WriteOptions { cwd: None, native_id: None, home_path: home.map(|h| h.display().to_string()) }
}

/// Runs `prepare` of `written` into `home`, with the default target choice.
pub fn prepare<C: Codec>(written: &WrittenFiles, home: &Path) -> Result<Plan, trajhost_codec_sdk::CodecError> {
    prepare_in::<C>(written, home, None)
}

/// [`prepare`] with the cwd the session is to resume in (a store that
/// files sessions by their work directory needs one).
pub fn prepare_in<C: Codec>(
    written: &WrittenFiles,
    home: &Path,
    cwd: Option<&str>,
) -> Result<Plan, trajhost_codec_sdk::CodecError> {
    target::set_for_tests(TargetChoice::default());
    let artifacts = written.artifacts.clone();
    let options = WriteOptions { cwd: cwd.map(str::to_string), ..options_for(Some(home)) };
    trajhost_codec_sdk::prepare_artifacts::<C>(artifacts, &Dir::native(home), options)
}

/// Writes `read` as a `C` session that resumes in `cwd`, prepares it into a
/// fresh home, applies the plan's files and reads the session back through
/// the conformance checks from `locator(native id)`: what a convert test
/// starts from. Returns the home with the plan's session id.
pub fn convert_into<C: Codec>(
    read: &crate::Read,
    cwd: &str,
    locator: impl Fn(&str) -> String,
    spans: crate::Spans,
) -> (tempfile::TempDir, String, crate::Read) {
    let written = write::<C>(&read.document, WriteOptions { cwd: Some(cwd.into()), ..options_for(None) });
    let target = tempfile::tempdir().unwrap();
    let plan = prepare_in::<C>(&written, target.path(), Some(cwd)).unwrap_or_else(|e| panic!("prepare: {e:?}"));
    apply_files(&plan, &written, target.path());
    let back = crate::conformance::<C>(target.path(), &locator(&plan.native_id), spans);
    (target, plan.native_id, back)
}

/// Applies a plan of files as the host does: `create-file` and
/// `copy-artifact` never over an existing file, `add-json-entry` never
/// changing an entry there, `append-file` only to a file that still has the
/// length and sha256 the plan expects (its bytes stay a prefix). Any other
/// operation fails the test: a codec whose plans hold others (databases)
/// passes its own `apply`.
pub fn apply_files(plan: &Plan, written: &WrittenFiles, home: &Path) {
    let create = |path: &str, bytes: &[u8]| crate::create_new_file(home, path, bytes);
    for op in &plan.operations {
        match op {
            Operation::CopyArtifact(copy) => {
                let artifact = written.artifacts.iter().find(|a| a.path == copy.artifact);
                create(&copy.path, &artifact.unwrap_or_else(|| panic!("no artifact {}", copy.artifact)).bytes);
            }
            Operation::CreateFile(file) => create(&file.path, &file.bytes),
            Operation::AddJsonEntry(entry) => add_json_entry(entry, home),
            Operation::AppendFile(append) => append_to_file(append, home),
            other => panic!("a plan of files, not {other:?}"),
        }
    }
}

/// Applies any plan as the host does: files as [`apply_files`], and each
/// database created (its schema statements, user version, rows) or added to
/// (rows, in one transaction); rows are stored as the plan gives them (a
/// given column that a trigger changed on insert is set back).
#[cfg(feature = "sqlite")]
pub fn apply_plan(plan: &Plan, written: &WrittenFiles, home: &Path) {
    use trajhost_codec_sdk::sqlite::Value as Sql;
    let to_sql = |v: &Sql| match v {
        Sql::Null => rusqlite::types::Value::Null,
        Sql::Integer(i) => rusqlite::types::Value::Integer(*i),
        Sql::Real(f) => rusqlite::types::Value::Real(*f),
        Sql::Text(s) => rusqlite::types::Value::Text(s.clone()),
        Sql::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
    };
    let insert = |conn: &rusqlite::Connection, table: &str, columns: &[String], rows: &[Vec<Sql>]| {
        let names: Vec<String> = columns.iter().map(|c| format!("\"{c}\"")).collect();
        let marks = vec!["?"; columns.len()].join(", ");
        let sql = format!("INSERT INTO \"{table}\" ({}) VALUES ({marks})", names.join(", "));
        let triggers: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1", [table], |r| {
                r.get(0)
            })
            .unwrap();
        for row in rows {
            assert_eq!(row.len(), columns.len(), "{table}: row width");
            conn.execute(&sql, rusqlite::params_from_iter(row.iter().map(to_sql)))
                .unwrap_or_else(|e| panic!("{table}: {e}"));
            // As the host does: a given column a trigger changed is set back.
            let rowid = conn.last_insert_rowid();
            for (column, value) in names.iter().zip(row).filter(|_| triggers > 0) {
                let sql = format!("UPDATE \"{table}\" SET {column} = ?1 WHERE rowid = ?2 AND {column} IS NOT ?1");
                conn.execute(&sql, rusqlite::params![to_sql(value), rowid]).unwrap_or_else(|e| panic!("{table}: {e}"));
            }
        }
    };
    let mut files = plan.clone();
    files.operations.retain(|op| !matches!(op, Operation::CreateDatabase(_) | Operation::InsertRows(_)));
    for op in &plan.operations {
        match op {
            Operation::CreateDatabase(db) => {
                let path = home.join(&db.path);
                assert!(!path.exists(), "the plan overwrites {}", db.path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                let conn = rusqlite::Connection::open(&path).unwrap();
                for statement in &db.schema {
                    conn.execute_batch(statement).unwrap_or_else(|e| panic!("{statement}: {e}"));
                }
                if let Some(version) = db.user_version {
                    conn.pragma_update(None, "user_version", version).unwrap();
                }
                for t in &db.tables {
                    insert(&conn, &t.table, &t.columns, &t.rows);
                }
            }
            Operation::InsertRows(rows) => {
                let mut conn = rusqlite::Connection::open(home.join(&rows.database)).unwrap();
                let tx = conn.transaction().unwrap();
                insert(&tx, &rows.table, &rows.columns, &rows.rows);
                tx.commit().unwrap();
            }
            _ => {}
        }
    }
    apply_files(&files, written, home);
}

/// `append-file`: the bytes after the file's end, which must be the file
/// the plan was made against (as the host refuses any other).
pub fn append_to_file(append: &trajhost_codec_sdk::AppendFile, home: &Path) {
    let path = home.join(&append.path);
    let before = std::fs::read(&path).unwrap_or_else(|e| panic!("append-file {}: {e}", append.path));
    assert_eq!(before.len() as u64, append.expect_length, "append-file {}: the length the plan expects", append.path);
    assert_eq!(
        trajhost_codec_sdk::writer::install::sha256_hex(&before),
        append.expect_sha256,
        "append-file {}: the sha256 the plan expects",
        append.path
    );
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(&mut file, &append.bytes).unwrap();
}

/// `add-json-entry`: the entry under `pointer` (objects on the way
/// created), by `key` in an object or appended to an array unless an
/// element has the same `match_member`.
fn add_json_entry(entry: &trajhost_codec_sdk::AddJsonEntry, home: &Path) {
    let path = home.join(&entry.path);
    let existed = path.exists();
    let mut doc: Value = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", entry.path)),
        Err(_) => serde_json::from_str(entry.initial.as_deref().expect("the file exists or an initial document"))
            .expect("the initial document is JSON"),
    };
    let value: Value = serde_json::from_str(&entry.value).expect("the entry is JSON");
    let mut at = &mut doc;
    for step in entry.pointer.split('/').skip(1) {
        let step = step.replace("~1", "/").replace("~0", "~");
        at = at.as_object_mut().expect("the pointer goes through objects").entry(step).or_insert(serde_json::json!({}));
    }
    let added = match (at, &entry.key) {
        (Value::Object(o), Some(key)) => {
            assert!(o.get(key).is_none_or(|v| *v == value), "the plan changes the entry {key} of {}", entry.path);
            o.insert(key.clone(), value).is_none()
        }
        (Value::Array(a), None) => {
            let member = entry.match_member.as_deref();
            let there = member.is_some_and(|m| a.iter().any(|e| e.get(m).is_some() && e.get(m) == value.get(m)));
            if !there {
                a.push(value);
            }
            !there
        }
        (other, key) => panic!("{}: cannot add at {} by {key:?}: {other}", entry.path, entry.pointer),
    };
    // An entry already there leaves the file as it is, as the host does.
    if existed && !added {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// The details of the diagnostics with `code`.
pub fn details<'a>(diagnostics: &'a [Diagnostic], code: &str) -> Vec<&'a str> {
    diagnostics.iter().filter(|d| d.code == code).map(|d| d.detail.as_str()).collect()
}

/// Where the written session is read: the artifact the table names.
fn session_file(writes: &Writes, written: &WrittenFiles) -> String {
    let suffix = writes.session_file.as_deref().unwrap_or("");
    let artifact = written.artifacts.iter().find(|a| a.path.ends_with(suffix)).expect("the session's artifact");
    artifact.path.clone()
}

/// A fresh target home holding the folders the table names.
pub fn target_home(writes: &Writes) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in &writes.target_dirs {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    dir
}

/// Installs `written` into a fresh home as the table says, and reads it.
pub fn install_and_read<C: Codec>(suite: &Suite, writes: &Writes, written: &WrittenFiles) -> (tempfile::TempDir, Read) {
    let dir = target_home(writes);
    match writes.install {
        Install::Files => crate::put_artifacts(written, dir.path()),
        Install::Prepare => {
            let plan = prepare_in::<C>(written, dir.path(), writes.cwd.as_deref())
                .unwrap_or_else(|e| panic!("prepare: {e:?}"));
            (suite.apply)(&plan, written, dir.path());
        }
    }
    let locator = match (writes.install, &writes.session_file) {
        // Installed rows: the session is where discover finds it.
        (Install::Prepare, None) => {
            let found = crate::discover::<C>(dir.path()).sessions;
            found.into_iter().find(|s| s.native_id == written.native_id).expect("the installed session").locator
        }
        _ => session_file(writes, written),
    };
    let read = crate::read::<C>(dir.path(), &locator);
    (dir, read)
}

/// What a round trip must keep of `records`, as the table compares them.
pub fn kept(compare: &Compare, records: &[Record]) -> Value {
    let records = records.iter().filter(|r| !matches!(r.body, Body::Meta(_)));
    match compare {
        Compare::Conversation => {
            let all: Vec<Record> = records.cloned().collect();
            Value::String(format!("{:?}", crate::conversation(&all)))
        }
        Compare::Bodies { ignore, ts } => records
            .map(|r| {
                let mut body = serde_json::to_value(&r.body).unwrap();
                if let Some(o) = body.as_object_mut() {
                    o.retain(|k, _| !ignore.contains(k));
                }
                if *ts { serde_json::json!({"ts": r.ts, "body": body}) } else { body }
            })
            .collect(),
        Compare::Records => records.map(|r| serde_json::to_value(Record { src: None, ..r.clone() }).unwrap()).collect(),
        Compare::RecordsBut { ids_holding } => records
            .map(|r| {
                let mut v = serde_json::to_value(Record { src: None, ..r.clone() }).unwrap();
                if r.id.contains(ids_holding.as_str()) {
                    v.as_object_mut().unwrap().remove("id");
                }
                v
            })
            .collect(),
    }
}

/// Every scenario written and read back keeps what the table compares, the
/// `meta` members it names, a new session id; the same document gives the
/// same bytes.
pub fn round_trip<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(writes) = table.writes.run("round_trip") else { return };
    let written_ones =
        table.each().filter(|(name, ..)| writes.round_trips.as_ref().is_none_or(|w| w.iter().any(|n| n == name)));
    for (name, s, _, _) in written_ones {
        let source = table.read::<C>(name);
        let written = write::<C>(&source.document, write_options(writes));
        if writes.lossless {
            assert!(details(&written.diagnostics, "not-carried").is_empty(), "{name}: {:?}", written.diagnostics);
            assert!(details(&written.diagnostics, "untranslated-reasoning").is_empty(), "{name}");
        }
        let (_home, back) = install_and_read::<C>(suite, writes, &written);
        assert_eq!(kept(&writes.compare, &back.records), kept(&writes.compare, &source.records), "{name}");
        let (m, o) = (serde_json::to_value(back.meta()).unwrap(), serde_json::to_value(source.meta()).unwrap());
        for member in &writes.meta_kept {
            assert_eq!(m[member], o[member], "{name}: meta.{member}");
        }
        assert_eq!(back.meta().native_id, written.native_id, "{name}");
        if writes.keeps_id {
            assert_eq!(back.meta().native_id, s.id, "{name}: the written session keeps its id");
        } else {
            assert_ne!(back.meta().native_id, s.id, "{name}: a new id, so the original can stay beside it");
        }
        if writes.lossless {
            // Read back, it says nothing the source did not say.
            for d in &back.diagnostics {
                let said = source.diagnostics.iter().any(|s| (&s.code, &s.detail) == (&d.code, &d.detail));
                assert!(said, "{name}: read back, {d:?}");
            }
        }
        let files =
            |w: &WrittenFiles| w.artifacts.iter().map(|a| (a.path.clone(), a.bytes.clone())).collect::<Vec<_>>();
        let again = write::<C>(&source.document, write_options(writes));
        assert!(files(&again) == files(&written), "{name}: the same document gave other bytes");
    }
}

/// Prepare of `simple`'s export into an empty home: found by discover and
/// read back as written; a second prepare of the same export is refused.
pub fn prepare_into_an_empty_home<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(writes) = table.writes.run("prepare_into_an_empty_home") else { return };
    let source = table.read::<C>(table.first_scenario(writes.source.as_ref()));
    let written = write::<C>(&source.document, write_options(writes));
    let target = target_home(writes);
    let plan =
        prepare_in::<C>(&written, target.path(), writes.cwd.as_deref()).unwrap_or_else(|e| panic!("prepare: {e:?}"));
    assert_eq!(plan.native_id, written.native_id);
    if writes.resumes {
        let resume = plan.resume_command.as_deref().expect("a resume command");
        assert!(resume.contains(&plan.native_id), "{resume}");
    }
    (suite.apply)(&plan, &written, target.path());
    let found = crate::discover::<C>(target.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    assert_eq!(found.sessions[0].native_id, plan.native_id);
    let back = crate::read::<C>(target.path(), &found.sessions[0].locator);
    assert_eq!(kept(&writes.compare, &back.records), kept(&writes.compare, &source.records));
    match prepare_in::<C>(&written, target.path(), writes.cwd.as_deref()) {
        Ok(plan) if writes.refused_on_apply => {
            let exists = |path: &str| target.path().join(path).exists();
            let collides = plan.operations.iter().any(|op| match op {
                Operation::CreateFile(file) => exists(&file.path),
                Operation::CopyArtifact(copy) => exists(&copy.path),
                _ => false,
            });
            assert!(collides, "a second prepare of the same export creates nothing that exists: {plan:?}");
        }
        Ok(plan) => panic!("a second prepare of the same export: {plan:?}"),
        Err(e) => assert!(format!("{e:?}").contains(&writes.refusal_says), "{e:?}"),
    }
}

/// Prepare beside other sessions: every file already there is
/// byte-identical afterwards (but those the table lets change), the others
/// are still listed, and the new one too.
pub fn prepare_beside_sessions<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(writes) = table.writes.run("prepare_beside_sessions") else { return };
    let Some(beside) = writes.beside.run("prepare_beside_sessions") else { return };
    let source = table.read::<C>(table.first_scenario(writes.source.as_ref()));
    let written = write::<C>(&source.document, write_options(writes));
    let target = target_home(writes);
    for name in &beside.scenarios {
        crate::copy_dir(&table.home(name), target.path());
    }
    let listed = crate::discover::<C>(target.path()).sessions;
    assert_eq!(listed.len(), beside.scenarios.len(), "{listed:?}");
    let before = crate::tree_digest(target.path());
    let plan =
        prepare_in::<C>(&written, target.path(), writes.cwd.as_deref()).unwrap_or_else(|e| panic!("prepare: {e:?}"));
    (suite.apply)(&plan, &written, target.path());
    let after = crate::tree_digest(target.path());
    for (path, digest) in before.iter().filter(|(p, _)| !beside.may_change.contains(p)) {
        assert_eq!(after.get(path), Some(digest), "{path} changed");
    }
    let found = crate::discover::<C>(target.path()).sessions;
    assert_eq!(found.len(), listed.len() + 1, "{found:?}");
    for old in &listed {
        assert!(found.iter().any(|s| s.native_id == old.native_id), "{} is gone", old.native_id);
    }
    let new = found.iter().find(|s| s.native_id == plan.native_id).expect("the new session is listed");
    let back = crate::read::<C>(target.path(), &new.locator);
    assert_eq!(kept(&writes.compare, &back.records), kept(&writes.compare, &source.records));
}

/// `simple`'s session moved outside the layout reads the same conversation
/// and passes the kit's checks; `sniff` claims it where the table says, and
/// discover lists it where the table says.
pub fn loose_file<C: Codec>(suite: &Suite) {
    let table = suite.table();
    let Some(loose) = table.loose.run("loose_file") else { return };
    let name = loose.scenario.as_deref().unwrap_or("simple");
    let whole = table.read::<C>(name);
    let dir = crate::copy_of(&table.home(name));
    let to = dir.path().join(&loose.path);
    let from = dir.path().join(table.locator_of(name));
    if loose.folder {
        assert_eq!(from.file_name(), to.file_name(), "a moved folder keeps its file's name");
        std::fs::rename(from.parent().unwrap(), to.parent().unwrap()).unwrap();
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::rename(from, &to).unwrap();
    }
    let found = crate::discover::<C>(dir.path());
    if loose.discovered {
        listed(name, table.scenario(name), &found.sessions);
        let unexpected = found.diagnostics.iter().filter(|d| !table.discover_may_say.contains(&d.code));
        assert_eq!(unexpected.count(), 0, "{:?}", found.diagnostics);
    }
    let head = std::fs::read(&to).unwrap();
    let sniffed = C::sniff(&loose.path, &head[..head.len().min(64 << 10)]);
    assert_eq!(sniffed.is_some(), loose.sniffed, "sniff of {}: {sniffed:?}", loose.path);
    let read = crate::conformance::<C>(dir.path(), &loose.path, table.spans_of(name).into());
    assert_eq!(read.meta().native_id, whole.meta().native_id);
    assert_eq!(crate::conversation(&read.records), crate::conversation(&whole.records));
}

/// One named `#[test]` per check of the suite, in a module `conformance`
/// of the test crate that calls it:
///
/// ```ignore
/// use trajhost_codec_testkit::suite::Suite;
/// const SUITE: Suite = Suite { table: include_str!("conformance.json"), ..Suite::DEFAULT };
/// trajhost_codec_testkit::conformance_suite!(MyCodec, SUITE);
/// ```
///
/// The codec crate's own version (`CARGO_PKG_VERSION`) is the one `info`
/// and `meta` must name.
///
/// A codec whose fixtures are no lab scenarios (hand-written homes) names
/// its scenarios' tests instead of the lab's five:
///
/// ```ignore
/// trajhost_codec_testkit::conformance_suite!(MyCodec, SUITE, scenarios {
///     a_legacy_session: "legacy", a_session_of_native_calls: "native-calls",
/// });
/// ```
#[macro_export]
macro_rules! conformance_suite {
    ($codec:ty, $suite:expr) => {
        $crate::conformance_suite!($codec, $suite, scenarios {
            simple_scenario: "simple", parallel_scenario: "parallel", failing_tool_scenario: "failing-tool",
            multibyte_scenario: "multibyte", long_output_scenario: "long-output",
        });
    };
    ($codec:ty, $suite:expr, scenarios { $($scenario:ident: $name:literal),* $(,)? }) => {
        $crate::conformance_suite!(@tests $codec, $suite;
            info_names_the_codec_and_its_globs_match_every_scenario: info(env!("CARGO_PKG_VERSION"));
            discover_lists_every_scenario_as_inspect_and_read_do: discover(); an_empty_home_has_no_sessions: empty_home();
            every_scenario_passes_the_kit_checks: kit_checks(); meta_names_the_session: meta(env!("CARGO_PKG_VERSION"));
            $($scenario: scenario($name);)*
            records_come_in_store_order_with_their_lines_times: order();
            spans_name_their_records: spans_name_records(); native_types_are_mapped_or_reported: native_types();
            a_torn_tail_is_a_warning: torn_tail(); a_corrupt_line_is_an_error: corrupt_line();
            a_grown_file_continues_from_its_resume_point: resume();
            round_trip_keeps_every_scenario: round_trip(); prepare_into_an_empty_home: prepare_into_an_empty_home();
            prepare_beside_sessions_leaves_them_byte_identical: prepare_beside_sessions();
            a_loose_session_file_is_read: loose_file();
        );
    };
    (@tests $codec:ty, $suite:expr; $($name:ident: $check:ident($($arg:expr),*);)*) => {
        mod conformance {
            use super::*;
            $(
                #[test]
                fn $name() {
                    $crate::suite::$check::<$codec>(&$suite, $($arg),*)
                }
            )*
        }
    };
}
