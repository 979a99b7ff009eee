//! Test helpers shared by the Pi and Oh My Pi codec tests (native builds
//! only): read a session through a codec, pick records by kind, check the
//! written chain.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_sdk::canonical::{Assistant, Body, Record};
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, Diagnostic, ReadOptions};

/// What a read produced.
pub struct Read {
    pub records: Vec<Record>,
    pub diagnostics: Vec<Diagnostic>,
    pub batches: usize,
}

impl Read {
    pub fn diag(&self, code: &str) -> Option<&Diagnostic> {
        self.diagnostics.iter().find(|d| d.code == code)
    }
}

pub fn options(records: u32, bytes: u32) -> ReadOptions {
    ReadOptions { max_batch_records: records, max_batch_bytes: bytes }
}

/// Reads `locator` under `home` with `C`, panicking on errors.
pub fn read_with<C: Codec>(home: &Path, locator: &str, options: ReadOptions) -> Read {
    let mut read = Read { records: Vec::new(), diagnostics: Vec::new(), batches: 0 };
    trajhost_codec_sdk::read_all::<C>(Dir::native(home), locator, options, |batch| {
        read.batches += 1;
        for line in batch.records.lines() {
            let record: Record =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("bad record line {line}: {e}"));
            read.records.push(record);
        }
        read.diagnostics.extend(batch.diagnostics.iter().cloned());
    })
    .unwrap_or_else(|e| panic!("read {locator}: {e:?}"));
    read
}

pub fn read<C: Codec>(home: &Path, locator: &str) -> Read {
    read_with::<C>(home, locator, options(1000, 1 << 20))
}

pub fn users(records: &[Record]) -> Vec<&str> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::User { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub fn assistants(records: &[Record]) -> Vec<&Assistant> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Assistant(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// (call id, name, arguments)
pub fn tool_calls(records: &[Record]) -> Vec<(&str, &str, &Value)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), name.as_str(), arguments)),
            _ => None,
        })
        .collect()
}

/// (call id, content, ok)
pub fn tool_results(records: &[Record]) -> Vec<(&str, &str, Option<bool>)> {
    records
        .iter()
        .filter_map(|r| match &r.body {
            Body::ToolResult { call_id, content, ok } => Some((call_id.as_str(), content.as_str(), *ok)),
            _ => None,
        })
        .collect()
}

pub fn kinds(records: &[Record]) -> Vec<&'static str> {
    records.iter().map(|r| r.body.kind()).collect()
}

/// The lines of a JSONL file as JSON.
pub fn raw_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The conversational content of a session, for round-trip comparisons:
/// user texts, tool calls (name, arguments), tool results (content, ok),
/// assistant texts.
#[derive(Debug, PartialEq)]
pub struct Conversation {
    pub users: Vec<String>,
    pub calls: Vec<(String, Value)>,
    pub results: Vec<String>,
    pub assistant_texts: Vec<String>,
}

pub fn conversation(records: &[Record]) -> Conversation {
    Conversation {
        users: users(records).into_iter().map(str::to_string).collect(),
        calls: tool_calls(records).into_iter().map(|(_, n, a)| (n.to_string(), a.clone())).collect(),
        results: tool_results(records).into_iter().map(|(_, c, _)| c.to_string()).collect(),
        assistant_texts: assistants(records).into_iter().map(|a| a.text.clone()).filter(|t| !t.is_empty()).collect(),
    }
}

/// Checks a written file: the header (after an optional title slot), one
/// `parentId` chain, unique 8-hex ids, complete assistant usage. Returns the
/// header.
pub fn check_chain(bytes: &[u8]) -> Value {
    let text = std::str::from_utf8(bytes).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    if lines[0]["type"] == "title" {
        assert_eq!(text.split_inclusive('\n').next().unwrap().len(), 256, "title slot is 256 bytes");
        lines.remove(0);
    }
    let header = lines.remove(0);
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    let mut parent = Value::Null;
    let mut ids = std::collections::BTreeSet::new();
    for line in &lines {
        let id = line["id"].as_str().unwrap();
        assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
        assert_eq!(line["parentId"], parent, "{line}");
        parent = Value::from(id);
        if line["message"]["role"] == "assistant" {
            let usage = &line["message"]["usage"];
            for key in ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] {
                assert!(usage[key].is_u64(), "usage.{key} in {line}");
            }
            for key in ["input", "output", "cacheRead", "cacheWrite", "total"] {
                assert!(usage["cost"][key].is_number(), "usage.cost.{key} in {line}");
            }
            assert!(line["message"]["content"].is_array());
        }
    }
    header
}
