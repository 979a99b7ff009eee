//! `sessions.json`, the index of a sessions folder: `sessionKey →
//! SessionEntry` (`sessionId`, `updatedAt` in epoch ms, optional
//! `sessionFile`, and labels: `label`, `displayName`, `subject`). It holds no
//! conversation; discovery takes the titles and last-update times from it.

use std::collections::BTreeMap;

use serde_json::Value;
use trajhost_codec_sdk::fs::Dir;

/// Largest index read (OpenClaw caps it at 500 entries by default).
const MAX_INDEX_BYTES: u64 = 16 << 20;

/// What the index says about one session.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Entry {
    /// A name the user or the channel gave the session.
    pub title: Option<String>,
    /// `updatedAt` (epoch ms).
    pub updated_ms: Option<i64>,
}

/// The index of one folder, by session id and by transcript file name.
#[derive(Debug, Default)]
pub struct Index {
    by_id: BTreeMap<String, Entry>,
    by_file: BTreeMap<String, String>,
}

/// Why an index could not be used.
pub enum Problem {
    Unreadable(trajhost_codec_sdk::fs::FsError),
    Malformed(&'static str),
}

impl Index {
    /// The index at `path`; an empty one when there is none.
    pub fn load(home: &Dir, path: &str) -> Result<Index, Problem> {
        let meta = match home.stat(path) {
            Ok(meta) => meta,
            Err(trajhost_codec_sdk::fs::FsError::NotFound(_)) => return Ok(Index::default()),
            Err(e) => return Err(Problem::Unreadable(e)),
        };
        if meta.size > MAX_INDEX_BYTES {
            return Err(Problem::Malformed("larger than 16 MiB"));
        }
        let bytes = home
            .open(path)
            .and_then(|f| f.read_at(0, meta.size.min(u64::from(u32::MAX)) as u32))
            .map_err(Problem::Unreadable)?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|_| Problem::Malformed("not JSON"))?;
        let Value::Object(entries) = value else { return Err(Problem::Malformed("not a JSON object")) };
        let mut index = Index::default();
        for entry in entries.values() {
            let Some(id) = entry.get("sessionId").and_then(Value::as_str).filter(|s| !s.is_empty()) else { continue };
            let text = |k: &str| entry.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
            let found = Entry {
                title: text("label").or_else(|| text("displayName")).or_else(|| text("subject")).map(str::to_string),
                updated_ms: entry.get("updatedAt").and_then(Value::as_i64),
            };
            if let Some(file) = text("sessionFile") {
                let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
                index.by_file.insert(name.to_string(), id.to_string());
            }
            // Several keys may point at one session: keep the latest.
            let slot = index.by_id.entry(id.to_string()).or_default();
            if slot.updated_ms.is_none() || found.updated_ms > slot.updated_ms {
                *slot = found;
            }
        }
        Ok(index)
    }

    /// The entry of session `id`.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id)
    }

    /// The session id the index gives transcript file `name`.
    pub fn id_of_file(&self, name: &str) -> Option<&str> {
        self.by_file.get(name).map(String::as_str)
    }
}
