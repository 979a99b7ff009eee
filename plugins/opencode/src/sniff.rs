//! `sniff`: is a loose file an OpenCode store or session document?
//!
//! - `opencode.db` (SQLite): the header, and OpenCode's `session`, `message`
//!   and `part` tables in the schema on the first pages (with the flavor's
//!   own tables, and none of a fork's: `crate::flavor`), or, where the
//!   schema lies beyond the head (Kilo's `kilo.db`, whose migrations rebuild
//!   tables), the store's file name;
//! - an `opencode export` / import document (JSON): `{"info": {"id": "ses_…"},
//!   "messages": [...]}` of a version the flavor owns.

use trajhost_codec_sdk::Sniffed;

const SQLITE_HEADER: &[u8] = b"SQLite format 3\0";

pub fn sniff(path: &str, head: &[u8]) -> Option<Sniffed> {
    if head.starts_with(SQLITE_HEADER) {
        let tables = ["session", "message", "part"];
        let has = |t: &str| {
            [format!("CREATE TABLE `{t}`"), format!("CREATE TABLE \"{t}\""), format!("CREATE TABLE {t} ")]
                .iter()
                .any(|pattern| memchr::memmem::find(head, pattern.as_bytes()).is_some())
        };
        let named = path.rsplit('/').next() == crate::flavor::DB.rsplit('/').next();
        let ours = (named || tables.iter().chain(crate::flavor::OWN_TABLES).all(|t| has(t)))
            && !crate::flavor::FOREIGN_TABLES.iter().any(|t| has(t));
        return ours.then_some(Sniffed { native_version: None, native_id: None });
    }
    let text = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])).ok()?;
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') || !trimmed.contains("\"info\"") || !trimmed.contains("\"messages\"") {
        return None;
    }
    let id = string_after(trimmed, "\"id\"").filter(|id| id.starts_with("ses_"))?;
    let version = string_after(trimmed, "\"version\"");
    crate::flavor::owns_version(version.as_deref()).then_some(Sniffed { native_version: version, native_id: Some(id) })
}

/// The string value of the first `"key": "value"` in `text`.
fn string_after(text: &str, key: &str) -> Option<String> {
    let rest = &text[text.find(key)? + key.len()..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}
