//! `trajhost export` on every fixture home (the 85 lab fixtures made by the real harness CLIs, and the
//! hand-kept homes beside them): each session read through the built-in codecs, exported as ATIF and
//! checked by the validator, and exported as OTLP spans (protobuf, decoded again) and checked as a tree.

use trajhost::canonical::Record;
use trajhost::inventory::{self, SessionQuery};
use trajhost_export::{atif, otlp};

use crate::common::{CatalogHost, LAB_SCENARIOS, fixture_homes, repo_root, stdout, trajhost};

#[test]
fn every_fixture_session_exports_valid_atif_and_a_well_formed_span_tree() {
    let host = CatalogHost::new();
    let catalog = host.catalog();
    let (mut lab, mut lab_ok, mut sessions, mut with_usage, mut failures) = (0, 0, 0, 0, Vec::new());
    for home in fixture_homes() {
        let is_lab = LAB_SCENARIOS.iter().any(|s| home.ends_with(s));
        let name = home.strip_prefix(repo_root()).unwrap().display().to_string();
        let found =
            inventory::discover(&catalog, &SessionQuery { home: home.clone(), harness: None, cwd: None }).unwrap();
        if found.sessions.is_empty() {
            // Cursor's codec is a plugin file, not built in; fx is a test format.
            eprintln!("{name}: no session the built-in codecs find: not exported");
            assert!(!is_lab || name.contains("cursor"), "{name}: a lab fixture with no session");
            continue;
        }
        lab += is_lab as usize;
        let before = failures.len();
        for session in &found.sessions {
            let id = format!("{name} {}", session.session.native_id);
            let read = || -> Result<Vec<Record>, trajhost::HostError> {
                let (_codec, mut stream) = inventory::open(&catalog, session, None, inventory::default_read_options())?;
                let mut records = Vec::new();
                while let Some(batch) = stream.next_batch()? {
                    for line in batch.records.lines() {
                        records.push(serde_json::from_str::<Record>(line).unwrap());
                    }
                }
                Ok(records)
            };
            let records = match read() {
                Ok(records) => records,
                // Hand-kept homes hold sessions a codec refuses on purpose (an fx schema it does not read).
                Err(error) if !is_lab => {
                    eprintln!("{id}: the codec refuses it ({error}): not exported");
                    continue;
                }
                Err(error) => {
                    failures.push(format!("{id}: reading: {error}"));
                    continue;
                }
            };
            sessions += 1;
            // ATIF.
            let trajectory = atif::to_value(&records).unwrap();
            for error in atif::validate(&trajectory) {
                failures.push(format!("{id}: ATIF: {error}"));
            }
            let recorded_usage =
                records.iter().any(|r| matches!(&r.body, trajhost::canonical::Body::Assistant(a) if a.usage.is_some()));
            with_usage += recorded_usage as usize;
            if trajectory.get("final_metrics").is_some() != recorded_usage {
                failures.push(format!(
                    "{id}: ATIF final_metrics present = {}, usage recorded = {recorded_usage}",
                    !recorded_usage
                ));
            }
            // OTLP, with and without content.
            for content in [false, true] {
                let mut encoder =
                    otlp::SessionEncoder::new(&records[0], otlp::Format::Proto, otlp::Options { content }).unwrap();
                for record in &records[1..] {
                    encoder.push(record);
                }
                let request = otlp::decode_request(&otlp::request_body(&encoder.finish())).unwrap();
                for problem in otlp::check_tree(&request, content) {
                    failures.push(format!("{id}: OTLP (content {content}): {problem}"));
                }
                let spans = &request.resource_spans[0].scope_spans[0].spans;
                let has_usage = spans.iter().any(|s| s.attributes.iter().any(|kv| kv.key.starts_with("gen_ai.usage.")));
                if has_usage != recorded_usage {
                    failures.push(format!("{id}: usage attributes {has_usage}, usage recorded {recorded_usage}"));
                }
                let calls =
                    records.iter().filter(|r| matches!(r.body, trajhost::canonical::Body::ToolCall { .. })).count();
                let tools = spans.iter().filter(|s| s.name.starts_with("execute_tool ")).count();
                if calls != tools {
                    failures.push(format!("{id}: {calls} tool calls, {tools} execute_tool spans"));
                }
            }
        }
        if is_lab && failures.len() == before {
            lab_ok += 1;
        }
    }
    eprintln!("export: {sessions} sessions ({with_usage} with usage); lab fixtures {lab_ok} of {lab}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(lab >= 80, "the lab fixtures were found: {lab}");
}

#[test]
fn the_cli_exports_are_stable_and_keep_content_out_unless_asked() {
    let data = tempfile::tempdir().unwrap();
    let home = repo_root().join("fixtures/claude-code/2.1.197/simple");
    let home = home.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["export", "--all", "--home", home];
        args.extend_from_slice(extra);
        let out = trajhost(data.path(), &args);
        assert!(out.status.success(), "{}", crate::common::stderr(&out));
        stdout(&out)
    };
    let bare = run(&["--format", "otlp-json"]);
    assert_eq!(bare, run(&["--format", "otlp-json"]), "re-exports are identical (ids derived from the session)");
    let with_content = run(&["--format", "otlp-json", "--content"]);
    // The fixture's sentinel is in the tool result: only with --content.
    assert!(!bare.contains("PAPAYA-42") && with_content.contains("PAPAYA-42"));
    let value: serde_json::Value = serde_json::from_str(&bare).unwrap();
    assert_eq!(value["resourceSpans"].as_array().unwrap().len(), 1);
    let atif = run(&["--format", "atif", "--validate"]);
    let trajectory: serde_json::Value = serde_json::from_str(&atif).unwrap();
    assert_eq!(trajectory["schema_version"], "ATIF-v1.7");
    assert!(atif.contains("PAPAYA-42"));
}
