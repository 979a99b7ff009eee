//! trajhost codec for the Cursor CLI (`cursor-agent`, tested with
//! 2026.10.01-e373342): reads the AgentKv chat stores
//! (`.cursor/chats/<md5(cwd)>/<id>/store.db`, `.cursor/acp-sessions/<id>/store.db`)
//! and the `agent-transcripts` JSONL mirrors, writes canonical sessions as
//! this codec's export file, and prepares them as the two `store.db` files
//! the CLI and its ACP server resume.
//!
//! Module map, following the native format:
//! - [`wire`]: the protobuf wire format (strict); [`decode`]: its error context;
//! - [`store`]: the `blobs` / `meta` container, sha256-checked blob ids;
//! - [`conversation`]: `ConversationStateStructure` (root), turns, `UserMessage`;
//! - [`steps`]: `ConversationStep`, `ToolCall`, `McpToolCall`, `google.protobuf.Value`;
//! - [`messages`]: the JSON message blobs of root field 1 and the prompt wrappers;
//! - [`session`]: one chat directory (store + `meta.json`) and its facts;
//! - [`read`]: the store reader; [`transcript`]: the agent-transcripts reader;
//! - [`discover`]; [`export`]: this codec's export file; [`write`]; [`prepare`].

pub mod conversation;
pub mod decode;
pub mod discover;
pub mod export;
pub mod messages;
pub mod prepare;
pub mod read;
pub mod session;
pub mod steps;
pub mod store;
pub mod target;
pub mod transcript;
pub mod wire;
pub mod write;

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{CodecError, ReadOptions, SessionWriter, WriteOptions};

/// The CLI build this codec was written and tested for.
pub const TESTED_VERSION: &str = "2026.10.01-e373342";

trajhost_codec_sdk::codec_identity! {
    /// The Cursor CLI codec.
    codec: Cursor,
    harness: "cursor",
    /// The one tested CLI version, 2026.10.01-e373342 (read leniently by the
    /// host as 2026.10.1; its prereleases are covered).
    native_versions: ">=2026.10.1, <2026.10.2",
    version_shows: "none: the AgentKv store records no CLI version",
    formats: reads(["cursor-agentkv", "cursor-agent-transcripts", "cursor-agentkv-export"])
        .writes(["cursor-agentkv-export"]),
    globs: discover::CONFIG_ROOTS
        .iter()
        .flat_map(|root| {
            [
                format!("{root}/chats/*/*/store.db"),
                format!("{root}/chats/*/*/{}", export::FILE_NAME),
                format!("{root}/acp-sessions/*/store.db"),
            ]
        })
        .chain([
            ".cursor/projects/*/agent-transcripts/*.jsonl".into(),
            ".cursor/projects/*/agent-transcripts/*/*.jsonl".into(),
        ]),
    reader: read::Reader,
    methods: { discover, inspect, sniff = transcript::sniff, prepare },
    impl {
        fn read(home: Dir, locator: &str, options: ReadOptions) -> Result<read::Reader, CodecError> {
            if locator.ends_with(".jsonl") && !locator.ends_with(export::FILE_NAME) {
                let r = transcript::TranscriptReader::open(&home, locator, &options)?;
                return Ok(read::Reader::Transcript(Box::new(r)));
            }
            Ok(read::Reader::Store(Box::new(read::StoreReader::open(&home, locator, &options)?)))
        }

        fn write(options: WriteOptions) -> Result<Box<dyn SessionWriter>, CodecError> {
            Ok(Box::new(write::Writer::new(options)?))
        }
    },
}
