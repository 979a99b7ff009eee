//! `sniff`: a loose OpenCode session file (`Session.Info`):
//! `{"id": …, "projectID": …, "directory": …, "time": {"created": …}}`,
//! without the keys of a message (`role`), a part (`messageID`) or an
//! export document (`messages`, `info`).

use serde_json::Value;
use trajhost_codec_sdk::Sniffed;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let text = std::str::from_utf8(head).ok()?;
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    let obj = value.as_object()?;
    let id = obj.get("id")?.as_str().filter(|s| !s.is_empty())?;
    let has = |k: &str| obj.contains_key(k);
    let ok = has("projectID")
        && obj.get("time").is_some_and(Value::is_object)
        && !has("role")
        && !has("messageID")
        && !has("messages")
        && !has("info");
    ok.then(|| Sniffed {
        native_version: obj.get("version").and_then(Value::as_str).map(str::to_string),
        native_id: Some(id.to_string()),
    })
}
