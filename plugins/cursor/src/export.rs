//! This codec's export file, `store.export.jsonl`, beside a chat's
//! `meta.json` (the guest cannot create SQLite files): one line per blob,
//! `{"id":"<64 hex>","data":"<base64>"}`, in the order they were written
//! (every child before the blobs that reference it, the root last), then one
//! closing line `{"meta":{…}}` holding the `meta['0']` object (it names the
//! root, known only at the end: putting it last lets the writer stream).
//! `discover` and `read` read it back through the same graph walker as a
//! `store.db`; `prepare` turns it into the two `store.db` files.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::jsonl::{WholeLine, non_blank_lines};

use crate::store::{AgentMeta, Blob, MemoryStore, base64_encode, from_hex};

pub const FILE_NAME: &str = "store.export.jsonl";

/// One blob line.
pub fn blob_line(id_hex: &str, data: &[u8]) -> Vec<u8> {
    let mut line =
        serde_json::to_vec(&serde_json::json!({"id": id_hex, "data": base64_encode(data)})).expect("JSON serializes");
    line.push(b'\n');
    line
}

/// The closing meta line.
pub fn meta_line(meta: &Json) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({ "meta": meta })).expect("JSON serializes");
    line.push(b'\n');
    line
}

/// Parses a whole export file.
pub fn parse(bytes: &[u8], file: &str) -> Result<(MemoryStore, AgentMeta), CodecError> {
    let mut blobs = BTreeMap::new();
    let mut meta = None;
    for WholeLine { offset: at, len, bytes: line } in non_blank_lines(bytes) {
        let bad = |what: &str| CodecError::Malformed(format!("{file}: line at byte {at}: {what}"));
        let v: Json = serde_json::from_slice(line).map_err(|e| bad(&format!("not JSON ({e})")))?;
        if let Some(m) = v.get("meta") {
            if meta.is_some() {
                return Err(bad("a second meta line"));
            }
            meta = Some(AgentMeta::from_json(m.clone(), file)?);
            continue;
        }
        let id = v.get("id").and_then(Json::as_str).ok_or_else(|| bad("no id"))?;
        if id.len() != 64 || from_hex(id).is_none() {
            return Err(bad("id is not 64 hex digits"));
        }
        let data = v.get("data").and_then(Json::as_str).ok_or_else(|| bad("no data"))?;
        let data = trajhost_codec_sdk::text::base64_decode(data).ok_or_else(|| bad("data is not base64"))?;
        blobs.insert(id.to_ascii_lowercase(), Blob { data, offset: at, len });
    }
    let meta = meta.ok_or_else(|| CodecError::Malformed(format!("{file}: no meta line")))?;
    Ok((MemoryStore { blobs, file: file.to_string() }, meta))
}
