//! Where Qwen Code keeps sessions under a home directory.
//!
//! ```text
//! ~/.qwen/projects/<cwd with [^a-zA-Z0-9] → "-">/chats/<sessionId>.jsonl   transcript
//! ~/.qwen/projects/<cwd with [^a-zA-Z0-9] → "-">/chats/<sessionId>.runtime.json
//! ~/.qwen/tmp/<sha256(project root)>/chats/<sessionId>.jsonl              older builds
//! ~/.qwen/tmp/<sha256(project root)>/<tool>_<id>.output                   full output of a truncated tool result
//! ```

use trajhost_codec_sdk::CodecError;
pub use trajhost_codec_sdk::paths::{join, plain_name as plain_file_name};

/// Project roots relative to the home, in the order they are searched.
pub const ROOTS: [&str; 2] = [".qwen/projects", ".qwen/tmp"];
/// Sessions directory inside a project directory.
pub const CHATS: &str = "chats";
/// Extension of transcript files.
pub const JSONL: &str = ".jsonl";
/// The runtime state beside a transcript (`<sessionId>.runtime.json`): no
/// conversation of its own.
pub const RUNTIME_JSON: &str = ".runtime.json";
/// The Qwen Code directory, relative to the home.
pub const QWEN_DIR: &str = ".qwen";

/// The paths of one session file, relative to the home.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// The file stem: the session id.
    pub native_id: String,
}

impl SessionPaths {
    /// Splits a locator `<root>/<project>/chats/<sessionId>.jsonl`.
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        if !trajhost_codec_sdk::paths::is_relative_below(locator) {
            return Err(bad("not a relative path below the home"));
        }
        let rest = ROOTS
            .iter()
            .find_map(|root| locator.strip_prefix(root).and_then(|r| r.strip_prefix('/')))
            .ok_or_else(|| bad("not under .qwen/projects or .qwen/tmp"))?;
        let parts: Vec<&str> = rest.split('/').collect();
        let [_, chats, file] = parts.as_slice() else {
            return Err(bad("not <project>/chats/<file>"));
        };
        let stem = file.strip_suffix(JSONL).filter(|s| !s.is_empty());
        let (true, Some(stem)) = (*chats == CHATS, stem) else {
            return Err(bad("not a chats/<sessionId>.jsonl file"));
        };
        Ok(SessionPaths { locator: locator.to_string(), native_id: stem.to_string() })
    }

    /// Settles the session id with the `sessionId` the records carry: a
    /// stem that is a UUID (Qwen Code names files by it) wins, `true` when
    /// the content disagrees; any other stem (a renamed copy) gives way.
    pub fn identify(&mut self, content_id: Option<&str>) -> bool {
        trajhost_codec_sdk::discovery::identify_uuid_named(&mut self.native_id, content_id)
    }
}

/// The spilled output a truncated tool result names by its absolute path
/// in the original home: `<anything>/.qwen/<rest>` becomes `.qwen/<rest>`
/// when every segment of `<rest>` is a plain name.
pub fn spilled_output(recorded_path: &str) -> Option<String> {
    let marker = format!("/{QWEN_DIR}/");
    let start = recorded_path.rfind(&marker)? + marker.len();
    let rest = recorded_path[start..].trim();
    let segments: Vec<&str> = rest.split('/').collect();
    if segments.len() > 4 || !segments.iter().all(|s| plain_file_name(s)) {
        return None;
    }
    Some(join(QWEN_DIR, rest))
}

/// Where Qwen Code writes a session's transcript, relative to the home.
pub const WRITE_ROOT: &str = ".qwen/projects";

/// The project directory name of `cwd`: every UTF-16 code unit that is not
/// an ASCII letter or digit becomes `-` (Qwen Code's `sanitizeCwd`, a
/// JavaScript `replace(/[^a-zA-Z0-9]/g, "-")`, so a character outside the
/// BMP gives two).
pub fn project_name(cwd: &str) -> String {
    let mut name = String::with_capacity(cwd.len());
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            name.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    name
}

/// `.qwen/projects/<project name>/chats`.
pub fn chats_dir(cwd: &str) -> String {
    join(&join(WRITE_ROOT, &project_name(cwd)), CHATS)
}

/// `.qwen/projects/<project name>/chats/<id>.jsonl`.
pub fn session_path(cwd: &str, id: &str) -> String {
    join(&chats_dir(cwd), &format!("{id}{JSONL}"))
}

/// A POSIX absolute path, or a Windows drive path.
pub fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/'))
}
