//! Where Kimi CLI keeps sessions under a home directory.
//!
//! ```text
//! ~/.kimi/kimi.json                                  {work_dirs:[{path, kaos, last_session_id}]}
//! ~/.kimi/sessions/<md5(work dir)>/<uuid>/context.jsonl    model context (main file)
//! ~/.kimi/sessions/<md5(work dir)>/<uuid>/context_<n>.jsonl rotated context (/clear, revert, compaction)
//! ~/.kimi/sessions/<md5(work dir)>/<uuid>/wire.jsonl       event log (timestamps, usage, tool outcomes)
//! ~/.kimi/sessions/<md5(work dir)>/<uuid>/state.json       {custom_title, …}
//! ~/.kimi/sessions/<md5(work dir)>/<uuid>/subagents/<agent_id>/{context.jsonl, wire.jsonl, meta.json}
//! ```
//! For work directories on a non-local KAOS backend the folder is `<kaos>_<md5>`.

use trajhost_codec_sdk::CodecError;

use trajhost_codec_sdk::paths::{bad_locator, folder_of};
pub use trajhost_codec_sdk::paths::{join, plain_name};

pub const SESSIONS: &str = ".kimi/sessions";
pub const METADATA: &str = ".kimi/kimi.json";
pub const CONTEXT: &str = "context.jsonl";
pub const WIRE: &str = "wire.jsonl";
pub const STATE: &str = "state.json";
pub const SUBAGENTS: &str = "subagents";
pub const AGENT_META: &str = "meta.json";
/// The KAOS backend of ordinary local work directories.
pub const LOCAL_KAOS: &str = "local";

/// The paths of one session, all relative to the home.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    /// `<session dir>/context.jsonl`, as the host passed it.
    pub locator: String,
    /// `.kimi/sessions/<work dir folder>/<uuid>`.
    pub session_dir: String,
    /// `<md5>` or `<kaos>_<md5>`.
    pub work_dir_folder: String,
    /// The session uuid (the folder name).
    pub native_id: String,
}

impl SessionPaths {
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let session_dir = folder_of(locator, CONTEXT, "a Kimi CLI context.jsonl")?;
        let (parent, native_id) =
            session_dir.rsplit_once('/').ok_or_else(|| bad_locator(locator, "no session folder"))?;
        let work_dir_folder = parent.rsplit_once('/').map_or(parent, |(_, f)| f);
        Ok(SessionPaths {
            locator: locator.to_string(),
            session_dir: session_dir.to_string(),
            work_dir_folder: work_dir_folder.to_string(),
            native_id: native_id.to_string(),
        })
    }

    pub fn in_session(&self, name: &str) -> String {
        join(&self.session_dir, name)
    }

    pub fn subagents_dir(&self) -> String {
        join(&self.session_dir, SUBAGENTS)
    }
}

/// `n` of a rotated context file `context_<n>.jsonl`.
pub fn rotation_index(name: &str) -> Option<u64> {
    let n = name.strip_prefix("context_")?.strip_suffix(".jsonl")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The session's context files in the order they were written: the rotated
/// `context_<n>.jsonl` by `n`, then `context.jsonl`.
pub fn context_files<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut rotated: Vec<(u64, String)> = names.filter_map(|n| rotation_index(n).map(|i| (i, n.to_string()))).collect();
    rotated.sort();
    let mut files: Vec<String> = rotated.into_iter().map(|(_, n)| n).collect();
    files.push(CONTEXT.to_string());
    files
}

/// The session folder name of a work directory, as Kimi CLI derives it.
pub fn work_dir_folder(path: &str, kaos: &str) -> String {
    let md5 = trajhost_codec_sdk::hash::md5_hex(path.as_bytes());
    if kaos == LOCAL_KAOS { md5 } else { format!("{kaos}_{md5}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_locators_and_orders_rotations() {
        let p = SessionPaths::from_locator(".kimi/sessions/abc/123/context.jsonl").unwrap();
        assert_eq!(
            (p.session_dir.as_str(), p.work_dir_folder.as_str(), p.native_id.as_str()),
            (".kimi/sessions/abc/123", "abc", "123")
        );
        assert!(SessionPaths::from_locator("../x/context.jsonl").is_err());
        assert!(SessionPaths::from_locator(".kimi/sessions/abc/123/wire.jsonl").is_err());
        let files = context_files(
            ["context_10.jsonl", "wire.jsonl", "context_2.jsonl", "context.jsonl", "context_x.jsonl"].into_iter(),
        );
        assert_eq!(files, ["context_2.jsonl", "context_10.jsonl", "context.jsonl"]);
        assert_eq!(work_dir_folder("/home/user/project", "local"), "90722f2638004be06d790eaac9ac1f8a");
        assert_eq!(work_dir_folder("/p", "ssh"), format!("ssh_{}", trajhost_codec_sdk::hash::md5_hex(b"/p")));
    }
}
