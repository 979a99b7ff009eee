//! One chat directory: `store.db` (or this codec's `store.export.jsonl`)
//! with `meta.json` beside it, and the facts `discover` and `read` share:
//! native id, cwd, title, times, the root and why it is archive-only.

use serde_json::Value as Json;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::fs::{Dir, FsError};

use crate::conversation::{self, Root};
use crate::decode::{Ctx, Msg};
use crate::export;
use crate::messages::{self, Item};
use crate::store::{AgentMeta, Blob, BlobSource, SqliteStore};

/// `<cfg>/chats/<md5(cwd)>/<id>/` and `<cfg>/acp-sessions/<id>/`.
pub const CHATS: &str = ".cursor/chats";
pub const ACP: &str = ".cursor/acp-sessions";
pub const STORE_DB: &str = "store.db";
pub const META_JSON: &str = "meta.json";

/// `meta.json` beside a store.
#[derive(Debug, Clone, Default)]
pub struct MetaJson {
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub created_at_ms: Option<i64>,
    pub updated_at_ms: Option<i64>,
}

impl MetaJson {
    pub fn read(home: &Dir, path: &str) -> Result<Option<MetaJson>, CodecError> {
        let bytes = match home.read_to_end(path, 1 << 20) {
            Ok(b) => b,
            Err(FsError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(trajhost_codec_sdk::errors::fs_error(path, e)),
        };
        let v: Json =
            serde_json::from_slice(&bytes).map_err(|e| CodecError::Malformed(format!("{path}: not JSON ({e})")))?;
        let s = |k: &str| v.get(k).and_then(Json::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        Ok(Some(MetaJson {
            title: s("title"),
            cwd: s("cwd"),
            created_at_ms: v.get("createdAtMs").and_then(Json::as_i64),
            updated_at_ms: v.get("updatedAtMs").and_then(Json::as_i64),
        }))
    }
}

/// An opened chat.
pub struct Chat {
    pub locator: String,
    pub native_id: String,
    pub meta: AgentMeta,
    pub meta_json: Option<MetaJson>,
    pub source: Box<dyn BlobSource>,
    /// The root, when `latestRootBlobId` names a blob that exists.
    pub root: Option<(Root, Blob, String)>,
    /// Why there is no root (`latestRootBlobId` empty or unresolvable).
    pub no_root: Option<String>,
    pub cwd: Option<String>,
}

/// The directory of a locator.
pub fn dir_of(locator: &str) -> &str {
    locator.rsplit_once('/').map_or("", |(d, _)| d)
}

fn dir_name(locator: &str) -> &str {
    let dir = dir_of(locator);
    dir.rsplit('/').next().unwrap_or(dir)
}

impl Chat {
    pub fn open(home: &Dir, locator: &str) -> Result<Chat, CodecError> {
        let (source, meta): (Box<dyn BlobSource>, AgentMeta) = if locator.ends_with(export::FILE_NAME) {
            let bytes =
                home.read_to_end(locator, u64::MAX).map_err(|e| trajhost_codec_sdk::errors::fs_error(locator, e))?;
            let (store, meta) = export::parse(&bytes, locator)?;
            (Box::new(store), meta)
        } else {
            let store = SqliteStore::open(home, locator)?;
            let meta = store.meta()?.unwrap_or_else(|| AgentMeta { raw: Json::Null, ..AgentMeta::default() });
            (Box::new(store), meta)
        };
        let dir = dir_of(locator);
        let meta_json = MetaJson::read(home, &trajhost_codec_sdk::paths::join(dir, META_JSON))?;
        let mut chat = Chat {
            locator: locator.to_string(),
            // The CLI resumes by directory name; the store defaults agentId to it.
            native_id: dir_name(locator).to_string(),
            meta,
            meta_json,
            source,
            root: None,
            no_root: None,
            cwd: None,
        };
        match chat.meta.root_id() {
            None if chat.meta.latest_root_blob_id.is_empty() => {
                chat.no_root = Some("meta '0' latestRootBlobId is empty".into())
            }
            None => chat.no_root = Some("meta '0' latestRootBlobId is not a 32-byte hex id".into()),
            Some(id) => {
                let hex = chat.meta.latest_root_blob_id.clone();
                match chat.source.get(&hex)? {
                    None => chat.no_root = Some("meta '0' latestRootBlobId names no stored blob".into()),
                    Some(_) => {
                        let blob = chat.source.blob(&id, conversation::ROOT)?;
                        let m = Msg::new(Ctx { blob: &hex, file: locator }, conversation::ROOT);
                        let root = conversation::decode_root(m, &blob.data)?;
                        chat.root = Some((root, blob, hex));
                    }
                }
            }
        }
        chat.cwd = chat.find_cwd()?;
        Ok(chat)
    }

    /// meta.json `cwd`, else root field 9, else `Workspace Path:` in the first
    /// field-1 messages.
    fn find_cwd(&self) -> Result<Option<String>, CodecError> {
        if let Some(c) = self.meta_json.as_ref().and_then(|m| m.cwd.clone()) {
            return Ok(Some(c));
        }
        let Some((root, _, _)) = &self.root else { return Ok(None) };
        if let Some(p) = root.workspace_uris.iter().find_map(|u| conversation::uri_path(u)) {
            return Ok(Some(p));
        }
        for id in root.messages.iter().take(4) {
            let blob = self.source.blob(id, "JSON message")?;
            let hex = trajhost_codec_sdk::hash::to_hex(id);
            for item in messages::parse_message(&blob.data, &self.locator, &hex)? {
                if let Item::Context(c) = item
                    && let Some(p) = messages::workspace_path(&c)
                {
                    return Ok(Some(p));
                }
            }
        }
        Ok(None)
    }

    /// Why the chat is archive-only, if it is.
    pub fn not_portable(&self) -> Vec<String> {
        let mut causes: Vec<String> =
            self.root.iter().flat_map(|(r, _, _)| r.not_portable.iter().map(|c| c.to_string())).collect();
        if self.meta.subagent {
            causes.push("subagent (meta '0' subagentInfo)".into());
        }
        causes
    }

    pub fn title(&self) -> Option<String> {
        self.meta_json.as_ref().and_then(|m| m.title.clone()).or_else(|| self.meta.name.clone())
    }

    pub fn created_at_ms(&self) -> Option<i64> {
        self.meta.created_at_ms.or_else(|| self.meta_json.as_ref().and_then(|m| m.created_at_ms))
    }

    pub fn updated_at_ms(&self) -> Option<i64> {
        self.meta_json.as_ref().and_then(|m| m.updated_at_ms)
    }
}
