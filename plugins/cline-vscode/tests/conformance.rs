//! The testkit's conformance suite over the hand-written Cline VS Code
//! task folders (fixtures/cline/vscode and fixtures/cline/vscode-text-results),
//! as conformance.json says: each task of one home is a scenario with its
//! own editor folder, cwd and Cline version. A task's history is one JSON
//! document (byte spans), its messages the raw records, typed by role.

use std::path::Path;

use serde_json::Value;
use trajhost_codec_cline_vscode::{ClineVscode, KNOWN_ROLES};
use trajhost_codec_testkit::suite::{Suite, role_member};

/// The messages of the task's API history.
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_slice(&std::fs::read(home.join(locator)).unwrap()).unwrap();
    doc.as_array().expect("an array of messages").clone()
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_ROLES,
    kind_of: role_member,
    raw: messages,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(
    ClineVscode,
    SUITE,
    scenarios {
        a_legacy_task_of_typed_prompts: "legacy",
        a_task_of_native_tool_calls: "native-calls",
        a_task_of_xml_tool_uses: "xml-tools",
        a_task_of_tool_result_blocks: "tool-result-blocks",
        a_task_of_text_results: "text-results",
    }
);
