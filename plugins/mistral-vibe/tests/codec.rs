//! What is particular to Vibe's store, beyond the conformance suite: the
//! JCS digests the real CLI wrote (recomputed here, file by file), the
//! session's times and title, a chunk whose digest no longer holds, broken
//! and foreign files, the folder the writer builds, and prepare's digest
//! re-derivation, refusals and model pin.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_mistral_vibe::generation;
use trajhost_codec_mistral_vibe::{MistralVibe, read::DIGEST_MISMATCH};
use trajhost_codec_sdk::hash::sha256_hex;
use trajhost_codec_sdk::target::{self, TargetChoice};
use trajhost_codec_sdk::{Artifact, Codec, WriteOptions, jcs};
use trajhost_codec_testkit::suite::{self, apply_files};
use trajhost_codec_testkit::{self as kit, tool_calls, tool_results, users};

const SIMPLE_ID: &str = "89f15b48-e69e-5446-26cf-e96022e7b078";
const CWD: &str = "/home/user/project";
const SCENARIOS: [&str; 5] = ["simple", "parallel", "failing-tool", "multibyte", "long-output"];

fn fixture(scenario: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mistral-vibe/3.0.3").join(scenario)
}

fn locator(id: &str) -> String {
    format!(".vibe/logs/session/unified/{id}/CURRENT")
}

/// A stored file's JSON and its bytes without the final newline.
fn stored(path: &Path) -> (Value, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(bytes.ends_with(b"\n"), "{}: not newline terminated", path.display());
    let body = bytes[..bytes.len() - 1].to_vec();
    (serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{}: {e}", path.display())), body)
}

#[test]
fn every_digest_the_real_cli_wrote_is_the_sha256_of_our_jcs_bytes() {
    let mut checked = 0;
    for scenario in SCENARIOS {
        let unified = fixture(scenario).join(".vibe/logs/session/unified");
        for entry in std::fs::read_dir(&unified).unwrap() {
            let folder = entry.unwrap().path();
            if !folder.is_dir() {
                continue;
            }
            // Every chunk: our canonical bytes are the CLI's, and their sha256 its name.
            for chunk in std::fs::read_dir(folder.join("chunks")).unwrap() {
                let path = chunk.unwrap().path();
                let (value, body) = stored(&path);
                assert_eq!(jcs::to_vec(&value), body, "{}: not our JCS bytes", path.display());
                let name = path.file_stem().unwrap().to_str().unwrap().to_string();
                assert_eq!(sha256_hex(&jcs::to_vec(&value)), name, "{}", path.display());
                checked += 1;
            }
            // Every generation: its parts give the manifest's digests, and the current manifest CURRENT's.
            let (current, current_body) = stored(&folder.join("CURRENT"));
            assert_eq!(jcs::to_vec(&current), current_body);
            for generation in std::fs::read_dir(folder.join("generations")).unwrap() {
                let generation = generation.unwrap().path();
                let (manifest, body) = stored(&generation.join("manifest.json"));
                assert_eq!(jcs::to_vec(&manifest), body, "{}", generation.display());
                for part in ["checkpoint", "projection_state", "runtime_state"] {
                    let path = generation.join(manifest[part]["path"].as_str().unwrap());
                    let (value, body) = stored(&path);
                    assert_eq!(jcs::to_vec(&value), body, "{}: not our JCS bytes", path.display());
                    assert_eq!(sha256_hex(&body), manifest[part]["sha256"], "{}", path.display());
                    checked += 1;
                }
                if generation.file_name().unwrap() == current["generation"].as_str().unwrap() {
                    assert_eq!(sha256_hex(&jcs::to_vec(&manifest)), current["manifest_sha256"], "{scenario}");
                    checked += 1;
                }
            }
        }
    }
    // 5 sessions: their chunks, their generations' parts and current manifests.
    assert!(checked >= 5 * (3 + 2 * 3 + 1), "only {checked} digests checked");
}

#[test]
fn meta_json_gives_the_times_the_first_prompt_the_title_and_no_version() {
    let found = kit::discover::<MistralVibe>(&fixture("simple"));
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    assert_eq!(found.sessions.len(), 1, "the session index is no session");
    let s = &found.sessions[0];
    assert_eq!(s.native_id, SIMPLE_ID);
    assert_eq!(s.cwd.as_deref(), Some(CWD));
    assert_eq!(s.started_at.as_deref(), Some("2026-12-07T12:30:37.652Z"));
    assert_eq!(s.updated_at.as_deref(), Some("2026-12-07T12:30:45.618Z"));
    assert_eq!(s.title.as_deref(), Some("Read hello.txt and tell me the secret word."));
    assert_eq!(s.native_version, None, "Vibe records no CLI version");
    let read = kit::read::<MistralVibe>(&fixture("simple"), &locator(SIMPLE_ID));
    assert_eq!(read.meta().native_version, None);
    assert_eq!(read.meta().title, None, "meta.json's title is null");
}

#[test]
fn a_chunk_whose_bytes_no_longer_give_its_name_is_read_and_reported() {
    let home = kit::copy_of(&fixture("simple"));
    let folder = home.path().join(".vibe/logs/session/unified").join(SIMPLE_ID);
    let (current, _) = stored(&folder.join("CURRENT"));
    let generation = folder.join("generations").join(current["generation"].as_str().unwrap());
    let (manifest, _) = stored(&generation.join("manifest.json"));
    let chunk = folder.join("chunks").join(format!("{}.json", manifest["checkpoint"]["chunks"][0].as_str().unwrap()));
    let text = std::fs::read_to_string(&chunk).unwrap().replace("PAPAYA-42", "MANGO-077");
    std::fs::write(&chunk, text).unwrap();
    let read = kit::read::<MistralVibe>(home.path(), &locator(SIMPLE_ID));
    let diag = read.diag(DIGEST_MISMATCH).expect("the edited chunk is reported");
    assert!(diag.file.as_deref().unwrap().ends_with(chunk.file_name().unwrap().to_str().unwrap()), "{diag:?}");
    assert!(tool_results(&read.records).iter().any(|r| r.1.contains("MANGO-077")), "the chunk is still read");
}

#[test]
fn broken_and_foreign_entries_are_named_not_skipped() {
    let home = kit::copy_of(&fixture("simple"));
    let unified = home.path().join(".vibe/logs/session/unified");
    std::fs::create_dir_all(unified.join("11111111-1111-1111-1111-111111111111")).unwrap();
    let torn = unified.join("22222222-2222-2222-2222-222222222222");
    std::fs::create_dir_all(&torn).unwrap();
    std::fs::write(torn.join("CURRENT"), "{\"generation\":").unwrap();
    std::fs::create_dir_all(unified.join("notes")).unwrap();
    let found = kit::discover::<MistralVibe>(home.path());
    assert_eq!(found.sessions.len(), 1, "{:?}", found.sessions);
    for name in ["11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222/CURRENT", "notes"] {
        assert!(
            found.diagnostics.iter().any(|d| d.file.as_deref().is_some_and(|f| f.ends_with(name))),
            "{name}: {:?}",
            found.diagnostics
        );
    }
    // A torn chunk: the read fails naming the file, no panic.
    let chunks = unified.join(SIMPLE_ID).join("chunks");
    for chunk in std::fs::read_dir(&chunks).unwrap() {
        let path = chunk.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    }
    let err = kit::try_read::<MistralVibe>(home.path(), &locator(SIMPLE_ID), kit::one_batch()).unwrap_err();
    assert!(format!("{err:?}").contains("chunks/"), "{err:?}");
}

/// The simple session written as a Vibe session again (a new id).
fn written() -> (kit::Read, trajhost_codec_sdk::WrittenFiles) {
    let read = kit::read::<MistralVibe>(&fixture("simple"), &locator(SIMPLE_ID));
    let written = suite::write::<MistralVibe>(&read.document, suite::options_for(None));
    (read, written)
}

#[test]
fn the_written_folder_is_what_vibe_verifies_and_loads() {
    let (read, written) = written();
    generation::verify(&written.artifacts).unwrap();
    let id = &written.native_id;
    assert_ne!(id, SIMPLE_ID, "a new id, so the original can stay beside it");
    let folder = format!(".vibe/logs/session/unified/{id}");
    let paths: Vec<&str> = written.artifacts.iter().map(|a| a.path.strip_prefix(&folder).unwrap()).collect();
    for wanted in [
        "/generations/0000000000000001/checkpoint.json",
        "/generations/0000000000000001/projection-state.json",
        "/generations/0000000000000001/runtime-state.json",
        "/generations/0000000000000001/manifest.json",
        "/journal/0000000000000002.jsonl",
        "/meta.json",
        "/CURRENT",
    ] {
        assert!(paths.contains(&wanted), "{wanted} in {paths:?}");
    }
    assert_eq!(paths.last(), Some(&"/CURRENT"), "the pointer last");
    let file = |suffix: &str| {
        let a = written.artifacts.iter().find(|a| a.path.ends_with(suffix)).unwrap();
        serde_json::from_slice::<Value>(&a.bytes).unwrap()
    };
    let runtime = file("runtime-state.json");
    assert_eq!(runtime["session_metadata"]["cwd"], CWD);
    assert_eq!(runtime["plugin_lock"], json!({"lock_version": 1, "plugins": [], "snapshot_digest": null}));
    let checkpoint = file("checkpoint.json");
    assert_eq!(checkpoint["context"]["messages"], json!([]), "the items are in the chunks");
    assert!(checkpoint["turn"]["outcome"]["output"][0]["text"].as_str().unwrap().starts_with("NOTOOL ANSWER"));
    // The items: the simple session's six, turn 0 then turn 1.
    let chunks: Vec<&Artifact> = written.artifacts.iter().filter(|a| a.path.contains("/chunks/")).collect();
    assert_eq!(chunks.len(), 1);
    let items: Vec<Value> = serde_json::from_slice(&chunks[0].bytes).unwrap();
    let turns: Vec<u64> = items.iter().map(|i| i["turn_index"].as_u64().unwrap()).collect();
    assert_eq!(turns, [0, 0, 0, 0, 1, 1]);
    // The same document written twice gives the same bytes.
    let again = suite::write::<MistralVibe>(&read.document, suite::options_for(None));
    let files = |w: &trajhost_codec_sdk::WrittenFiles| {
        w.artifacts.iter().map(|a| (a.path.clone(), a.bytes.clone())).collect::<Vec<_>>()
    };
    assert_eq!(files(&again), files(&written));
}

#[test]
fn big_contexts_are_cut_into_chunks_as_vibe_cuts_them() {
    let items: Vec<Value> = (0..40).map(|n| json!({"n": n, "text": "x".repeat(4000)})).collect();
    let chunks = generation::chunks(&items);
    assert!(chunks.len() >= 2, "{} chunks", chunks.len());
    for (digest, bytes) in &chunks {
        assert_eq!(&sha256_hex(&bytes[..bytes.len() - 1]), digest);
    }
    let back: Vec<Value> = chunks.iter().flat_map(|(_, b)| serde_json::from_slice::<Vec<Value>>(b).unwrap()).collect();
    assert_eq!(back, items);
}

fn prepare_with(
    written: &trajhost_codec_sdk::WrittenFiles,
    home: &Path,
    cwd: Option<&str>,
    choice: TargetChoice,
) -> Result<trajhost_codec_sdk::Plan, trajhost_codec_sdk::CodecError> {
    target::set_for_tests(choice);
    let options = WriteOptions { cwd: cwd.map(str::to_string), ..suite::options_for(Some(home)) };
    trajhost_codec_sdk::prepare_artifacts::<MistralVibe>(
        written.artifacts.clone(),
        &trajhost_codec_sdk::fs::Dir::native(home),
        options,
    )
}

#[test]
fn another_cwd_and_a_model_re_derive_the_digests() {
    let (read, written) = written();
    let home = tempfile::tempdir().unwrap();
    let choice = TargetChoice { model: Some("devstral".into()), ..TargetChoice::default() };
    let plan = prepare_with(&written, home.path(), Some("/srv/other place"), choice).unwrap();
    apply_files(&plan, &written, home.path());
    let installed: Vec<Artifact> =
        kit::files_of(home.path()).into_iter().map(|(path, bytes)| Artifact { path, bytes }).collect();
    generation::verify(&installed).unwrap();
    let runtime = installed.iter().find(|a| a.path.ends_with("runtime-state.json")).unwrap();
    let runtime: Value = serde_json::from_slice(&runtime.bytes).unwrap();
    assert_eq!(runtime["session_metadata"]["cwd"], "/srv/other place");
    assert_eq!(runtime["session_metadata"]["active_model"], "devstral");
    let back = kit::read::<MistralVibe>(home.path(), &locator(&plan.native_id));
    assert_eq!(back.meta().cwd.as_deref(), Some("/srv/other place"));
    assert_eq!(users(&back.records), users(&read.records));
    assert_eq!(tool_calls(&back.records), tool_calls(&read.records));
    assert!(plan.resume_command.as_deref().unwrap().ends_with(&format!("vibe --resume {}", plan.native_id)));
}

#[test]
fn a_provider_a_second_install_and_tampered_files_are_refused() {
    let (_, written) = written();
    let home = tempfile::tempdir().unwrap();
    let provider = TargetChoice { provider: Some("mistral".into()), ..TargetChoice::default() };
    let err = prepare_with(&written, home.path(), None, provider).unwrap_err();
    assert!(format!("{err:?}").contains("[[providers]]"), "{err:?}");
    let plan = prepare_with(&written, home.path(), None, TargetChoice::default()).unwrap();
    apply_files(&plan, &written, home.path());
    let err = prepare_with(&written, home.path(), None, TargetChoice::default()).unwrap_err();
    assert!(format!("{err:?}").contains("never overwritten"), "{err:?}");
    let mut tampered = written.clone();
    let chunk = tampered.artifacts.iter_mut().find(|a| a.path.contains("/chunks/")).unwrap();
    let at = kit::find(&chunk.bytes, b"PAPAYA-42").unwrap();
    chunk.bytes[at] = b'Q';
    let err = prepare_with(&tampered, tempfile::tempdir().unwrap().path(), None, TargetChoice::default()).unwrap_err();
    assert!(format!("{err:?}").contains("do not give its name"), "{err:?}");
}

#[test]
fn prepare_beside_the_clis_own_session_leaves_every_file_as_it_was() {
    let (_, written) = written();
    let home = kit::copy_of(&fixture("simple"));
    let before = kit::files_of(home.path());
    let plan = prepare_with(&written, home.path(), None, TargetChoice::default()).unwrap();
    apply_files(&plan, &written, home.path());
    kit::assert_files_kept(&before, &kit::files_of(home.path()));
    let found = kit::discover::<MistralVibe>(home.path());
    assert_eq!(found.sessions.len(), 2);
}

#[test]
fn info_names_the_store_and_no_version_source() {
    let info = MistralVibe::info();
    assert_eq!(info.harness, "mistral-vibe");
    assert!(info.native_version_source.contains("no CLI version"), "{}", info.native_version_source);
}
