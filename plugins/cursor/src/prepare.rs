//! Installs an export into a target home as the CLI keeps a chat: the same
//! `store.db` (blobs + meta '0') in `.cursor/chats/<md5(cwd)>/<id>/` and in
//! `.cursor/acp-sessions/<id>/`, each with its `meta.json`. Nothing else; a
//! session directory that exists is never touched.
//!
//! The target must run the tested CLI build: the official installer unpacks
//! each version into `~/.local/share/cursor-agent/versions/<version>/` and
//! links `~/.local/bin/cursor-agent` (and `agent`) to the newest one.
//!
//! Resume command: `cd <cwd> && HOME=<target> cursor-agent --resume <id>`
//! (the CLI finds a chat under the md5 of the directory it runs in).

use serde_json::{Value as Json, json};
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::{CreateDatabase, CreateFile, TableRows};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::hash::{sha256, to_hex};
use trajhost_codec_sdk::sqlite::Value;
use trajhost_codec_sdk::writer::install::ResumeCommand;
use trajhost_codec_sdk::{Artifact, CodecError, Operation, Plan, WriteOptions};

use crate::conversation::{self, file_uri};
use crate::decode::{Ctx, Msg};
use crate::export;
use crate::session::{ACP, META_JSON, STORE_DB};
use crate::store::{Blob, BlobSource};
use crate::write::{chat_dir, refuse_provider};
use crate::{TESTED_VERSION, target};

/// Where the official installer keeps CLI versions, relative to a home.
pub const VERSIONS_DIR: &str = ".local/share/cursor-agent/versions";

pub const SCHEMA: [&str; 2] =
    ["CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)", "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)"];

/// The CLI versions installed in `target` (sorted; the newest, which the
/// installer links as `cursor-agent`, last).
pub fn installed_versions(target: &Dir) -> Result<Vec<String>, CodecError> {
    match target.list(VERSIONS_DIR) {
        Ok(entries) => {
            let mut v: Vec<String> = entries
                .into_iter()
                .filter(|e| e.is_dir() && e.name.starts_with(|c: char| c.is_ascii_digit()))
                .map(|e| e.name)
                .collect();
            v.sort();
            Ok(v)
        }
        Err(FsError::NotFound(_)) => Ok(Vec::new()),
        Err(e) => Err(CodecError::Io(format!("listing {VERSIONS_DIR} in the target home: {e:?}"))),
    }
}

/// Refuses a target that does not run the tested build, unless allowed.
pub fn check_version(target: &Dir) -> Result<(), CodecError> {
    let versions = installed_versions(target)?;
    let found = versions.last().map(String::as_str);
    if found == Some(TESTED_VERSION) {
        return Ok(());
    }
    if target::choice().allow_untested {
        target::untested(found, TESTED_VERSION);
        return Ok(());
    }
    let what = match found {
        Some(v) => format!("runs cursor-agent {v} (newest of {VERSIONS_DIR}/)"),
        None => format!("has no cursor-agent installed ({VERSIONS_DIR}/ is missing or empty)"),
    };
    Err(CodecError::Unsupported(format!(
        "the target home {what}; this codec is tested with {TESTED_VERSION} only: pass --allow-untested to install anyway"
    )))
}

/// `cd <cwd> && HOME=<home> cursor-agent --resume <id>`.
pub fn resume_command(cwd: &str, home: Option<&str>, id: &str) -> String {
    ResumeCommand::in_dir(Some(cwd)).env("HOME", home).program("cursor-agent").arg(&format!("--resume {id}")).finish()
}

fn refuse_existing(target: &Dir, dir: &str) -> Result<(), CodecError> {
    match target.stat(dir) {
        Ok(_) => {
            Err(CodecError::Other(format!("{dir} already exists in the target home; a session is never overwritten")))
        }
        Err(FsError::NotFound(_)) => Ok(()),
        Err(e) => Err(CodecError::Io(format!("checking {dir} in the target home: {e:?}"))),
    }
}

pub fn prepare(artifacts: Vec<Artifact>, target: &Dir, options: &WriteOptions) -> Result<Plan, CodecError> {
    refuse_provider()?;
    let store = artifacts
        .iter()
        .find(|a| a.path.ends_with(&format!("/{}", export::FILE_NAME)))
        .ok_or_else(|| CodecError::Malformed(format!("no {} among the artifacts", export::FILE_NAME)))?;
    let (mut blobs, mut meta) = export::parse(&store.bytes, &store.path)?;
    let source_dir = crate::session::dir_of(&store.path);
    let meta_json_path = format!("{source_dir}/{META_JSON}");
    let mut meta_json: Json = match artifacts.iter().find(|a| a.path == meta_json_path) {
        Some(a) => serde_json::from_slice(&a.bytes)
            .map_err(|e| CodecError::Malformed(format!("{}: not JSON ({e})", a.path)))?,
        None => return Err(CodecError::Malformed(format!("no {meta_json_path} among the artifacts"))),
    };
    let native_id = source_dir.rsplit('/').next().unwrap_or(source_dir).to_string();
    if let Some(id) = options.native_id.as_deref()
        && id != native_id
    {
        return Err(CodecError::Malformed(format!("the export holds chat {native_id}, not the requested {id}")));
    }
    if !trajhost_codec_sdk::paths::is_uuid(&native_id) {
        return Err(CodecError::Malformed(format!("{source_dir}: the chat id is not a UUID")));
    }
    let root_id = meta
        .root_id()
        .ok_or_else(|| CodecError::Malformed(format!("{}: meta latestRootBlobId names no 32-byte root", store.path)))?;
    let root = blobs.blob(&root_id, conversation::ROOT)?;
    let source_cwd = meta_json.get("cwd").and_then(Json::as_str).unwrap_or("/").to_string();
    let cwd = options.cwd.clone().filter(|c| !c.is_empty()).unwrap_or_else(|| source_cwd.clone());
    check_version(target)?;

    // Another cwd: the root's workspace URI (field 9) follows, so the root's id changes.
    if cwd != source_cwd {
        let hex = to_hex(&root_id);
        let m = Msg::new(Ctx { blob: &hex, file: &store.path }, conversation::ROOT);
        let moved = conversation::rebase_root(m, &root.data, &file_uri(&cwd))?;
        let id = to_hex(&sha256(&moved));
        blobs.blobs.insert(id.clone(), Blob { data: moved, offset: 0, len: 0 });
        meta.raw["latestRootBlobId"] = Json::String(id);
        meta_json["cwd"] = Json::String(cwd.clone());
    }
    if let Some(model) = target::choice().model {
        meta.raw["lastUsedModel"] = Json::String(model);
    }
    let chat = chat_dir(&cwd, &native_id);
    let acp = format!("{ACP}/{native_id}");
    refuse_existing(target, &chat)?;
    refuse_existing(target, &acp)?;

    let title = meta_json.get("title").cloned().unwrap_or(Json::Null);
    let meta_hex = to_hex(&serde_json::to_vec(&meta.raw).expect("JSON serializes"));
    let rows: Vec<Vec<Value>> =
        blobs.blobs.iter().map(|(id, b)| vec![Value::Text(id.clone()), Value::Blob(b.data.clone())]).collect();
    let database = |path: String| {
        Operation::CreateDatabase(CreateDatabase {
            path,
            schema: SCHEMA.iter().map(|s| s.to_string()).collect(),
            user_version: Some(1),
            tables: vec![
                TableRows { table: "blobs".into(), columns: vec!["id".into(), "data".into()], rows: rows.clone() },
                TableRows {
                    table: "meta".into(),
                    columns: vec!["key".into(), "value".into()],
                    rows: vec![vec![Value::Text("0".into()), Value::Text(meta_hex.clone())]],
                },
            ],
        })
    };
    let acp_meta = json!({"schemaVersion": 1, "cwd": cwd, "title": title});
    let operations = vec![
        database(format!("{chat}/{STORE_DB}")),
        Operation::CreateFile(CreateFile {
            path: format!("{chat}/{META_JSON}"),
            bytes: serde_json::to_vec_pretty(&meta_json).expect("JSON serializes"),
        }),
        database(format!("{acp}/{STORE_DB}")),
        Operation::CreateFile(CreateFile {
            path: format!("{acp}/{META_JSON}"),
            bytes: serde_json::to_vec_pretty(&acp_meta).expect("JSON serializes"),
        }),
    ];
    Ok(Plan {
        native_id: native_id.clone(),
        operations,
        resume_command: Some(resume_command(&cwd, options.home_path.as_deref(), &native_id)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_for_the_shell() {
        assert_eq!(resume_command("/w", Some("/h"), "id"), "cd /w && HOME=/h cursor-agent --resume id");
        assert_eq!(resume_command("/a b", Some("/h'x"), "i"), r"cd '/a b' && HOME='/h'\''x' cursor-agent --resume i");
    }
}
