//! The testkit's conformance suite over the hand-built Cursor home
//! (fixtures/cursor/2026.10.01, see tests/support/fixture.rs), as
//! conformance.json says: two chats and an ACP session kept as AgentKv
//! stores (SQLite databases of content-addressed blobs, spans their rows)
//! and an agent transcript mirror (spans its lines), each a scenario of the
//! one home.
//! A written chat keeps its id; prepare creates its stores (databases) in a
//! home where cursor-agent is installed.

use trajhost_codec_cursor::Cursor;
use trajhost_codec_testkit::suite::{Suite, apply_plan};

const SUITE: Suite = Suite { table: include_str!("conformance.json"), apply: apply_plan, ..Suite::DEFAULT };

trajhost_codec_testkit::conformance_suite!(
    Cursor,
    SUITE,
    scenarios {
        a_chat_of_turns_thinking_mcp_and_shell: "chat",
        a_chat_only_in_its_archive: "archive-only",
        an_acp_session_of_field_one: "acp-only",
        an_agent_transcript: "transcript",
    }
);
