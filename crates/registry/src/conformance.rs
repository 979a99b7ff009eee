//! Conformance checks: properties every codec's output must have, whatever
//! the harness. `trajhost plugin test` runs all of them over fixture homes;
//! `trajhost read --strict` runs the record-stream ones on the session it
//! reads. Each check has a stable name ([`Check::name`]) that failures carry,
//! so a test (or a codec author) can tell which rule was broken.
//!
//! The record-stream checks ([`StreamChecks`]) need only the records; the
//! others ([`check_fixture`]) also call `discover`, `inspect` and a second
//! `read`.

pub mod expect;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use trajhost_canonical::{Body, Record};
use trajhost_capabilities::wit::latest::codec::{CodecInfo, ReadOptions, SessionRef};
use trajhost_capabilities::wit::latest::types::Diagnostic;
use trajhost_runtime::error::{HostError, Result};
use trajhost_runtime::{LoadedCodec, Runtime, Usage};

/// One conformance rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// The first record of a session is `meta`.
    MetaFirst,
    /// Every record but `meta` carries `src` (its raw bytes' location).
    SrcOnEveryRecord,
    /// No two records of a session share an id.
    UniqueIds,
    /// Two reads of the same bytes give the same ids, in the same order,
    /// however the stream is cut into batches.
    StableIds,
    /// Every `tool_result` answers a `tool_call` seen earlier in the same
    /// agent's records (the main transcript, or one subagent's).
    ToolResultAfterCall,
    /// Records come in the order the harness produced them: no assistant text
    /// quotes a tool's output before that output's `tool_result` (a model
    /// cannot quote what it has not seen; a reader that puts a step's answer
    /// ahead of the call that produced it breaks this).
    AnswerAfterResult,
    /// Each session's native version lies in the codec's `native-versions`
    /// (a prerelease of a covered version counts as covered).
    NativeVersionInRange,
    /// `inspect(locator)` returns the session-ref `discover` returned.
    InspectAgrees,
}

impl Check {
    pub const ALL: [Check; 8] = [
        Check::MetaFirst,
        Check::SrcOnEveryRecord,
        Check::UniqueIds,
        Check::StableIds,
        Check::ToolResultAfterCall,
        Check::AnswerAfterResult,
        Check::NativeVersionInRange,
        Check::InspectAgrees,
    ];

    /// The stable name failures are reported under.
    pub fn name(self) -> &'static str {
        match self {
            Check::MetaFirst => "meta-first",
            Check::SrcOnEveryRecord => "src-on-every-record",
            Check::UniqueIds => "unique-ids",
            Check::StableIds => "stable-ids",
            Check::ToolResultAfterCall => "tool-result-after-call",
            Check::AnswerAfterResult => "answer-after-result",
            Check::NativeVersionInRange => "native-version-in-range",
            Check::InspectAgrees => "inspect-agrees",
        }
    }

    /// The check named `name`.
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One broken rule in one session (or fixture), with its first instance.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Failure {
    pub check: Check,
    /// The session's locator, or the fixture home for a fixture-wide failure.
    pub session: String,
    /// How many times the rule was broken.
    pub count: u64,
    /// The first instance, naming record ids (never transcript content).
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed in {}: {}", self.check, self.session, self.detail)?;
        if self.count > 1 {
            write!(f, " (and {} more)", self.count - 1)?;
        }
        Ok(())
    }
}

/// Violations of one session, keeping only the first instance of each check.
#[derive(Debug, Default)]
struct Violations {
    first: BTreeMap<Check, (u64, String)>,
}

impl Violations {
    fn add(&mut self, check: Check, detail: impl FnOnce() -> String) {
        self.first.entry(check).and_modify(|(count, _)| *count += 1).or_insert_with(|| (1, detail()));
    }

    fn into_failures(self, session: &str) -> Vec<Failure> {
        self.first
            .into_iter()
            .map(|(check, (count, detail))| Failure { check, session: session.to_string(), count, detail })
            .collect()
    }
}

/// The record-stream checks (`meta-first`, `src-on-every-record`,
/// `unique-ids`, `tool-result-after-call`, `answer-after-result`), fed one
/// record at a time. Memory grows with the number of distinct ids and call
/// ids, and the assistant texts of the current turn, not with the session.
#[derive(Debug)]
pub struct StreamChecks {
    session: String,
    position: u64,
    ids: HashSet<String>,
    /// `(agent, call_id)` of every `tool_call` so far.
    calls: HashSet<(Option<String>, String)>,
    /// The assistant texts since the last user record, per agent:
    /// `(agent, record position, record id, text)`, at most
    /// [`TURN_TEXT_LIMIT`] bytes in all.
    turn_texts: Vec<(Option<String>, u64, String, String)>,
    violations: Violations,
}

/// How much assistant text of one turn `answer-after-result` keeps.
const TURN_TEXT_LIMIT: usize = 1 << 20;
/// A tool output shorter than this (trimmed) may well appear in a text by
/// chance (`ok`, a number), so it is not looked for.
const QUOTABLE_OUTPUT: usize = 24;

impl StreamChecks {
    /// Checks for the session named `session` in failures.
    pub fn new(session: impl Into<String>) -> StreamChecks {
        StreamChecks {
            session: session.into(),
            position: 0,
            ids: HashSet::new(),
            calls: HashSet::new(),
            turn_texts: Vec::new(),
            violations: Violations::default(),
        }
    }

    /// Records seen so far.
    pub fn records(&self) -> u64 {
        self.position
    }

    pub fn push(&mut self, record: &Record) {
        let position = self.position;
        self.position += 1;
        let is_meta = matches!(record.body, Body::Meta(_));
        if position == 0 && !is_meta {
            self.violations.add(Check::MetaFirst, || {
                format!("the first record is `{}` (id {:?}), not `meta`", record.body.kind(), record.id)
            });
        }
        if !is_meta && record.src.is_none() {
            self.violations.add(Check::SrcOnEveryRecord, || {
                format!("record {position} (`{}`, id {:?}) has no `src`", record.body.kind(), record.id)
            });
        }
        if !self.ids.insert(record.id.clone()) {
            self.violations.add(Check::UniqueIds, || format!("id {:?} repeats at record {position}", record.id));
        }
        match &record.body {
            Body::User { .. } => self.turn_texts.retain(|(agent, ..)| *agent != record.agent),
            Body::Assistant(a) if !a.text.trim().is_empty() => {
                let held: usize = self.turn_texts.iter().map(|(.., text)| text.len()).sum();
                if held + a.text.len() <= TURN_TEXT_LIMIT {
                    self.turn_texts.push((record.agent.clone(), position, record.id.clone(), a.text.clone()));
                }
            }
            Body::ToolResult { content, .. } if content.trim().len() >= QUOTABLE_OUTPUT => {
                let output = content.trim();
                if let Some((_, at, id, _)) =
                    self.turn_texts.iter().find(|(agent, _, _, text)| *agent == record.agent && text.contains(output))
                {
                    self.violations.add(Check::AnswerAfterResult, || {
                        format!(
                            "assistant record {id:?} (record {at}) quotes the output of tool_result {:?} (record {position}), which comes after it",
                            record.id
                        )
                    });
                }
            }
            _ => {}
        }
        match &record.body {
            Body::ToolCall { call_id, .. } => {
                self.calls.insert((record.agent.clone(), call_id.clone()));
            }
            Body::ToolResult { call_id, .. } if !self.calls.contains(&(record.agent.clone(), call_id.clone())) => {
                self.violations.add(Check::ToolResultAfterCall, || {
                    let scope = match &record.agent {
                        Some(agent) => format!("subagent {agent:?}'s"),
                        None => "the main transcript's".into(),
                    };
                    format!(
                        "tool_result {:?} (record {position}) answers call {call_id:?}, which none of {scope} earlier tool_calls made",
                        record.id
                    )
                });
            }
            _ => {}
        }
    }

    /// The broken rules, one [`Failure`] per check.
    pub fn finish(mut self) -> Vec<Failure> {
        if self.position == 0 {
            self.violations.add(Check::MetaFirst, || "the session has no records at all".into());
        }
        self.violations.into_failures(&self.session)
    }
}

/// Whether `native` lies in the semver range `range`; a prerelease of a
/// covered version (`2.1.0-beta.1` under `>=2.0.0, <3.0.0`) counts as covered.
pub fn version_in_range(range: &semver::VersionReq, native: &semver::Version) -> bool {
    if range.matches(native) {
        return true;
    }
    let mut release = native.clone();
    release.pre = semver::Prerelease::EMPTY;
    !native.pre.is_empty() && range.matches(&release)
}

/// What one read of a session returned.
#[derive(Debug, Default)]
pub struct SessionRun {
    /// The session-ref `discover` returned.
    pub native_id: String,
    pub locator: String,
    pub native_version: Option<String>,
    pub records: u64,
    pub kinds: BTreeMap<String, u64>,
    pub diagnostics: Vec<Diagnostic>,
    /// Of the first read.
    pub usage: Usage,
    /// The read (or inspect) stopped with this error; then the checks
    /// that need a complete read did not run.
    pub error: Option<HostError>,
    /// The codec's log and captured output, when the read failed.
    pub log: String,
    pub failures: Vec<Failure>,
}

/// What a codec did with one fixture home.
#[derive(Debug)]
pub struct FixtureRun {
    pub home: PathBuf,
    /// Sessions `discover` found.
    pub discovered: usize,
    pub discover_diagnostics: Vec<Diagnostic>,
    pub discover_usage: Usage,
    /// `discover` failed: nothing else ran.
    pub discover_error: Option<HostError>,
    pub discover_log: String,
    pub sessions: Vec<SessionRun>,
    /// Failures not tied to one session (a declared range that is no range).
    pub failures: Vec<Failure>,
}

impl FixtureRun {
    /// Every failure, fixture-wide and per session.
    pub fn all_failures(&self) -> impl Iterator<Item = &Failure> {
        self.failures.iter().chain(self.sessions.iter().flat_map(|s| s.failures.iter()))
    }

    /// Every error: discover's and each session's.
    pub fn errors(&self) -> impl Iterator<Item = &HostError> {
        self.discover_error.iter().chain(self.sessions.iter().filter_map(|s| s.error.as_ref()))
    }
}

/// Batch caps for the second read of `stable-ids`: small and odd, so that
/// ids derived from batch positions show up as different.
const RECUT_OPTIONS: ReadOptions = ReadOptions { max_batch_records: 3, max_batch_bytes: 1500 };

/// Runs every check of `codec` over `home`: discover, then per session a
/// read with `options` (records go to `observe` too), a second read cut
/// into other batches, and `inspect`. Errors of the codec are recorded in
/// the run, not returned; only a failure to instantiate is.
pub fn check_fixture(
    runtime: &Runtime,
    codec: &LoadedCodec,
    info: &CodecInfo,
    home: &Path,
    options: ReadOptions,
    observe: &mut dyn FnMut(&Record),
) -> Result<FixtureRun> {
    let codec_id = format!("{}@{}", info.harness, info.codec_version);
    let instance = |runtime: &Runtime| -> Result<trajhost_runtime::CodecInstance> {
        let mut instance = codec.instantiate(runtime)?;
        instance.set_name(codec_id.clone());
        Ok(instance)
    };
    let mut run = FixtureRun {
        home: home.to_path_buf(),
        discovered: 0,
        discover_diagnostics: Vec::new(),
        discover_usage: Usage::default(),
        discover_error: None,
        discover_log: String::new(),
        sessions: Vec::new(),
        failures: Vec::new(),
    };
    let range = match semver::VersionReq::parse(&info.native_versions) {
        Ok(range) => Some(range),
        Err(e) => {
            run.failures.push(Failure {
                check: Check::NativeVersionInRange,
                session: home.display().to_string(),
                count: 1,
                detail: format!("the declared native-versions {:?} is not a semver range: {e}", info.native_versions),
            });
            None
        }
    };

    let mut discovering = instance(runtime)?;
    let discovery = discovering.discover(home);
    run.discover_usage = discovering.usage();
    let discovery = match discovery {
        Ok(discovery) => discovery,
        Err(error) => {
            run.discover_log = discovering.plugin_log();
            run.discover_error = Some(error);
            return Ok(run);
        }
    };
    drop(discovering);
    run.discovered = discovery.sessions.len();
    run.discover_diagnostics = discovery.diagnostics;

    for session in discovery.sessions {
        let mut session_run = SessionRun {
            native_id: session.native_id.clone(),
            locator: session.locator.clone(),
            native_version: session.native_version.clone(),
            ..SessionRun::default()
        };
        let mut violations = Violations::default();
        let mut meta_version = None;
        let first = read_ids(instance(runtime)?, home, &session.locator, options, &mut |record: &Record| {
            session_run.records += 1;
            *session_run.kinds.entry(record.body.kind().to_string()).or_default() += 1;
            if let Body::Meta(meta) = &record.body
                && meta_version.is_none()
            {
                meta_version = meta.native_version.clone();
            }
            observe(record);
        });
        session_run.usage = first.usage;
        session_run.diagnostics = first.diagnostics;
        // A read that stopped says nothing about the rules: only its error counts.
        if let Some(error) = first.error {
            session_run.error = Some(error);
            session_run.log = first.log;
            run.sessions.push(session_run);
            continue;
        }
        session_run.failures = first.stream_failures;

        let second = read_ids(instance(runtime)?, home, &session.locator, RECUT_OPTIONS, &mut |_| {});
        match second.error {
            Some(error @ (HostError::Trap { .. } | HostError::LimitExceeded { .. })) => {
                session_run.error = Some(error);
                session_run.log = second.log;
            }
            Some(error) => violations.add(Check::StableIds, || format!("a second read failed: {error}")),
            None => {
                if let Some(detail) = first_difference(&first.ids, &second.ids) {
                    violations.add(Check::StableIds, || detail);
                }
            }
        }

        let version = session.native_version.clone().or(meta_version);
        if let (Some(range), Some(native)) = (&range, &version) {
            match crate::catalog::parse_native_version(native) {
                Some(parsed) if version_in_range(range, &parsed) => {}
                Some(_) => violations.add(Check::NativeVersionInRange, || {
                    format!(
                        "native version {native:?} is outside the codec's native-versions {:?}",
                        info.native_versions
                    )
                }),
                None => violations
                    .add(Check::NativeVersionInRange, || format!("native version {native:?} is not a version")),
            }
        }

        let mut inspecting = instance(runtime)?;
        match inspecting.inspect(home, &session.locator) {
            Ok(inspected) => {
                if let Some(detail) = session_ref_difference(&session, &inspected) {
                    violations.add(Check::InspectAgrees, || detail);
                }
            }
            Err(error @ (HostError::Trap { .. } | HostError::LimitExceeded { .. })) => {
                session_run.log = inspecting.plugin_log();
                session_run.error.get_or_insert(error);
            }
            Err(error) => {
                violations.add(Check::InspectAgrees, || format!("inspect({:?}) failed: {error}", session.locator))
            }
        }
        session_run.failures.extend(violations.into_failures(&session.locator));
        session_run.failures.sort_by_key(|f| f.check);
        run.sessions.push(session_run);
    }
    Ok(run)
}

struct IdRead {
    ids: Vec<String>,
    diagnostics: Vec<Diagnostic>,
    usage: Usage,
    stream_failures: Vec<Failure>,
    error: Option<HostError>,
    log: String,
}

/// One full read: the ids in order, the stream checks' failures, and the
/// error that stopped it, if any.
fn read_ids(
    instance: trajhost_runtime::CodecInstance,
    home: &Path,
    locator: &str,
    options: ReadOptions,
    observe: &mut dyn FnMut(&Record),
) -> IdRead {
    let mut out = IdRead {
        ids: Vec::new(),
        diagnostics: Vec::new(),
        usage: Usage::default(),
        stream_failures: Vec::new(),
        error: None,
        log: String::new(),
    };
    let codec_id = instance.name().to_string();
    // A failed `read` consumes the instance and its log; a panic's message
    // is in the error itself (the runtime takes it from the codec's stderr).
    let mut stream = match instance.read(home, locator, options) {
        Ok(stream) => stream,
        Err(error) => {
            out.error = Some(error);
            return out;
        }
    };
    let mut checks = StreamChecks::new(locator);
    loop {
        match stream.next_batch() {
            Ok(Some(batch)) => {
                out.diagnostics.extend(batch.diagnostics);
                for line in batch.records.lines() {
                    match serde_json::from_str::<Record>(line) {
                        Ok(record) => {
                            checks.push(&record);
                            observe(&record);
                            out.ids.push(record.id);
                        }
                        Err(e) => {
                            out.error = Some(HostError::Codec {
                                plugin: codec_id.clone(),
                                op: trajhost_runtime::error::Operation::Read,
                                message: format!("record {} is not canonical JSON: {e}", out.ids.len()),
                            });
                            break;
                        }
                    }
                }
                if out.error.is_some() {
                    break;
                }
            }
            Ok(None) => break,
            Err(error) => {
                out.error = Some(error);
                out.log = stream.plugin_log();
                break;
            }
        }
    }
    out.usage = stream.usage();
    out.stream_failures = checks.finish();
    out
}

/// Where two id sequences first differ, for `stable-ids`.
fn first_difference(first: &[String], second: &[String]) -> Option<String> {
    let position = first.iter().zip(second).position(|(a, b)| a != b);
    match position {
        Some(i) => Some(format!(
            "record {i} has id {:?} in one read and {:?} in another (the second read was cut into batches of {} records)",
            first[i], second[i], RECUT_OPTIONS.max_batch_records
        )),
        None if first.len() != second.len() => {
            Some(format!("one read gave {} records, another {}", first.len(), second.len()))
        }
        None => None,
    }
}

/// The fields where `inspect`'s session-ref differs from `discover`'s.
fn session_ref_difference(discovered: &SessionRef, inspected: &SessionRef) -> Option<String> {
    let mut differences = Vec::new();
    let mut compare = |field: &str, a: String, b: String| {
        if a != b {
            differences.push(format!("{field}: discover {a}, inspect {b}"));
        }
    };
    compare("native-id", format!("{:?}", discovered.native_id), format!("{:?}", inspected.native_id));
    compare("locator", format!("{:?}", discovered.locator), format!("{:?}", inspected.locator));
    compare("cwd", format!("{:?}", discovered.cwd), format!("{:?}", inspected.cwd));
    compare("started-at", format!("{:?}", discovered.started_at), format!("{:?}", inspected.started_at));
    compare("updated-at", format!("{:?}", discovered.updated_at), format!("{:?}", inspected.updated_at));
    compare("size", discovered.size.to_string(), inspected.size.to_string());
    compare("native-version", format!("{:?}", discovered.native_version), format!("{:?}", inspected.native_version));
    compare("title", format!("{:?}", discovered.title), format!("{:?}", inspected.title));
    if differences.is_empty() { None } else { Some(differences.join("; ")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajhost_canonical::{Meta, SourceSpan};

    fn record(id: &str, body: Body, agent: Option<&str>) -> Record {
        let src = (!matches!(body, Body::Meta(_))).then(|| SourceSpan { file: "s.jsonl".into(), offset: 0, len: 1 });
        Record { id: id.into(), body, parent: None, ts: None, agent: agent.map(String::from), src }
    }

    fn meta() -> Record {
        record("m", Body::Meta(Meta::default()), None)
    }

    fn call(id: &str, call_id: &str, agent: Option<&str>) -> Record {
        record(
            id,
            Body::ToolCall { call_id: call_id.into(), name: "Bash".into(), arguments: serde_json::json!({}) },
            agent,
        )
    }

    fn result(id: &str, call_id: &str, agent: Option<&str>) -> Record {
        record(id, Body::ToolResult { call_id: call_id.into(), content: String::new(), ok: None }, agent)
    }

    fn failed(records: &[Record]) -> Vec<Check> {
        let mut checks = StreamChecks::new("s");
        for r in records {
            checks.push(r);
        }
        checks.finish().into_iter().map(|f| f.check).collect()
    }

    #[test]
    fn a_conforming_stream_passes() {
        let records = [
            meta(),
            call("a", "c1", None),
            result("b", "c1", None),
            call("c", "c1", Some("sub")),
            result("d", "c1", Some("sub")),
        ];
        assert_eq!(failed(&records), vec![]);
    }

    #[test]
    fn each_stream_rule_is_named() {
        assert_eq!(failed(&[call("a", "c1", None)]), vec![Check::MetaFirst]);
        assert_eq!(failed(&[]), vec![Check::MetaFirst]);
        let mut no_src = call("a", "c1", None);
        no_src.src = None;
        assert_eq!(failed(&[meta(), no_src]), vec![Check::SrcOnEveryRecord]);
        assert_eq!(failed(&[meta(), call("a", "c1", None), call("a", "c2", None)]), vec![Check::UniqueIds]);
        assert_eq!(failed(&[meta(), result("b", "c1", None), call("a", "c1", None)]), vec![Check::ToolResultAfterCall]);
    }

    fn text(id: &str, body: Body) -> Record {
        record(id, body, None)
    }

    const OUTPUT: &str = "Hello from the lab workspace. The secret word is PAPAYA-42.";

    #[test]
    fn an_answer_quoting_a_tool_output_must_come_after_it() {
        let user = || text("u", Body::User { text: "read it".into(), attachments: Vec::new() });
        let answer = || {
            let a = trajhost_canonical::Assistant {
                text: format!("FINAL ANSWER: the tool returned: {OUTPUT}"),
                ..Default::default()
            };
            text("t", Body::Assistant(a))
        };
        let output = || text("r", Body::ToolResult { call_id: "c1".into(), content: OUTPUT.into(), ok: Some(true) });
        let in_order = [meta(), user(), call("a", "c1", None), output(), answer()];
        assert_eq!(failed(&in_order), vec![]);
        // OpenCode 0.5's parts read out of order: the answer ahead of the call that produced it.
        let answer_first = [meta(), user(), answer(), call("a", "c1", None), output()];
        assert_eq!(failed(&answer_first), vec![Check::AnswerAfterResult]);
        // An earlier turn's answer that repeats an output is no violation: a user record starts a turn.
        let earlier_turn = [
            meta(),
            user(),
            answer(),
            text("u2", Body::User { text: "again".into(), attachments: Vec::new() }),
            call("a", "c1", None),
            output(),
        ];
        assert_eq!(failed(&earlier_turn), vec![]);
    }

    #[test]
    fn a_result_must_answer_a_call_of_its_own_agent() {
        assert_eq!(
            failed(&[meta(), call("a", "c1", Some("sub")), result("b", "c1", None)]),
            vec![Check::ToolResultAfterCall]
        );
    }

    #[test]
    fn failures_count_repeats_and_keep_the_first() {
        let mut checks = StreamChecks::new("s");
        for r in [meta(), result("x", "c1", None), result("y", "c2", None)] {
            checks.push(&r);
        }
        let failures = checks.finish();
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].count, 2);
        assert!(failures[0].detail.contains("\"x\""), "{}", failures[0].detail);
        assert!(failures[0].to_string().starts_with("tool-result-after-call failed in s:"), "{}", failures[0]);
    }

    #[test]
    fn prereleases_of_covered_versions_are_in_range() {
        let range = semver::VersionReq::parse(">=2.0.0, <3.0.0").unwrap();
        let v = |s: &str| semver::Version::parse(s).unwrap();
        assert!(version_in_range(&range, &v("2.1.0")));
        assert!(version_in_range(&range, &v("2.1.0-beta.1")));
        assert!(!version_in_range(&range, &v("3.0.0-rc.1")));
        assert!(!version_in_range(&range, &v("1.9.9")));
    }

    #[test]
    fn check_names_round_trip() {
        for check in Check::ALL {
            assert_eq!(Check::from_name(check.name()), Some(check));
        }
    }
}
