//! The AgentKv container: `blobs (id TEXT PRIMARY KEY, data BLOB)` with
//! `id = lowercase hex(sha256(data))`, and `meta` whose row `'0'` holds the
//! hex of the session's metadata JSON. Two sources hold it: the CLI's
//! `store.db` (read through the host's read-only SQLite) and this codec's
//! export file (`store.export.jsonl`, see [`crate::export`]). The graph
//! walker reads both through [`BlobSource`].

use std::collections::BTreeMap;

use serde_json::Value as Json;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::errors::sqlite_error;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::hash::{sha256, to_hex};
use trajhost_codec_sdk::sqlite::{Database, Value};

/// The keys of `meta['0']` this codec uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentMeta {
    pub agent_id: Option<String>,
    /// 64 lowercase hex digits, or empty (no conversation).
    pub latest_root_blob_id: String,
    pub name: Option<String>,
    pub created_at_ms: Option<i64>,
    pub last_used_model: Option<String>,
    /// `subagentInfo` present: a subagent's child store (archive-only).
    pub subagent: bool,
    /// The whole object, as stored.
    pub raw: Json,
}

impl AgentMeta {
    /// Parses `meta['0']`: lowercase hex of UTF-8 JSON (plain JSON tolerated).
    pub fn parse(value: &str, file: &str) -> Result<AgentMeta, CodecError> {
        let trimmed = value.trim();
        let text = if trimmed.starts_with('{') {
            trimmed.to_string()
        } else {
            let bytes = from_hex(trimmed)
                .ok_or_else(|| CodecError::Malformed(format!("{file}: meta '0' is neither hex nor JSON")))?;
            String::from_utf8(bytes)
                .map_err(|_| CodecError::Malformed(format!("{file}: meta '0' is not UTF-8 after hex decoding")))?
        };
        let raw: Json = serde_json::from_str(&text)
            .map_err(|e| CodecError::Malformed(format!("{file}: meta '0' is not JSON: {e}")))?;
        AgentMeta::from_json(raw, file)
    }

    pub fn from_json(raw: Json, file: &str) -> Result<AgentMeta, CodecError> {
        let Some(obj) = raw.as_object() else {
            return Err(CodecError::Malformed(format!("{file}: meta '0' is not a JSON object")));
        };
        let s = |k: &str| obj.get(k).and_then(Json::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        // createdAt is epoch ms; one reader saw a string form in other versions.
        let created_at_ms = match obj.get("createdAt") {
            Some(Json::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
            Some(Json::String(t)) => t.parse::<i64>().ok().or_else(|| trajhost_codec_sdk::time::parse_rfc3339(t)),
            _ => None,
        };
        Ok(AgentMeta {
            agent_id: s("agentId"),
            latest_root_blob_id: s("latestRootBlobId").unwrap_or_default().to_ascii_lowercase(),
            name: s("name"),
            created_at_ms,
            last_used_model: s("lastUsedModel"),
            subagent: obj.get("subagentInfo").is_some_and(|v| !v.is_null()),
            raw,
        })
    }

    /// The root's 32-byte id, when `latestRootBlobId` is one.
    pub fn root_id(&self) -> Option<[u8; 32]> {
        let bytes = from_hex(&self.latest_root_blob_id)?;
        bytes.try_into().ok()
    }
}

/// Where blobs come from.
pub trait BlobSource {
    /// The blob stored under `id` (64 lowercase hex), unchecked, with where
    /// it lies (rowid and 0 in a database; byte offset and length of its line
    /// in an export file).
    fn get(&self, id: &str) -> Result<Option<Blob>, CodecError>;
    /// The file named in errors.
    fn file(&self) -> &str;

    /// The blob `id`, checked: it must exist and hash to its id.
    fn blob(&self, id: &[u8], what: &str) -> Result<Blob, CodecError> {
        let hex = to_hex(id);
        if id.len() != 32 {
            return Err(CodecError::Malformed(format!(
                "{}: {what} names a blob id of {} bytes ({hex}), not 32",
                self.file(),
                id.len()
            )));
        }
        let Some(blob) = self.get(&hex)? else {
            return Err(CodecError::Malformed(format!("{}: blob {hex} ({what}) is missing", self.file())));
        };
        if sha256(&blob.data) != id {
            return Err(CodecError::Malformed(format!(
                "{}: blob {hex} ({what}) does not hash to its id (sha256 {})",
                self.file(),
                to_hex(&sha256(&blob.data))
            )));
        }
        Ok(blob)
    }
}

/// A blob's bytes and location.
#[derive(Debug, Clone, PartialEq)]
pub struct Blob {
    pub data: Vec<u8>,
    pub offset: u64,
    pub len: u64,
}

/// A CLI `store.db`.
pub struct SqliteStore {
    db: Database,
    file: String,
}

impl SqliteStore {
    pub fn open(home: &Dir, path: &str) -> Result<SqliteStore, CodecError> {
        let db = Database::open(home, path).map_err(|e| sqlite_error(path, e))?;
        Ok(SqliteStore { db, file: path.to_string() })
    }

    /// `meta['0']`, `None` when the row is absent.
    pub fn meta(&self) -> Result<Option<AgentMeta>, CodecError> {
        let rows = self
            .db
            .query("SELECT value FROM meta WHERE key = '0'", &[])
            .and_then(|r| r.collect_all())
            .map_err(|e| sqlite_error(&self.file, e))?;
        match rows.first().and_then(|r| r.first()) {
            None => Ok(None),
            Some(Value::Text(t)) => AgentMeta::parse(t, &self.file).map(Some),
            Some(Value::Blob(b)) => AgentMeta::parse(&String::from_utf8_lossy(b), &self.file).map(Some),
            Some(_) => Err(CodecError::Malformed(format!("{}: meta '0' is not text", self.file))),
        }
    }
}

impl BlobSource for SqliteStore {
    fn get(&self, id: &str) -> Result<Option<Blob>, CodecError> {
        // The CLI stores lowercase hex; SQLite's hex() would give uppercase.
        let rows = self
            .db
            .query(
                "SELECT rowid, data FROM blobs WHERE id = ? OR id = ? LIMIT 1",
                &[Value::Text(id.to_string()), Value::Text(id.to_ascii_uppercase())],
            )
            .and_then(|r| r.collect_all())
            .map_err(|e| sqlite_error(&self.file, e))?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let mut row = row.into_iter();
        let offset = match row.next() {
            Some(Value::Integer(i)) => i.max(0) as u64,
            _ => 0,
        };
        let data = match row.next() {
            Some(Value::Blob(b)) => b,
            Some(Value::Text(t)) => t.into_bytes(),
            Some(Value::Null) => Vec::new(),
            _ => return Err(CodecError::Malformed(format!("{}: blob {id} is not a BLOB", self.file))),
        };
        Ok(Some(Blob { data, offset, len: 0 }))
    }

    fn file(&self) -> &str {
        &self.file
    }
}

/// Blobs held in memory (the export file, and the writer's own check).
pub struct MemoryStore {
    pub blobs: BTreeMap<String, Blob>,
    pub file: String,
}

impl BlobSource for MemoryStore {
    fn get(&self, id: &str) -> Result<Option<Blob>, CodecError> {
        Ok(self.blobs.get(id).cloned())
    }

    fn file(&self) -> &str {
        &self.file
    }
}

/// Lowercase or uppercase hex → bytes.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    text.as_bytes().chunks(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}

/// Standard base64 with padding (the export file's blob bytes).
pub fn base64_encode(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 { T[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if chunk.len() > 2 { T[n as usize & 63] as char } else { '=' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_hex_and_plain() {
        let json = r#"{"agentId":"a","latestRootBlobId":"deadbeef","name":"New Agent","createdAt":5}"#;
        let hex = to_hex(json.as_bytes());
        let m = AgentMeta::parse(&hex, "f").unwrap();
        assert_eq!(m.agent_id.as_deref(), Some("a"));
        assert_eq!(m.created_at_ms, Some(5));
        assert_eq!(m.root_id(), None);
        assert_eq!(AgentMeta::parse(json, "f").unwrap().latest_root_blob_id, "deadbeef");
        assert!(AgentMeta::parse("zz", "f").is_err());
    }

    #[test]
    fn base64_round_trip() {
        for s in ["", "a", "ab", "abc", "abcd", "\u{0}\u{ff}x"] {
            let e = base64_encode(s.as_bytes());
            assert_eq!(trajhost_codec_sdk::text::base64_decode(&e).unwrap(), s.as_bytes());
        }
        assert_eq!(base64_encode(b"abcd"), "YWJjZA==");
    }
}
