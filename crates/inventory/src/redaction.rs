//! The one redaction stage: canonical records pass through it as they stream
//! out of a codec, before any sink that lets content leave the user's own
//! session files (export, view, search output, the archive) sees them.
//! Codecs never redact; detection is `trajhost-redact` (gitleaks' rules,
//! docs/redaction.md).
//!
//! Where it is on by default is decided here, once: [`Sink::on_by_default`].

use std::borrow::Cow;

pub use trajhost_redact::{Counts, RedactConfig, RedactError, Redactor};

/// A place content goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    /// `export` in every format.
    Export,
    /// `view`'s HTML page.
    View,
    /// `search` output (snippets).
    Search,
    /// The embedded archive's records and full-text index.
    EmbeddedArchive,
    /// The shared PostgreSQL archive: records, index and evidence.
    SharedArchive,
    /// `convert`, `prepare`, `continue`: the user's own handoff.
    Handoff,
    /// `read`: printed for the user (or a pipe).
    Read,
}

impl Sink {
    /// Whether the sink redacts unless told otherwise (`--no-redact`, or
    /// `--redact` where it is off).
    pub fn on_by_default(self) -> bool {
        match self {
            Sink::Export | Sink::View | Sink::Search | Sink::EmbeddedArchive | Sink::SharedArchive => true,
            Sink::Handoff | Sink::Read => false,
        }
    }
}

/// The rules of a data directory's `[redact]` table: the built-in ruleset,
/// plus the user's rules and allowlist when there are any.
pub fn redactor(config: &RedactConfig) -> Result<Redactor, RedactError> {
    if config.rules.is_empty() && config.allow.is_empty() {
        Ok(Redactor::builtin().clone())
    } else {
        Redactor::with_config(config)
    }
}

/// A batch of canonical record lines with every line redacted; the same
/// string when nothing matched.
pub fn redact_lines(redactor: &Redactor, records: String, counts: &mut Counts) -> String {
    let mut out: Option<String> = None;
    let mut start = 0;
    for line in records.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        match redactor.redact_line(body, counts) {
            Cow::Owned(masked) => {
                let out = out.get_or_insert_with(|| {
                    let mut s = String::with_capacity(records.len());
                    s.push_str(&records[..start]);
                    s
                });
                out.push_str(&masked);
                out.push_str(&line[body.len()..]);
            }
            Cow::Borrowed(_) => {
                if let Some(out) = &mut out {
                    out.push_str(line);
                }
            }
        }
        start += line.len();
    }
    out.unwrap_or(records)
}

/// Batches masked on a thread of their own, between the codec's read-ahead
/// thread and the caller: masking then costs about the slowest of reading,
/// masking and the caller's own work, not their sum. At most one batch waits
/// on each side.
pub struct Redacting {
    batches: std::sync::mpsc::Receiver<trajhost_runtime::error::Result<trajhost_runtime::Batch>>,
    worker: Option<std::thread::JoinHandle<(trajhost_runtime::Prefetched, Counts)>>,
}

impl Redacting {
    pub fn spawn(mut source: trajhost_runtime::Prefetched, redactor: Redactor) -> Redacting {
        let (sender, batches) = std::sync::mpsc::sync_channel(0);
        let worker = std::thread::Builder::new()
            .name("redact".into())
            .spawn(move || {
                let mut counts = Counts::default();
                loop {
                    let next = match source.next_batch() {
                        Ok(None) => break,
                        Ok(Some(mut batch)) => {
                            batch.records = redact_lines(&redactor, batch.records, &mut counts);
                            Ok(batch)
                        }
                        Err(error) => Err(error),
                    };
                    let failed = next.is_err();
                    if sender.send(next).is_err() || failed {
                        break;
                    }
                }
                (source, counts)
            })
            .expect("spawning a thread");
        Redacting { batches, worker: Some(worker) }
    }

    /// The next masked batch, or `None` when the session is exhausted.
    pub fn next_batch(&mut self) -> trajhost_runtime::error::Result<Option<trajhost_runtime::Batch>> {
        match self.batches.recv() {
            Ok(next) => next.map(Some),
            Err(_) => Ok(None),
        }
    }

    /// Stops, and returns the codec's stream (for its log) and what was masked.
    pub fn finish(mut self) -> (Option<trajhost_runtime::Prefetched>, Counts) {
        drop(std::mem::replace(&mut self.batches, std::sync::mpsc::sync_channel(0).1));
        match self.worker.take().map(std::thread::JoinHandle::join) {
            Some(Ok((source, counts))) => (Some(source), counts),
            _ => (None, Counts::default()),
        }
    }
}

/// Raw evidence bytes (a native file's bytes, as kept by the archive) with
/// each secret overwritten by a mask of the same length, so that offsets
/// into the file (`src` spans, appended generations) stay true. JSON stays
/// valid: quotes, backslash escapes and line breaks inside a match are kept.
pub fn redact_evidence(redactor: &Redactor, bytes: &mut [u8], counts: &mut Counts) {
    let mut at = 0;
    let mut spans = Vec::new();
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        for (range, _rule) in redactor.find(valid, counts) {
            spans.push(at + range.start..at + range.end);
        }
        at += valid.len() + chunk.invalid().len();
    }
    for span in spans {
        mask_same_length(&mut bytes[span]);
    }
}

fn mask_same_length(bytes: &mut [u8]) {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' | b'\n' | b'\r' => i += 1,
            _ => {
                bytes[i] = b'*';
                i += 1;
            }
        }
    }
}

/// A search snippet (a piece of `text`, with match markers and `…` at cut
/// ends) with every secret of `text` that it shows masked, also a secret it
/// shows only part of, or without the context its rule needs. Unchanged when
/// it shows none.
pub fn redact_snippet(
    redactor: &Redactor,
    snippet: &str,
    text: &str,
    markers: [&str; 2],
    counts: &mut Counts,
) -> String {
    let plain = snippet.replace(markers[0], "").replace(markers[1], "");
    let core = plain.trim_start_matches('…').trim_end_matches('…');
    let mut found = Counts::default();
    let (Some(at), false) = (text.find(core), core.is_empty()) else {
        // Not a verbatim piece of the text: mask what the snippet itself shows.
        return match redactor.redact_text(&plain, counts) {
            Cow::Owned(masked) => masked,
            Cow::Borrowed(_) => snippet.to_string(),
        };
    };
    let window = at..at + core.len();
    let overlapping: Vec<_> = redactor
        .find(text, &mut found)
        .into_iter()
        .filter(|(range, _)| range.start < window.end && range.end > window.start)
        .collect();
    if overlapping.is_empty() {
        return snippet.to_string();
    }
    let mut out = String::with_capacity(plain.len());
    out.push_str(&plain[..plain.len() - plain.trim_start_matches('…').len()]);
    let mut cursor = window.start;
    for (range, rule) in &overlapping {
        let start = range.start.max(window.start);
        out.push_str(&text[cursor..start]);
        out.push_str(&format!("[REDACTED:{rule}]"));
        counts.add(rule, 1);
        cursor = range.end.min(window.end);
    }
    out.push_str(&text[cursor..window.end]);
    out.push_str(&plain[plain.trim_end_matches('…').len()..]);
    out
}

/// One line on stderr saying what was masked (`redacted 3 secrets: aws-access-token ×2, …`), or `None`.
pub fn summary(counts: &Counts) -> Option<String> {
    if counts.is_empty() {
        return None;
    }
    let rules: Vec<String> = counts.0.iter().map(|(rule, n)| format!("{rule} ×{n}")).collect();
    let total = counts.total();
    Some(format!("redacted {total} secret{}: {}", if total == 1 { "" } else { "s" }, rules.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_order_and_breaks_and_only_secrets_change() {
        let key = trajhost_redact::planted_secrets().into_iter().find(|(rule, _)| rule.contains("github")).unwrap().1;
        let lines = format!(
            "{{\"id\":\"a\",\"kind\":\"user\",\"text\":\"hello\"}}\n{{\"id\":\"b\",\"kind\":\"user\",\"text\":\"token {key}\"}}\n{{\"id\":\"c\",\"kind\":\"user\",\"text\":\"bye\"}}\n"
        );
        let mut counts = Counts::default();
        let out = redact_lines(Redactor::builtin(), lines.clone(), &mut counts);
        assert!(!out.contains(&key), "{out}");
        assert_eq!(out.lines().count(), 3);
        assert_eq!(out.lines().next(), lines.lines().next());
        assert_eq!(out.lines().nth(2), lines.lines().nth(2));
        assert!(out.ends_with('\n'));
        assert_eq!(counts.total(), 1, "{counts:?}");
        // Nothing to mask: the same string back.
        let clean = "{\"id\":\"a\",\"kind\":\"user\",\"text\":\"hello\"}\n".to_string();
        assert_eq!(redact_lines(Redactor::builtin(), clean.clone(), &mut counts), clean);
    }

    #[test]
    fn evidence_keeps_its_length_and_stays_json() {
        let key = trajhost_redact::planted_secrets().into_iter().find(|(rule, _)| rule.contains("aws")).unwrap().1;
        let line = format!("{{\"type\":\"user\",\"text\":\"my key is {key} \\\"ok\\\"\\n\"}}\n");
        let mut bytes = line.clone().into_bytes();
        let mut counts = Counts::default();
        redact_evidence(Redactor::builtin(), &mut bytes, &mut counts);
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.len(), line.len());
        assert!(!text.contains(&key), "{text}");
        serde_json::from_str::<serde_json::Value>(text.trim()).unwrap();
        assert!(counts.total() >= 1);
    }
}
