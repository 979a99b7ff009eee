//! A session folder as Vibe 3.0.3 publishes one, built from the model
//! context: what `write` returns and `prepare` re-derives.
//!
//! One generation (sequence 1) that is quiescent, with an empty journal
//! segment after it:
//!
//! - `chunks/<sha256>.json`: the checkpoint items, cut as Vibe cuts them
//!   (a chunk is sealed once its items' canonical bytes reach 64 KiB);
//! - `checkpoint.json`: `{checkpoint_version: 1, compaction_count: 0,
//!   context: {messages: []}, notifications: [], last_finished_turn_id,
//!   turn: {type: "terminal", turn_id, outcome: {type: "completed",
//!   output: [the last answer]}}}`;
//! - `projection-state.json`: the UI's snapshot with an empty history (the
//!   projection is not the model context; Vibe resumes without its
//!   entries);
//! - `runtime-state.json` (`runtime_state_version` 3, stored whole): no
//!   actions, receipts or processes, an empty plugin lock (no plugin
//!   pinned, so resuming needs no `session/plugins/` package), the session
//!   metadata (cwd, root session) and identity;
//! - `manifest.json`, then `CURRENT` naming it;
//! - `journal/<seq + 1>.jsonl` (empty) and `meta.json`.
//!
//! Every JSON file is its JCS bytes plus "\n"; every digest the sha256 of
//! those bytes. Absolute paths (the cwd) sit inside hashed files, so a
//! different cwd re-derives the runtime state, the manifest and `CURRENT`
//! ([`Store::with_runtime`]).

use serde_json::{Value, json};
use trajhost_codec_sdk::hash::sha256_hex;
use trajhost_codec_sdk::jcs;
use trajhost_codec_sdk::time::rfc3339_ms;
use trajhost_codec_sdk::{Artifact, CodecError};

use crate::layout::{self, CHUNKS, CURRENT, GENERATIONS, JOURNAL, META, join};
use crate::store::body;

/// Vibe seals a chunk once its items reach this many canonical bytes.
pub const CHUNK_TARGET_BYTES: usize = 64 * 1024;
/// The one generation written.
pub const SEQUENCE: u64 = 1;

/// A stored JSON document: its JCS bytes + "\n", and their digest.
pub fn document(value: &Value) -> (Vec<u8>, String) {
    let mut bytes = jcs::to_vec(value);
    let digest = sha256_hex(&bytes);
    bytes.push(b'\n');
    (bytes, digest)
}

/// The chunks of `items`: (digest, file bytes), in order.
pub fn chunks(items: &[Value]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending: Vec<Vec<u8>> = Vec::new();
    let mut size = 0;
    let mut seal = |pending: &mut Vec<Vec<u8>>| {
        let mut bytes = b"[".to_vec();
        bytes.extend(pending.join(&b","[..]));
        bytes.push(b']');
        let digest = sha256_hex(&bytes);
        bytes.push(b'\n');
        out.push((digest, bytes));
        pending.clear();
    };
    for item in items {
        let encoded = jcs::to_vec(item);
        size += encoded.len() + 1;
        pending.push(encoded);
        if size >= CHUNK_TARGET_BYTES {
            seal(&mut pending);
            size = 0;
        }
    }
    if !pending.is_empty() {
        seal(&mut pending);
    }
    out
}

/// What a written session holds.
#[derive(Debug, Clone)]
pub struct Contents {
    pub id: String,
    pub cwd: String,
    /// The checkpoint items (the model context).
    pub items: Vec<Value>,
    /// The last turn's id and its answer.
    pub turn_id: String,
    pub last_answer: Option<String>,
    pub first_prompt: Option<String>,
    pub start_ms: i64,
    pub end_ms: i64,
    /// The model's name, for `meta.json`.
    pub model: Option<String>,
}

/// The runtime state of a session that ran nothing that is still pending.
pub fn runtime_state(id: &str, cwd: &str) -> Value {
    json!({
        "runtime_state_version": 3,
        "session_id": id,
        "snapshot_sequence": SEQUENCE,
        "storage_lifetime": "persistent",
        "command_receipts": [],
        "actions": [],
        "callbacks": [],
        "provider_operations": [],
        "processes": [],
        "submitted_process_notifications": [],
        "children": [],
        "plugin_lock": {"lock_version": 1, "plugins": [], "snapshot_digest": null},
        "session_metadata": {"cwd": cwd, "root_session_id": id, "parent_session_id": null},
        "identity": {"depth": 0, "kind": "root", "parent_session_id": null, "root_session_id": id, "session_id": id},
        "lifecycle": {"type": "active"},
    })
}

/// The files of a session folder, by path under the home.
#[derive(Debug, Clone)]
pub struct Store {
    pub id: String,
    pub files: Vec<Artifact>,
}

impl Store {
    /// Builds the folder of `c`.
    pub fn build(c: &Contents) -> Store {
        let folder = layout::session_dir(&c.id);
        let generation = join(&join(&folder, GENERATIONS), &layout::generation_name(SEQUENCE));
        let mut files = Vec::new();
        let mut chunk_names = Vec::new();
        for (digest, bytes) in chunks(&c.items) {
            files.push(Artifact { path: join(&join(&folder, CHUNKS), &format!("{digest}.json")), bytes });
            chunk_names.push(digest);
        }
        let output: Vec<Value> = c.last_answer.iter().map(|t| json!({"type": "text", "text": t})).collect();
        let checkpoint = json!({
            "checkpoint_version": 1,
            "compaction_count": 0,
            "context": {"messages": []},
            "notifications": [],
            "last_finished_turn_id": c.turn_id,
            "turn": {"type": "terminal", "turn_id": c.turn_id, "outcome": {"type": "completed", "output": output}},
        });
        let preview: String = c.first_prompt.as_deref().unwrap_or("").chars().take(200).collect();
        let projection = json!({
            "projection_state_version": 1,
            "session_id": c.id,
            "snapshot_sequence": SEQUENCE,
            "watermark": 0,
            "snapshot": {
                "format": "harness.public-session-state/v1",
                "activeCallbacks": [],
                "history": {"cursor": {"after": null, "before": null}, "entries": [], "range": "latest"},
                "latestTurn": null,
                "session": {
                    "id": c.id, "rootSessionId": c.id, "parentSessionId": null,
                    "createdAt": c.start_ms, "updatedAt": c.end_ms,
                    "preview": preview, "status": {"type": "idle"},
                    "title": null, "titleSource": "auto", "contextUsage": null, "tokenUsage": null,
                },
                "turnQueue": {"items": [], "maxItems": 32, "paused": false},
            },
        });
        let parts = [
            ("checkpoint.json", checkpoint, Some(chunk_names)),
            ("projection-state.json", projection, Some(Vec::new())),
            ("runtime-state.json", runtime_state(&c.id, &c.cwd), None),
        ];
        let mut records = Vec::new();
        for (name, value, chunks) in parts {
            let (bytes, digest) = document(&value);
            files.push(Artifact { path: join(&generation, name), bytes });
            let mut record = json!({"path": name, "sha256": digest});
            if let Some(chunks) = chunks {
                record["chunks"] = json!(chunks);
            }
            records.push(record);
        }
        records[0]["checkpoint_version"] = json!(1);
        let runtime_state = records.pop().unwrap_or_default();
        let projection_state = records.pop().unwrap_or_default();
        let checkpoint = records.pop().unwrap_or_default();
        let journal = join(JOURNAL, &format!("{}.jsonl", layout::generation_name(SEQUENCE + 1)));
        let manifest = json!({
            "manifest_version": 1,
            "session_id": c.id,
            "generation": layout::generation_name(SEQUENCE),
            "created_at": rfc3339_ms(c.end_ms),
            "snapshot_sequence": SEQUENCE,
            "execution_state": "quiescent",
            "checkpoint": checkpoint,
            "projection_state": projection_state,
            "runtime_state": runtime_state,
            "interop_export": null,
            "recovery_journal_segment": {"first_sequence": SEQUENCE + 1, "path": journal},
        });
        let (bytes, manifest_digest) = document(&manifest);
        files.push(Artifact { path: join(&generation, "manifest.json"), bytes });
        files.push(Artifact { path: join(&folder, &journal), bytes: Vec::new() });
        let meta = json!({
            "session_id": c.id,
            "parent_session_id": null,
            "start_time": rfc3339_ms(c.start_ms),
            "end_time": rfc3339_ms(c.end_ms),
            "git_commit": null,
            "git_branch": null,
            "environment": {"working_directory": c.cwd},
            "origin_directory": c.cwd,
            "child_sessions": [],
            "loops": [],
            "title": null,
            "title_source": "auto",
            "config": {"model_name": c.model},
            "artifacts": [],
        });
        let mut meta_bytes = serde_json::to_vec_pretty(&meta).unwrap_or_default();
        meta_bytes.push(b'\n');
        files.push(Artifact { path: join(&folder, META), bytes: meta_bytes });
        files.push(Artifact { path: join(&folder, CURRENT), bytes: current(&c.id, &manifest_digest) });
        Store { id: c.id.clone(), files }
    }

    /// The same store with its runtime state changed by `edit` (and
    /// `meta.json` by `edit_meta`): the runtime state's digest, the
    /// manifest and `CURRENT` re-derived.
    pub fn with_runtime(
        mut self,
        edit: impl FnOnce(&mut Value),
        edit_meta: impl FnOnce(&mut Value),
    ) -> Result<Store, CodecError> {
        let find = |files: &[Artifact], suffix: &str| {
            files
                .iter()
                .position(|f| f.path.ends_with(suffix))
                .ok_or_else(|| CodecError::Malformed(format!("the written session holds no {suffix}")))
        };
        let parse = |f: &Artifact| {
            serde_json::from_slice::<Value>(body(&f.bytes))
                .map_err(|e| CodecError::Malformed(format!("{}: not JSON ({e})", f.path)))
        };
        let runtime_at = find(&self.files, "/runtime-state.json")?;
        let mut runtime = parse(&self.files[runtime_at])?;
        edit(&mut runtime);
        let (bytes, runtime_digest) = document(&runtime);
        self.files[runtime_at].bytes = bytes;
        let manifest_at = find(&self.files, "/manifest.json")?;
        let mut manifest = parse(&self.files[manifest_at])?;
        manifest["runtime_state"]["sha256"] = Value::String(runtime_digest);
        let (bytes, manifest_digest) = document(&manifest);
        self.files[manifest_at].bytes = bytes;
        let current_at = find(&self.files, &format!("/{CURRENT}"))?;
        self.files[current_at].bytes = current(&self.id, &manifest_digest);
        if let Ok(meta_at) = find(&self.files, &format!("/{META}")) {
            let mut meta = parse(&self.files[meta_at])?;
            edit_meta(&mut meta);
            let mut bytes = serde_json::to_vec_pretty(&meta).unwrap_or_default();
            bytes.push(b'\n');
            self.files[meta_at].bytes = bytes;
        }
        Ok(self)
    }
}

/// `CURRENT` for generation [`SEQUENCE`] whose manifest has `digest`.
pub fn current(id: &str, digest: &str) -> Vec<u8> {
    document(&json!({
        "generation": layout::generation_name(SEQUENCE),
        "manifest_sha256": digest,
        "session_id": id,
        "snapshot_sequence": SEQUENCE,
        "store_format": layout::STORE_FORMAT,
        "store_format_minor": layout::STORE_FORMAT_MINOR,
    }))
    .0
}

/// Checks that the files of a session folder give the digests they name:
/// each chunk its name, each part of the current generation its manifest's
/// `sha256`, the manifest `CURRENT`'s; and that every JSON file but
/// `meta.json` is canonical. An error names the file.
pub fn verify(files: &[Artifact]) -> Result<(), CodecError> {
    let by_path = |path: &str| files.iter().find(|f| f.path == path);
    let current_file = files
        .iter()
        .find(|f| f.path.rsplit('/').next() == Some(CURRENT))
        .ok_or_else(|| CodecError::Malformed("the written session holds no CURRENT".into()))?;
    let folder = current_file.path.rsplit_once('/').map(|(f, _)| f).unwrap_or("");
    for file in files {
        let name = file.path.rsplit('/').next().unwrap_or("");
        let is_json = name.ends_with(".json") && name != META || name == CURRENT;
        if is_json && !(file.bytes.ends_with(b"\n") && jcs::is_canonical(body(&file.bytes))) {
            return Err(CodecError::Malformed(format!("{}: not RFC 8785 canonical JSON plus a newline", file.path)));
        }
        if file.path.starts_with(&format!("{folder}/{CHUNKS}/"))
            && sha256_hex(body(&file.bytes)) != name.trim_end_matches(".json")
        {
            return Err(CodecError::Malformed(format!("{}: the chunk's bytes do not give its name", file.path)));
        }
    }
    let current = crate::store::parse_current(&current_file.bytes)
        .map_err(|why| CodecError::Malformed(format!("{}: {why}", current_file.path)))?;
    let generation = join(&join(folder, GENERATIONS), &current.generation);
    let manifest_path = join(&generation, "manifest.json");
    let manifest = by_path(&manifest_path)
        .ok_or_else(|| CodecError::Malformed(format!("the written session holds no {manifest_path}")))?;
    if sha256_hex(body(&manifest.bytes)) != current.manifest_sha256 {
        return Err(CodecError::Malformed(format!("{manifest_path}: its digest is not CURRENT's manifest_sha256")));
    }
    let parsed: crate::store::Manifest = serde_json::from_slice(body(&manifest.bytes))
        .map_err(|e| CodecError::Malformed(format!("{manifest_path}: not a generation manifest ({e})")))?;
    for part in [&parsed.checkpoint, &parsed.projection_state, &parsed.runtime_state] {
        let path = join(&generation, &part.path);
        let file =
            by_path(&path).ok_or_else(|| CodecError::Malformed(format!("the written session holds no {path}")))?;
        if sha256_hex(body(&file.bytes)) != part.sha256 {
            return Err(CodecError::Malformed(format!("{path}: its digest is not the manifest's sha256")));
        }
        for chunk in part.chunks.iter().flatten() {
            let chunk_path = join(&join(folder, CHUNKS), &format!("{chunk}.json"));
            if by_path(&chunk_path).is_none() {
                return Err(CodecError::Malformed(format!("the written session holds no {chunk_path}")));
            }
        }
    }
    Ok(())
}
