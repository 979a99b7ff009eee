//! `prepare`: the plan that installs a written conversation into a target
//! home's local backend (`~/.letta/lc-local-backend`), so that
//! `letta --backend local --conversation <id>` resumes it. One plan for both
//! transcript formats ([`Format`]); what differs is which stores it adds to.
//!
//! Letta Code 0.25.9 loads the whole store at start (`LocalStore.loadFromStorage`):
//! every `agents/*.json`, and every `conversations/<folder>/` whose
//! `conversation.json` names an id and an agent, refusing the whole store
//! when one conversation's `manifest.json` is not schema 1 /
//! `pi-ai-message-jsonl` / `pi-ai` (or is missing beside a non-empty
//! transcript). Letta Code 0.30.28 and later (schema 2,
//! `pi-session-entry-jsonl`) load a conversation when it is used, accept
//! schema 1 or 2 there (a schema-1 one is migrated in place when next
//! written), and refuse any other manifest, or a missing one beside a
//! non-empty transcript. So the plan
//!
//! 1. checks the store first, failing closed naming the file and what
//!    differs: every existing conversation's manifest (schema 1 for the
//!    schema-1 writer; 1 or 2 for the schema-2 writer; another schema names
//!    its version and the writer that handles it, if any), every agent file
//!    and `~/.letta/settings.json` must be what this codec knows; the
//!    conversation's folder, its id and its agent must be new. The store
//!    records no CLI version, but each transcript names the Letta Code that
//!    wrote it (its device-information reminder): for the schema-1 writer,
//!    one other than a 0.25 release is refused unless `--allow-untested`
//!    (then reported untested), and a fresh home is taken to run the tested
//!    0.25.9; the schema-2 writer leaves the version to the host (its writer
//!    range and the version ledger);
//! 2. creates the conversation folder: `messages.jsonl` and
//!    `conversation.json` (the artifacts; the latter checked against the
//!    former), `manifest.json` (the format's schema);
//! 3. creates the conversation's own agent, `agents/<base64url(id)>.json`
//!    (Letta Code's record: name, tags `origin:letta-code`, model, empty
//!    `system`), with the model the user chose (`--model`, `--provider`: a
//!    Letta model handle `provider/model`), else the model of the agent the
//!    target last used (`settings.json` `lastAgent`), else none (Letta Code's
//!    default);
//! 4. adds the agent's entry to `settings.json` `agents[]` (`add-json-entry`,
//!    matched by `agentId`): `systemPromptPreset: "default"` makes Letta Code
//!    build the agent's system prompt at resume, as for an agent it created
//!    (the entry's `baseUrl` names the store by the home's absolute path,
//!    `local:<home>/.letta/lc-local-backend`).
//!
//! Existing files are never changed, except `settings.json`, which gets one
//! array entry (the host refuses a different value at the same key).

use serde_json::{Value, json};
use trajhost_codec_sdk::fs::{Dir, FsError};
use trajhost_codec_sdk::json::str_of;
use trajhost_codec_sdk::target::TargetChoice;
use trajhost_codec_sdk::writer::install::{IndexEntry, ResumeCommand};
use trajhost_codec_sdk::{ArtifactInfo, CodecError, CopyArtifact, CreateFile, Operation, Plan, WriteOptions};

use crate::head::Head;
use crate::layout::{self, AGENTS, CONVERSATION, CONVERSATIONS, MANIFEST, MESSAGES, PROVIDER_STACK, SETTINGS, STORE};
use crate::records::{Row, classify};
use crate::write::{ConversationRecord, agent_id_for};
use crate::{ENTRIES_CODEC, ENTRIES_WRITES_FOR, FIRST_ENTRIES_VERSION, Format, MESSAGES_CODEC, MESSAGES_WRITES_FOR};

/// The Letta Code version the schema-1 writer was checked against (the lab's pin).
pub const TESTED_VERSION: &str = "0.25.9";

/// A Letta Code version of the tested store layout: a 0.25 release.
pub fn is_tested(version: &str) -> bool {
    version.strip_prefix("0.25.").is_some_and(|patch| !patch.is_empty())
}

/// Largest side JSON file read from the target (agents, manifests, settings).
const MAX_JSON_BYTES: u64 = 16 << 20;
/// Largest transcript artifact accepted.
const MAX_ARTIFACT_BYTES: u64 = 512 << 20;
/// The agent name Letta Code gives its agents.
pub const AGENT_NAME: &str = "Letta Code";
pub const AGENT_DESCRIPTION: &str = "Letta Code agent for a conversation imported by trajhost";
/// The tag of agents Letta Code made (it rebuilds their system prompt from
/// their `systemPromptPreset`).
pub const AGENT_TAG: &str = "origin:letta-code";

/// What the artifact's messages say.
#[derive(Debug, Default)]
struct Messages {
    ids: Vec<String>,
    /// Index in `ids` of the last compaction.
    last_compaction: Option<usize>,
    first_at: Option<String>,
    last_at: Option<String>,
    /// The `session` header's time (schema 2).
    header_at: Option<String>,
}

pub fn prepare(
    artifacts: Vec<ArtifactInfo>,
    export: &Dir,
    target: &Dir,
    options: &WriteOptions,
    choice: &TargetChoice,
    format: Format,
) -> Result<Plan, CodecError> {
    let messages_artifact = artifacts.iter().filter(|a| a.path.ends_with(&format!("/{MESSAGES}"))).collect::<Vec<_>>();
    let [artifact] = messages_artifact.as_slice() else {
        return Err(CodecError::Malformed(format!(
            "expected one {CONVERSATIONS}/<folder>/{MESSAGES} artifact (and its {CONVERSATION}); got {}",
            artifacts.len()
        )));
    };
    let id = conversation_of(&artifact.path)?;
    let conversation_path = layout::conversation_file(&id, CONVERSATION);
    if let Some(other) = artifacts.iter().find(|a| a.path != artifact.path && a.path != conversation_path) {
        return Err(CodecError::Malformed(format!(
            "artifact {:?} is not a file of conversation {id} ({MESSAGES}, {CONVERSATION})",
            other.path
        )));
    }
    if let Some(wanted) = options.native_id.as_deref().filter(|w| *w != id) {
        return Err(CodecError::Malformed(format!("the export's conversation is {id}, not the requested {wanted}")));
    }
    if artifact.size > MAX_ARTIFACT_BYTES {
        return Err(CodecError::LimitExceeded(format!("{}: more than {MAX_ARTIFACT_BYTES} bytes", artifact.path)));
    }
    let bytes = export.read_to_end(&artifact.path, MAX_ARTIFACT_BYTES).map_err(|e| io(&artifact.path, e))?;
    let messages = messages_of(&artifact.path, &bytes, format)?;
    let agent_id = agent_id_for(&id);
    let settings = check_store(target, &id, &agent_id, choice, format)?;
    let model = model_for(target, settings.as_ref(), choice)?;

    let created_at = messages
        .header_at
        .clone()
        .or_else(|| messages.first_at.clone())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".to_string());
    let manifest = out::Manifest {
        schema_version: format.schema_version(),
        message_format: format.message_format(),
        provider_stack: PROVIDER_STACK,
        created_at: &created_at,
    };
    // The writer's conversation.json (it knows the title), checked against
    // the messages; else one made from them.
    let conversation = match artifacts.iter().find(|a| a.path == conversation_path) {
        Some(file) => {
            let bytes = export.read_to_end(&file.path, MAX_JSON_BYTES).map_err(|e| io(&file.path, e))?;
            check_conversation(&file.path, &bytes, &id, &agent_id, &messages)?;
            Operation::CopyArtifact(CopyArtifact { artifact: file.path.clone(), path: file.path.clone() })
        }
        None => {
            let record = ConversationRecord {
                id: &id,
                agent_id: &agent_id,
                created_at: messages.header_at.clone().or_else(|| messages.first_at.clone()),
                last_message_at: messages.last_at.clone(),
                summary: None,
                in_context_message_ids: &messages.ids[messages.last_compaction.unwrap_or(0)..],
            };
            Operation::CreateFile(CreateFile { path: conversation_path, bytes: record.to_json() })
        }
    };
    let agent = out::Agent {
        id: &agent_id,
        name: AGENT_NAME,
        description: AGENT_DESCRIPTION,
        system: "",
        tags: &[AGENT_TAG],
        model: model.as_deref(),
        model_settings: out::Empty {},
    };

    let mut operations = vec![
        Operation::CopyArtifact(CopyArtifact { artifact: artifact.path.clone(), path: artifact.path.clone() }),
        create(layout::conversation_file(&id, MANIFEST), &manifest),
        conversation,
        create(layout::agent_file(&agent_id), &agent),
    ];
    if let Some(home) = options.home_path.as_deref() {
        let entry = json!({
            "agentId": agent_id,
            "baseUrl": format!("local:{}/{STORE}", home.trim_end_matches('/')),
            "memfs": true,
            "systemPromptPreset": "default",
        });
        let has_agents = settings.as_ref().is_some_and(|s| s.get("agents").is_some());
        operations.push(if settings.is_none() || has_agents {
            IndexEntry::appended(SETTINGS, "/agents", Some("agentId"), &entry)
                .initial(&json!({ "agents": [] }))
                .operation()
        } else {
            IndexEntry::member(SETTINGS, "", "agents", &json!([entry])).operation()
        });
    }
    Ok(Plan { native_id: id.clone(), operations, resume_command: Some(resume_command(&id, options)) })
}

/// `cd <cwd> && HOME=<home> LETTA_LOCAL_BACKEND_EXPERIMENTAL=1 letta --backend local --conversation <id>
/// --output-format json -p "<prompt>"`, the lab's headless resume of Letta Code 0.25.9 and 0.32.18.
pub fn resume_command(id: &str, options: &WriteOptions) -> String {
    ResumeCommand::in_dir(options.cwd.as_deref())
        .env("HOME", options.home_path.as_deref())
        .program("LETTA_LOCAL_BACKEND_EXPERIMENTAL=1 letta --backend local")
        .option("--conversation", Some(id))
        .arg("--output-format json -p \"<prompt>\"")
        .finish()
}

/// The conversation id of `conversations/<base64url("conversation:<id>")>/messages.jsonl`.
fn conversation_of(path: &str) -> Result<String, CodecError> {
    let bad = || {
        CodecError::Malformed(format!(
            "artifact {path:?} is not {CONVERSATIONS}/<base64url(\"conversation:<id>\")>/{MESSAGES}"
        ))
    };
    let folder = path
        .strip_prefix(CONVERSATIONS)
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.strip_suffix(MESSAGES))
        .and_then(|r| r.strip_suffix('/'))
        .ok_or_else(bad)?;
    let id =
        layout::key_of(folder).and_then(|k| k.strip_prefix("conversation:").map(str::to_string)).ok_or_else(bad)?;
    if !layout::is_conversation_id(&id) || layout::conversation_folder(&id) != folder {
        return Err(bad());
    }
    Ok(id)
}

/// Message ids, the last compaction and the first and last times of a
/// transcript in `format`.
fn messages_of(path: &str, bytes: &[u8], format: Format) -> Result<Messages, CodecError> {
    let mut messages = Messages::default();
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let bad = |what: &str| CodecError::Malformed(format!("{path} line {}: {what}", n + 1));
        let value: Value = serde_json::from_slice(line).map_err(|e| bad(&format!("not JSON ({e})")))?;
        let (message, compaction) = match (format, classify(&value)) {
            (Format::Messages, Row::Message { message, entry_ts: None }) => (message, false),
            (Format::Entries, Row::Header(header)) if n == 0 => {
                messages.header_at = str_of(header, "timestamp").map(str::to_string);
                continue;
            }
            (Format::Entries, Row::Message { message, entry_ts: Some(_) }) => (message, false),
            (Format::Entries, Row::Compaction(entry)) => {
                (entry.get("message").ok_or_else(|| bad("a compaction entry without its message"))?, true)
            }
            _ => return Err(bad(&format!("not a line of a {} transcript", format.message_format()))),
        };
        let id = str_of(message, "id").ok_or_else(|| bad("a message without an id"))?;
        let metadata = message.get("metadata");
        if compaction || metadata.and_then(|m| m.get("compaction")).is_some() {
            messages.last_compaction = Some(messages.ids.len());
        }
        if let Some(at) = metadata.and_then(|m| str_of(m, "created_at")) {
            messages.first_at.get_or_insert_with(|| at.to_string());
            messages.last_at = Some(at.to_string());
        }
        messages.ids.push(id.to_string());
    }
    if format == Format::Entries && messages.header_at.is_none() && !bytes.is_empty() {
        return Err(CodecError::Malformed(format!("{path}: no `session` header on its first line")));
    }
    Ok(messages)
}

/// The writer's `conversation.json` must be of this conversation and agent,
/// and keep in context only messages of the transcript.
fn check_conversation(
    path: &str,
    bytes: &[u8],
    id: &str,
    agent_id: &str,
    messages: &Messages,
) -> Result<(), CodecError> {
    let bad = |what: &str| CodecError::Malformed(format!("{path}: {what}"));
    let value: Value = serde_json::from_slice(bytes).map_err(|e| bad(&format!("not JSON ({e})")))?;
    if str_of(&value, "id") != Some(id) {
        return Err(bad(&format!("not conversation {id}")));
    }
    if str_of(&value, "agent_id") != Some(agent_id) {
        return Err(bad(&format!("its agent is not {agent_id}")));
    }
    let in_context = value
        .get("in_context_message_ids")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no in_context_message_ids"))?;
    if let Some(missing) = in_context.iter().find(|m| !m.as_str().is_some_and(|m| messages.ids.iter().any(|i| i == m)))
    {
        return Err(bad(&format!("in_context_message_ids names {missing}, which is not in {MESSAGES}")));
    }
    Ok(())
}

/// Checks every store file the plan adds to or that Letta Code loads with
/// it, for a conversation in `format`; returns `settings.json` when there
/// is one.
fn check_store(
    target: &Dir,
    id: &str,
    agent_id: &str,
    choice: &TargetChoice,
    format: Format,
) -> Result<Option<Value>, CodecError> {
    let ours = layout::conversation_folder(id);
    let mut untested: Option<(String, String)> = None;
    for folder in list(target, CONVERSATIONS)? {
        let dir = layout::join(CONVERSATIONS, &folder.name);
        if folder.name == ours {
            return Err(CodecError::Other(format!(
                "{dir} already exists in the target: conversation {id} is never overwritten or merged"
            )));
        }
        if !folder.is_dir() {
            continue;
        }
        let manifest_path = layout::join(&dir, MANIFEST);
        match read_json(target, &manifest_path)? {
            Some(manifest) => check_manifest(&manifest_path, &manifest, format)?,
            None => {
                let messages = layout::join(&dir, MESSAGES);
                match target.stat(&messages) {
                    Ok(meta) if meta.size > 0 => {
                        return Err(CodecError::Unsupported(format!(
                            "{messages} has no {MANIFEST} beside it: an unversioned (legacy) transcript, which \
                             Letta Code refuses to load until `letta local-backend migrate-transcripts` \
                             converts it; not adding to this store"
                        )));
                    }
                    Ok(_) | Err(FsError::NotFound(_)) => {}
                    Err(e) => return Err(io(&messages, e)),
                }
            }
        }
        // The store records no CLI version; its transcripts name the one that wrote them.
        let messages = layout::join(&dir, MESSAGES);
        if format == Format::Messages
            && untested.is_none()
            && let Ok(head) = Head::scan(target, &messages)
            && let Some(version) = head.version.filter(|v| !is_tested(v))
        {
            untested = Some((version, messages));
        }
        let conversation_path = layout::join(&dir, CONVERSATION);
        if let Some(conversation) = read_json(target, &conversation_path)?
            && str_of(&conversation, "id") == Some(id)
        {
            return Err(CodecError::Other(format!("{conversation_path} already names conversation {id}")));
        }
    }
    let ours = layout::agent_file(agent_id);
    for file in list(target, AGENTS)? {
        let path = layout::join(AGENTS, &file.name);
        if path == ours {
            return Err(CodecError::Other(format!("{path} already exists in the target: agent {agent_id}")));
        }
        if !file.is_file() || !file.name.ends_with(".json") {
            continue;
        }
        let agent = read_json(target, &path)?.unwrap_or(Value::Null);
        let Some(existing) = agent.as_object().and_then(|a| a.get("id")).and_then(Value::as_str) else {
            return Err(CodecError::Unsupported(format!(
                "{path}: not a Letta Code agent record (a JSON object with a string `id`); unknown store"
            )));
        };
        if existing == agent_id {
            return Err(CodecError::Other(format!("{path} already holds agent {agent_id}")));
        }
    }
    if let Some((found, file)) = untested {
        if !choice.allow_untested {
            return Err(CodecError::Unsupported(format!(
                "{file} was written by Letta Code {found}; this codec is tested with Letta Code {TESTED_VERSION} \
                 (its 0.25 transcript store): pass --allow-untested to install anyway"
            )));
        }
        trajhost_codec_sdk::target::untested(Some(&found), TESTED_VERSION);
    }
    let settings = read_json(target, SETTINGS)?;
    if let Some(settings) = &settings {
        if !settings.is_object() {
            return Err(CodecError::Unsupported(format!("{SETTINGS}: not a JSON object; unknown settings format")));
        }
        if settings.get("agents").is_some_and(|a| !a.is_array()) {
            return Err(CodecError::Unsupported(format!(
                "{SETTINGS}: `agents` is not an array; unknown settings format"
            )));
        }
    }
    Ok(settings)
}

/// A manifest must name a transcript format the target loads beside one
/// in `writing`: schema 1 for the schema-1 writer (Letta Code 0.25 refuses
/// a whole store holding anything else); schema 1 or 2 for the schema-2
/// writer (Letta Code 0.30.28 and later load both). Anything else is
/// refused naming its version and the writer that handles it, if any.
pub fn check_manifest(path: &str, manifest: &Value, writing: Format) -> Result<(), CodecError> {
    let provider = str_of(manifest, "provider_stack");
    let found = Format::of_manifest(manifest).filter(|_| provider == Some(PROVIDER_STACK));
    match (writing, found) {
        (_, Some(Format::Messages)) | (Format::Entries, Some(Format::Entries)) => Ok(()),
        (Format::Messages, Some(Format::Entries)) => Err(CodecError::Unsupported(format!(
            "{path}: transcript format schema_version 2, message_format \"{}\" (Letta Code {FIRST_ENTRIES_VERSION} \
             and later): Letta Code 0.25 refuses a store holding it, so {MESSAGES_CODEC} (schema 1, for Letta Code \
             {MESSAGES_WRITES_FOR}) does not add to it. {ENTRIES_CODEC} writes schema 2 (for Letta Code \
             {ENTRIES_WRITES_FOR}): prepare with --target-version <the target's Letta Code version>, or \
             --codec {ENTRIES_CODEC}",
            Format::Entries.message_format()
        ))),
        (_, None) => {
            let known = |f: fn(Format) -> String| Format::ALL.map(f).join(", ");
            let mut differs = Vec::new();
            let schema = manifest.get("schema_version").and_then(Value::as_u64);
            if !Format::ALL.iter().any(|f| schema == Some(f.schema_version())) {
                differs.push(format!(
                    "schema_version {} (known: {})",
                    shown(manifest.get("schema_version")),
                    known(|f| f.schema_version().to_string())
                ));
            }
            if Format::ALL.iter().all(|f| str_of(manifest, "message_format") != Some(f.message_format())) {
                differs.push(format!(
                    "message_format {} (known: {})",
                    shown(manifest.get("message_format")),
                    known(|f| f.message_format().to_string())
                ));
            }
            if differs.is_empty() && Format::of_manifest(manifest).is_none() {
                differs.push(format!(
                    "schema_version {} with message_format {} (known: {})",
                    shown(manifest.get("schema_version")),
                    shown(manifest.get("message_format")),
                    known(|f| format!("{} with {}", f.schema_version(), f.message_format()))
                ));
            }
            if provider != Some(PROVIDER_STACK) {
                differs.push(format!(
                    "provider_stack {} (known: {PROVIDER_STACK})",
                    shown(manifest.get("provider_stack"))
                ));
            }
            Err(CodecError::Unsupported(format!(
                "{path}: unknown transcript format: {}. Letta Code refuses a transcript it does not know, and no \
                 writer here handles it ({MESSAGES_CODEC} writes schema 1, {ENTRIES_CODEC} schema 2): not adding \
                 to this store",
                differs.join(", ")
            )))
        }
    }
}

fn shown(value: Option<&Value>) -> String {
    let text = value.map_or_else(|| "missing".to_string(), Value::to_string);
    if text.len() > 40 { format!("{}…", &text[..text.floor_char_boundary(40)]) } else { text }
}

/// The agent's model: the user's choice, else the model of the agent the
/// target last used, else none.
fn model_for(target: &Dir, settings: Option<&Value>, choice: &TargetChoice) -> Result<Option<String>, CodecError> {
    match (&choice.model, &choice.provider) {
        (Some(model), Some(provider)) => {
            if model.contains('/') && !model.starts_with(&format!("{provider}/")) {
                return Err(CodecError::Other(format!(
                    "model {model:?} names another provider than {provider:?} (Letta Code takes a model handle \
                     `provider/model`)"
                )));
            }
            Ok(Some(if model.contains('/') { model.clone() } else { format!("{provider}/{model}") }))
        }
        (Some(model), None) => Ok(Some(model.clone())),
        (None, Some(provider)) => Err(CodecError::Other(format!(
            "provider {provider:?} alone cannot be applied: Letta Code records a model handle `provider/model` \
             per agent; give --model too"
        ))),
        (None, None) => {
            let Some(last) = settings.and_then(|s| str_of(s, "lastAgent")) else { return Ok(None) };
            let agent = read_json(target, &layout::agent_file(last))?;
            Ok(agent.as_ref().and_then(|a| str_of(a, "model")).map(str::to_string))
        }
    }
}

fn create<T: serde::Serialize>(path: String, value: &T) -> Operation {
    // Letta Code writes its JSON files with `JSON.stringify(value, null, 2)` and a newline.
    let mut bytes = serde_json::to_vec_pretty(value).expect("string keys only: serializes");
    bytes.push(b'\n');
    Operation::CreateFile(CreateFile { path, bytes })
}

fn list(target: &Dir, dir: &str) -> Result<Vec<trajhost_codec_sdk::fs::DirEntry>, CodecError> {
    match target.list(dir) {
        Ok(entries) => Ok(entries),
        Err(FsError::NotFound(_)) => Ok(Vec::new()),
        Err(e) => Err(io(dir, e)),
    }
}

fn read_json(target: &Dir, path: &str) -> Result<Option<Value>, CodecError> {
    match target.read_to_end(path, MAX_JSON_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| CodecError::Unsupported(format!("{path}: not JSON ({e}); unknown store file"))),
        Err(FsError::NotFound(_)) => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

fn io(path: &str, e: FsError) -> CodecError {
    CodecError::Io(format!("{path}: {e:?}"))
}

/// The files made, fields in the order Letta Code 0.25.9 writes them.
mod out {
    use serde::Serialize;

    #[derive(Serialize)]
    pub struct Manifest<'a> {
        pub schema_version: u64,
        pub message_format: &'a str,
        pub provider_stack: &'a str,
        pub created_at: &'a str,
    }

    #[derive(Serialize)]
    pub struct Agent<'a> {
        pub id: &'a str,
        pub name: &'a str,
        pub description: &'a str,
        pub system: &'a str,
        pub tags: &'a [&'a str],
        #[serde(skip_serializing_if = "Option::is_none")]
        pub model: Option<&'a str>,
        pub model_settings: Empty,
    }

    #[derive(Serialize)]
    pub struct Empty {}
}
