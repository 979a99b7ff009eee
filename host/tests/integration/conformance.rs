//! `plugin test`'s conformance checks and expectations files, `read
//! --strict`, panic messages and forbidden-import messages, against real
//! components: `tests/broken` (which breaks the rule its fixture names) and
//! the built-in claude-code codec.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{fixture_home, guest, repo_root, stderr, stdout, trajhost};

/// Which check each `fixtures/broken/<defect>` breaks.
const DEFECTS: &[(&str, &str)] = &[
    ("no-meta", "meta-first"),
    ("no-src", "src-on-every-record"),
    ("dup-ids", "unique-ids"),
    ("unstable-ids", "stable-ids"),
    ("result-before-call", "tool-result-after-call"),
    ("answer-before-result", "answer-after-result"),
    ("version-out-of-range", "native-version-in-range"),
    ("inspect-disagrees", "inspect-agrees"),
];

fn broken_home(defect: &str) -> PathBuf {
    let path = repo_root().join("fixtures/broken").join(defect);
    assert!(path.is_dir(), "missing {}", path.display());
    path
}

fn plugin_test(data: &Path, wasm: &Path, fixtures: &[&Path], extra: &[&str]) -> Output {
    let mut args: Vec<&str> = vec!["plugin", "test", wasm.to_str().unwrap()];
    args.extend(fixtures.iter().map(|f| f.to_str().unwrap()));
    args.extend(extra);
    trajhost(data, &args)
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(out), stderr(out)))
}

fn failed_checks(report: &serde_json::Value) -> Vec<String> {
    report["failures"].as_array().unwrap().iter().map(|f| f["check"].as_str().unwrap().to_string()).collect()
}

#[test]
fn each_check_fails_on_the_fixture_that_breaks_it_and_only_there() {
    let data = tempfile::tempdir().unwrap();
    let wasm = guest("trajhost-broken");

    // The control: the same codec and records, conforming.
    let out = plugin_test(data.path(), &wasm, &[&broken_home("none")], &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let report = json(&out);
    assert_eq!(failed_checks(&report), Vec::<String>::new());
    assert_eq!(report["fixtures"][0]["sessions"][0]["records"], 6, "{report}");

    // Every check the binary runs has a fixture that breaks it.
    let checks: Vec<String> =
        report["checks"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    assert_eq!(checks.len(), 8, "{checks:?}");
    for check in &checks {
        assert!(DEFECTS.iter().any(|(_, c)| c == check), "no fixture breaks check {check}");
    }

    for (defect, check) in DEFECTS {
        let home = broken_home(defect);
        let out = plugin_test(data.path(), &wasm, &[&home], &["--json"]);
        assert_eq!(out.status.code(), Some(1), "{defect}: {}\n{}", stdout(&out), stderr(&out));
        assert_eq!(failed_checks(&json(&out)), vec![check.to_string()], "{defect}");
        assert!(stderr(&out).contains(&format!("fails conformance checks: {check}")), "{defect}: {}", stderr(&out));

        let out = plugin_test(data.path(), &wasm, &[&home], &[]);
        assert_eq!(out.status.code(), Some(1), "{defect}");
        let text = stdout(&out);
        let fails: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL ")).collect();
        assert_eq!(fails.len(), 1, "{defect}: {text}");
        assert!(
            fails[0].starts_with(&format!("FAIL {check} failed in broken/session-{defect}.jsonl: ")),
            "{defect}: {text}"
        );
    }
}

#[test]
fn the_built_in_claude_code_codec_passes_every_check() {
    let data = tempfile::tempdir().unwrap();
    let home = fixture_home("claude-code", "2.1.197", "simple");
    let out = plugin_test(data.path(), &guest("trajhost-codec-claude-code"), &[&home], &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    let report = json(&out);
    assert_eq!(report["passed"], true);
    assert_eq!(failed_checks(&report), Vec::<String>::new());
    let session = &report["fixtures"][0]["sessions"][0];
    assert!(session["records"].as_u64().unwrap() > 5 && session["error"].is_null(), "{report}");
    assert!(session["kinds"]["tool_result"].as_u64().unwrap() >= 1, "the tool_result rule was exercised: {report}");
}

/// The `none` fixture plus a line the codec does not know, which it reports
/// as an `unknown-record-type` warning.
fn home_with_a_warning() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("broken")).unwrap();
    let mut text = std::fs::read_to_string(broken_home("none").join("broken/session-none.jsonl")).unwrap();
    text.push_str("{\"role\":\"hook\",\"text\":\"x\"}\n");
    std::fs::write(home.path().join("broken/warned.jsonl"), text).unwrap();
    home
}

#[test]
fn an_expectations_file_that_holds_passes_and_one_that_does_not_names_what_failed() {
    let data = tempfile::tempdir().unwrap();
    let wasm = guest("trajhost-broken");
    let dir = tempfile::tempdir().unwrap();
    let none = broken_home("none");
    let warned = home_with_a_warning();

    let holds = dir.path().join("holds.toml");
    std::fs::write(
        &holds,
        format!(
            "sessions = 1\ntexts = [\"list the files\", \"README.md\"]\n\
             [kinds]\nmeta = 1\nuser = 1\nassistant = 2\ntool_call = {{ min = 1 }}\ntool_result = {{ min = 1, max = 1 }}\n\
             [fixtures.{:?}]\nallowed-diagnostics = [\"unknown-record-type\"]\n",
            warned.path().display().to_string()
        ),
    )
    .unwrap();
    let out = plugin_test(data.path(), &wasm, &[&none, warned.path()], &["--expect", holds.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert!(!stdout(&out).contains("UNMET"), "{}", stdout(&out));

    let unmet = dir.path().join("unmet.toml");
    std::fs::write(&unmet, "sessions = 2\ntexts = [\"PAPAYA-42\"]\n[kinds]\nuser = 2\nassistant = { min = 1 }\n")
        .unwrap();
    let out = plugin_test(data.path(), &wasm, &[warned.path()], &["--expect", unmet.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", stdout(&out), stderr(&out));
    let report = json(&out);
    let mut names: Vec<String> =
        report["unmet"].as_array().unwrap().iter().map(|u| u["expectation"].as_str().unwrap().to_string()).collect();
    names.sort();
    assert_eq!(names, ["allowed-diagnostics", "kinds.user", "sessions", "texts"], "{report}");
    assert_eq!(failed_checks(&report), Vec::<String>::new(), "the checks themselves pass");
    let details = report["unmet"].to_string();
    assert!(details.contains("unknown-record-type") && details.contains("PAPAYA-42"), "{details}");
    let err = stderr(&out);
    assert!(err.contains("does not meet expectations: allowed-diagnostics, kinds.user, sessions, texts"), "{err}");

    let out = plugin_test(data.path(), &wasm, &[warned.path()], &["--expect", unmet.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        text.contains("UNMET expectation kinds.user not met for ")
            && text.contains("expected exactly 2 `user` records, found 1"),
        "{text}"
    );

    // A table for a fixture that was not tested is an error, not a silent pass.
    let stray = dir.path().join("stray.toml");
    std::fs::write(&stray, "[fixtures.\"no-such-home\"]\nsessions = 1\n").unwrap();
    let out = plugin_test(data.path(), &wasm, &[&none], &["--expect", stray.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("\"no-such-home\"") && stderr(&out).contains("not among the fixtures tested"),
        "{}",
        stderr(&out)
    );
    let typo = dir.path().join("typo.toml");
    std::fs::write(&typo, "[kinds]\nusers = 1\n").unwrap();
    let out = plugin_test(data.path(), &wasm, &[&none], &["--expect", typo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("unknown record kind \"users\""), "{}", stderr(&out));
}

#[test]
fn a_panic_shows_its_message_and_location_first_and_exits_4() {
    let data = tempfile::tempdir().unwrap();
    let out = plugin_test(data.path(), &guest("trajhost-broken"), &[&broken_home("panic")], &[]);
    assert_eq!(out.status.code(), Some(4), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let first_error = text.lines().find(|l| l.contains("ERROR")).unwrap_or_else(|| panic!("no ERROR line: {text}"));
    assert!(
        first_error
            .trim()
            .starts_with("ERROR: codec broken@0.1.0 trapped during read: panicked at tests/broken/src/lib.rs:")
            && first_error.ends_with(": boom: the fixture asked for a panic"),
        "{first_error}"
    );
    let all = format!("{text}{}", stderr(&out));
    assert!(!all.contains("RUST_BACKTRACE") && !all.contains("wasm backtrace"), "{all}");
    // Checks that need a complete read are not reported as failed (or passed) for it.
    assert!(!text.contains("FAIL ") && text.contains("not checked: 1 of 1 sessions"), "{text}");
}

#[test]
fn read_strict_names_the_broken_rule() {
    let data = tempfile::tempdir().unwrap();
    let out = trajhost(data.path(), &["plugin", "install", guest("trajhost-broken").to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let file = |defect: &str| broken_home(defect).join(format!("broken/session-{defect}.jsonl")).display().to_string();

    let out = trajhost(data.path(), &["read", &file("result-before-call"), "--strict"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("FAIL tool-result-after-call failed in broken/session-result-before-call.jsonl"),
        "{}",
        stderr(&out)
    );
    // Without --strict the same read succeeds: the checks are opt-in.
    let out = trajhost(data.path(), &["read", &file("result-before-call")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The control, whose native version is a prerelease of a covered one.
    let out = trajhost(data.path(), &["read", &file("none"), "--strict", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"kind\":\"summary\""), "{}", stdout(&out));
}

#[test]
fn a_forbidden_import_names_the_rust_api_behind_it() {
    let data = tempfile::tempdir().unwrap();
    let out = trajhost(data.path(), &["plugin", "install", guest("trajhost-hostile-import").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("`wasi:filesystem/preopens@") && err.contains("`wasi:filesystem/types@"),
        "the imports are listed: {err}"
    );
    assert!(err.contains("std::fs pulls it in") && err.contains("trajhost_codec_sdk::fs::Dir"), "{err}");
}

/// `plugin new` → `cargo build` → `plugin test --expect` → `plugin install`
/// → `sessions` → `read`, in a temp directory outside the repository, as
/// sdk/README.md's "Writing a codec outside this repository" describes. Slow
/// (it builds the SDK for wasm32-wasip2 in its own target directory).
#[test]
fn a_scaffolded_codec_builds_passes_plugin_test_installs_and_reads_outside_the_repo() {
    let work = tempfile::tempdir().unwrap();
    assert!(!work.path().starts_with(repo_root()), "the temp dir must lie outside the repository");
    let data = work.path().join("data");
    let crate_dir = work.path().join("acme");
    let out = trajhost(&data, &["plugin", "new", "acme", "--dir", crate_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sdk = std::fs::canonicalize(repo_root().join("sdk/codec")).unwrap();
    assert!(stdout(&out).contains(&format!("SDK dependency: path {}", sdk.display())), "{}", stdout(&out));
    // A second `plugin new` into the same directory refuses and changes nothing.
    let manifest = std::fs::read(crate_dir.join("Cargo.toml")).unwrap();
    let again = trajhost(&data, &["plugin", "new", "acme", "--dir", crate_dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("already exists and is not empty"), "{}", stderr(&again));
    assert_eq!(std::fs::read(crate_dir.join("Cargo.toml")).unwrap(), manifest);

    let target_dir = crate::common::scaffold_target_dir();
    let built =
        crate::common::scaffold_cargo(&crate_dir, &["build", "--target", "wasm32-wasip2", "--release", "--offline"]);
    assert!(built.status.success(), "the unchanged scaffold does not build:\n{}", stderr(&built));
    // Its own tests: the SDK's conformance suite over its fixture, natively.
    let tested = crate::common::scaffold_cargo(&crate_dir, &["test-native", "--offline"]);
    let log = format!("{}{}", stdout(&tested), stderr(&tested));
    assert!(tested.status.success(), "the unchanged scaffold fails its tests:\n{log}");
    for check in [
        "conformance::round_trip_keeps_every_scenario",
        "conformance::prepare_beside_sessions_leaves_them_byte_identical",
    ] {
        assert!(log.contains(&format!("{check} ... ok")), "{check} did not run:\n{log}");
    }
    let wasm = target_dir.join("wasm32-wasip2/release/acme_codec.wasm");
    assert!(wasm.is_file(), "{} missing", wasm.display());

    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajhost"))
            .current_dir(&crate_dir)
            .arg("--data-dir")
            .arg(&data)
            .args(args)
            .env_remove("TRAJHOST_HOME")
            .env("TRAJHOST_CACHE_DIR", crate::common::shared_cache())
            .output()
            .expect("running trajhost");
        assert!(out.status.success(), "trajhost {args:?} failed:\n{}\n{}", stdout(&out), stderr(&out));
        stdout(&out)
    };
    let wasm = wasm.to_str().unwrap();
    let tested = run(&["plugin", "test", wasm, "fixtures/simple", "--expect", "expect.toml"]);
    assert!(tested.contains("records=5") && !tested.contains("FAIL") && !tested.contains("UNMET"), "{tested}");
    assert!(run(&["plugin", "install", wasm]).contains("installed acme@0.1.0"));
    let sessions: Vec<serde_json::Value> =
        serde_json::from_str(&run(&["sessions", "--home", "fixtures/simple", "--json"])).unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!((sessions[0]["harness"].as_str(), sessions[0]["native_id"].as_str()), (Some("acme"), Some("s-0001")));
    let read = run(&["read", "s-0001", "--home", "fixtures/simple", "--json", "--strict"]);
    assert!(read.contains("What files are in this project?") && read.contains("\"codec\":\"acme@0.1.0\""), "{read}");
    // A renamed copy outside the session globs, without `--harness`: the scaffold's `sniff` claims it
    // (and no built-in codec does), its `inspect` takes the id from the content.
    let copy = work.path().join("sent-to-me.jsonl");
    std::fs::copy(crate_dir.join("fixtures/simple/.acme/sessions/s-0001.jsonl"), &copy).unwrap();
    let loose = run(&["read", copy.to_str().unwrap(), "--json", "--strict"]);
    assert!(loose.contains("What files are in this project?") && loose.contains("\"native_id\":\"s-0001\""), "{loose}");
}

/// The record checks `read --strict` runs (order among them: a tool result
/// after its call, an answer after the result it quotes) hold for every
/// session of every fixture home the built-in codecs read.
#[test]
fn every_fixture_session_passes_the_record_checks_in_order() {
    use trajhost::canonical::Record;
    use trajhost::conformance::StreamChecks;
    use trajhost::inventory::{self, SessionQuery};

    let host = crate::common::CatalogHost::new();
    let catalog = host.catalog();
    let (mut sessions, mut with_results, mut failures) = (0, 0, Vec::new());
    for home in crate::common::fixture_homes() {
        let name = home.strip_prefix(repo_root()).unwrap().display().to_string();
        let found =
            inventory::discover(&catalog, &SessionQuery { home: home.clone(), harness: None, cwd: None }).unwrap();
        for session in &found.sessions {
            let id = format!("{name} {}", session.session.native_id);
            let opened = inventory::open(&catalog, session, None, inventory::default_read_options());
            let Ok((_codec, mut stream)) = opened else {
                // Hand-kept homes hold sessions a codec refuses on purpose; reading is tested elsewhere.
                eprintln!("{id}: not read ({})", opened.err().unwrap());
                continue;
            };
            let mut checks = StreamChecks::new(id.clone());
            let (mut results, mut stopped) = (0, false);
            loop {
                match stream.next_batch() {
                    Ok(Some(batch)) => {
                        for line in batch.records.lines() {
                            let record: Record = serde_json::from_str(line).unwrap();
                            results += matches!(record.body, trajhost::canonical::Body::ToolResult { .. }) as usize;
                            checks.push(&record);
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        // Hand-kept homes that break a codec's rule on purpose (fx's byte mismatch).
                        eprintln!("{id}: stopped reading ({error}): not checked");
                        stopped = true;
                        break;
                    }
                }
            }
            if stopped {
                continue;
            }
            sessions += 1;
            with_results += (results > 0) as usize;
            failures.extend(checks.finish().iter().map(ToString::to_string));
        }
    }
    eprintln!("{sessions} sessions checked, {with_results} of them with tool results");
    assert!(sessions >= 85 && with_results >= 40, "too few sessions read: {sessions} ({with_results} with results)");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
