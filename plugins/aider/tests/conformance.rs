//! The testkit's conformance suite over the histories the real Aider 0.86.2
//! wrote (fixtures/aider/0.86.2: simple, parallel, failing-tool, multibyte,
//! long-output; each home is the scenario's workspace, `project/`), as
//! conformance.json says. A session is one `# aider chat started at` block
//! of the markdown (byte spans); its raw records are its messages, typed
//! user / assistant / status. Aider has no tool calls, so the scenarios hold
//! none: the commands were `/run` lines, whose output the file never holds.

use std::path::Path;

use serde_json::{Value, json};
use trajhost_codec_aider::{Aider, KNOWN_LINES, history, session};
use trajhost_codec_testkit::suite::{Suite, role_member};

/// The block's messages, as `{role, text}` (the role: user, assistant or status).
fn messages(home: &Path, locator: &str) -> Vec<Value> {
    let (file, id) = session::split_locator(locator);
    let text = std::fs::read_to_string(home.join(file)).unwrap();
    let block = session::find(&text, file, id).unwrap();
    history::messages(&block).iter().map(|m| json!({"role": m.kind.name(), "text": m.text})).collect()
}

const SUITE: Suite = Suite {
    table: include_str!("conformance.json"),
    types: KNOWN_LINES,
    kind_of: role_member,
    raw: messages,
    ..Suite::DEFAULT
};

trajhost_codec_testkit::conformance_suite!(Aider, SUITE);
