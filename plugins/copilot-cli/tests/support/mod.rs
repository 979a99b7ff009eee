//! The write tests' plumbing, shared by both Copilot CLI codecs
//! (`plugins/copilot-cli-flat` includes this file by path): write, prepare,
//! install, apply a plan of files, and the event chain every Copilot loader
//! requires. The including test file names its codec `Tested`.

// Each codec's tests use a part of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{CodecError, Diagnostic, Plan, WriteOptions, WrittenFiles};

use super::Tested;

pub const STATE: &str = ".copilot/session-state";

pub fn write_doc(doc: &str, options: WriteOptions) -> WrittenFiles {
    trajhost_codec_sdk::write_document::<Tested>(doc, options).unwrap()
}

pub fn prepare(written: &WrittenFiles, target: &Path, options: WriteOptions) -> Result<Plan, CodecError> {
    trajhost_codec_sdk::prepare_artifacts::<Tested>(written.artifacts.clone(), &Dir::native(target), options)
}

/// Installs written artifacts under a fresh home, returns it.
pub fn install(written: &WrittenFiles) -> tempfile::TempDir {
    trajhost_codec_testkit::install(written)
}

/// Each diagnostic's code and detail.
pub fn codes(diags: &[Diagnostic]) -> Vec<(String, String)> {
    diags.iter().map(|d| (d.code.clone(), d.detail.clone())).collect()
}

/// The lines of an event log, checked as every Copilot loader requires:
/// `session.start` first, UUID ids, each new and its `parentId` the one
/// before.
pub fn chained_events(bytes: &[u8]) -> Vec<Value> {
    let lines: Vec<Value> =
        std::str::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut previous: Option<String> = None;
    let mut ids = BTreeSet::new();
    for line in &lines {
        let id = line["id"].as_str().unwrap().to_string();
        assert!(trajhost_codec_sdk::paths::is_uuid(&id), "{line}");
        assert!(ids.insert(id.clone()), "duplicate id {id}");
        assert_eq!(line["parentId"].as_str().map(str::to_string), previous, "{line}");
        previous = Some(id);
    }
    assert_eq!(lines[0]["type"], "session.start");
    lines
}
