//! Micro benchmark (no criterion, no assertions): MB/s of `redact_text` and `redact_line` on
//! ~48 MB of canonical records in three mixes, next to parsing the same lines into `Record`
//! (a floor for what reading a session costs).
//!
//! `cargo run --release -p trajhost-redact --example bench [-- MB]`
//!
//! - no-candidate: prose and code whose text holds no rule keyword (the single-scan path);
//! - realistic: this workspace's own sources and docs (code and prose that say `key`, `token`,
//!   `password`, `secret` all the time) cut into messages, no secrets;
//! - candidate-heavy: the same with a planted secret every ~4 KB.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;
use trajhost_canonical::{Body, Record};
use trajhost_redact::{Counts, Redactor, planted::planted};

fn main() {
    let mb: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(48);
    let target = mb << 20;
    let t = Instant::now();
    let r = Redactor::builtin();
    println!("ruleset {} compiled in {:.1} ms", r.ruleset_version(), t.elapsed().as_secs_f64() * 1e3);

    let source = workspace_text();
    let messages = cut(&source);
    println!("corpus: {} KB of workspace text in {} messages", source.len() >> 10, messages.len());

    let quiet = quiet_messages(r, &messages);
    let secrets: Vec<String> = planted().into_iter().map(|p| p.text).collect();
    let mut heavy = Vec::new();
    let mut since = 0;
    for (i, m) in messages.iter().enumerate() {
        since += m.len();
        if since > 4096 {
            heavy.push(format!("{m}\n{}\n", secrets[i % secrets.len()]));
            since = 0;
        } else {
            heavy.push(m.clone());
        }
    }

    println!(
        "{:<16} {:>12} {:>12} {:>14} {:>10} {:>8}",
        "mix", "redact_text", "redact_line", "parse Record", "line/parse", "masked"
    );
    for (name, msgs) in [("no-candidate", &quiet), ("realistic", &messages), ("candidate-heavy", &heavy)] {
        let lines = lines(msgs, target);
        let texts: Vec<String> = lines.iter().map(|l| text_of(l)).collect();
        let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        let text_bytes: usize = texts.iter().map(String::len).sum();

        let (t_parse, _) = best(|| {
            let mut n = 0usize;
            for l in &lines {
                let rec: Record = serde_json::from_str(l).unwrap();
                n += rec.id.len();
            }
            n
        });
        let (t_text, _) = best(|| {
            let mut counts = Counts::default();
            for t in &texts {
                std::hint::black_box(r.redact_text(t, &mut counts));
            }
            counts.total()
        });
        let (t_line, masked) = best(|| {
            let mut counts = Counts::default();
            for l in &lines {
                std::hint::black_box(r.redact_line(l, &mut counts));
            }
            counts.total()
        });
        let with_hits = lines.iter().filter(|l| r.candidate_rules(l) > 0).count();
        let mbps = |b: usize, s: f64| b as f64 / s / 1e6;
        println!("  {name}: {} lines, {} with keyword hits on the raw line", lines.len(), with_hits);
        println!(
            "{:<16} {:>7.0} MB/s {:>7.0} MB/s {:>9.0} MB/s {:>9.2}x {:>8}",
            name,
            mbps(text_bytes, t_text),
            mbps(bytes, t_line),
            mbps(bytes, t_parse),
            t_line / t_parse,
            masked
        );
    }
    println!("(MB/s over {mb} MB of JSON lines; redact_text over their text fields; best of 3)");
}

/// Best time of three runs, with the last result.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..3 {
        let t = Instant::now();
        let v = std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.expect("ran"))
}

/// The text of a line's redacted field.
fn text_of(line: &str) -> String {
    let rec: Record = serde_json::from_str(line).unwrap();
    match rec.body {
        Body::Assistant(a) => a.text,
        Body::ToolResult { content, .. } => content,
        Body::ToolCall { arguments, .. } => arguments["command"].as_str().unwrap_or_default().to_string(),
        Body::User { text, .. } => text,
        _ => String::new(),
    }
}

/// Canonical record lines cycling through `messages` until `target` bytes: assistant text,
/// tool calls, tool results, user messages, the way a Claude Code session alternates them.
fn lines(messages: &[String], target: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut size = 0;
    let mut i = 0;
    while size < target {
        let m = &messages[i % messages.len()];
        let call_id = format!("toolu_01{:020}", i);
        let body = match i % 4 {
            0 => Body::Assistant(trajhost_canonical::Assistant {
                text: m.clone(),
                model: Some("claude-opus-4-5".into()),
                ..Default::default()
            }),
            1 => Body::ToolCall {
                call_id: call_id.clone(),
                name: "Bash".into(),
                arguments: json!({"command": m, "description": "run it"}),
            },
            2 => Body::ToolResult { call_id, content: m.clone(), ok: Some(true) },
            _ => Body::User { text: m.clone(), attachments: vec![] },
        };
        let rec = Record {
            id: format!("{:08x}-0000-4000-8000-{:012x}", i, i),
            body,
            parent: None,
            ts: Some("2026-01-02T03:04:05.678Z".into()),
            agent: None,
            src: None,
        };
        let line = serde_json::to_string(&rec).unwrap();
        size += line.len() + 1;
        out.push(line);
        i += 1;
    }
    out
}

/// Messages cut at blank lines, 200 B to 8 KB each.
fn cut(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for para in text.split("\n\n") {
        cur.push_str(para);
        cur.push_str("\n\n");
        if cur.len() > 200 && (cur.len() > 8192 || out.len() % 3 == 0 || cur.len() > 2048) {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The same words, without any that holds a keyword, joined so that no keyword forms across
/// words; lines that still select a rule are dropped.
fn quiet_messages(r: &Redactor, messages: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for m in messages {
        let kept: Vec<&str> = m
            .split(['\n', ' '])
            .filter(|w| !w.is_empty() && r.candidate_rules(w) == 0)
            .map(|w| w.trim_end_matches(['.', 's']))
            .filter(|w| !w.is_empty())
            .collect();
        let text: String =
            kept.chunks(12).map(|c| c.join(" ")).filter(|l| r.candidate_rules(l) == 0).collect::<Vec<_>>().join("\n");
        if !text.is_empty() && r.candidate_rules(&text) == 0 {
            out.push(text);
        }
    }
    out
}

/// This workspace's sources and docs (not this crate's), or a small fallback.
fn workspace_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["host/src", "export/src", "sdk", "plugins", "docs", "bench/src", "oci/src", "unpack/src"] {
        walk(&root.join(dir), &mut files);
    }
    files.sort();
    let mut text = String::new();
    for f in files {
        if let Ok(t) = std::fs::read_to_string(&f) {
            text.push_str(&t);
            text.push_str("\n\n");
        }
    }
    if text.len() < 1 << 20 {
        text = "The archive stores each session's records; the key of a record is its id. \
                A token budget limits the reply. Set the password with the secret manager.\n\n"
            .repeat(20_000);
    }
    text
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if !p.ends_with("target") {
                walk(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
            out.push(p);
        }
    }
}
