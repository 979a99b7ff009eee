//! Where fx keeps a session (`profile_paths.zig`, `session_layout.zig`) and
//! the names it accepts: session ids (`validateSessionId`) and result
//! handles (`validateHandle`).
//!
//! ```text
//! ~/.fx/sessions/<id>/session.json          schema 1/2 snapshot, schema-4 header or schema-3 manifest
//! ~/.fx/sessions/<id>/events.jsonl          conversation frames (schema 4)
//! ~/.fx/sessions/<id>/tool-results/<handle> stored tool-result bodies (schema 4)
//! ```

use trajhost_codec_sdk::CodecError;

/// The sessions directory under a home.
pub const SESSIONS: &str = ".fx/sessions";
/// The per-session document.
pub const SESSION_JSON: &str = "session.json";
/// The conversation log beside a schema-4 header.
pub const EVENTS: &str = "events.jsonl";
/// Stored tool-result bodies.
pub const TOOL_RESULTS: &str = "tool-results";

/// Entries of `~/.fx/sessions` that are not sessions, passed over on
/// purpose: the experimental v2 store, the retired `latest/` pointers, the
/// pre-0.0.8 indexes and the recovery staging area (B1).
pub const NOT_SESSIONS: &[&str] =
    &["v2", "latest", "list.json", "summary.json", "recovery+staging", "recovery-staging", "recovery-staging.lock"];

/// Whether `id` is a session id fx accepts: 1–255 bytes of
/// `[A-Za-z0-9._-]`, not `.` or `..`, not `v2` (any case).
pub fn is_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 255
        && id != "."
        && id != ".."
        && !id.eq_ignore_ascii_case("v2")
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Whether `handle` is a result handle fx accepts: 1–160 bytes of
/// `[A-Za-z0-9._-]` without `..` (so it stays inside `tool-results/`).
pub fn is_handle(handle: &str) -> bool {
    !handle.is_empty()
        && handle.len() <= 160
        && !handle.contains("..")
        && handle.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// `.fx/sessions/<id>/session.json`.
pub fn session_json(id: &str) -> String {
    format!("{SESSIONS}/{id}/{SESSION_JSON}")
}

/// The session directory of a locator (`…/<id>/session.json`) and its last
/// segment (the id fx resumes by). A loose `session.json` has `""`.
pub fn session_dir(locator: &str) -> Result<(&str, &str), CodecError> {
    let dir = match locator.rsplit_once('/') {
        Some((dir, name)) if name == SESSION_JSON => dir,
        None if locator == SESSION_JSON => "",
        _ => {
            return Err(CodecError::NotFound(format!("{locator}: an fx session is named by its {SESSION_JSON}")));
        }
    };
    if !dir.is_empty() && !trajhost_codec_sdk::paths::is_relative_below(dir) {
        return Err(CodecError::NotFound(format!("{locator}: not a relative path below the home")));
    }
    Ok((dir, dir.rsplit('/').next().unwrap_or(dir)))
}

/// `dir/name` (`name` when `dir` is empty).
pub fn join(dir: &str, name: &str) -> String {
    trajhost_codec_sdk::paths::join(dir, name)
}

/// A session id of fx 0.0.13's shape (`generateSessionId`): 12 characters
/// of URL-safe base64 without padding of 9 bytes, here the first 9 bytes of
/// `seed` (the sandbox has no randomness).
pub fn generated_id(seed: &[u8; 32]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(12);
    for chunk in seed[..9].chunks(3) {
        let n = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
        for shift in [18, 12, 6, 0] {
            out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_handles() {
        for good in ["execution-ownership", "1700000000000-12-0123456789abcdef", "aB3_-x.Yz09q", "V2x"] {
            assert!(is_session_id(good), "{good}");
        }
        for bad in ["", ".", "..", "v2", "V2", "a/b", "a b", "é", &"x".repeat(256)] {
            assert!(!is_session_id(bad), "{bad:?}");
        }
        assert!(is_handle("result-read_file-0123456789abcdef-fedcba9876543210.txt"));
        for bad in ["", "a/b", "..x", "a..b", &"x".repeat(161)] {
            assert!(!is_handle(bad), "{bad:?}");
        }
        let id = generated_id(&[0xff; 32]);
        assert_eq!(id, "____________");
        assert!(generated_id(&[0xf8; 32]).starts_with('-'), "write re-derives such ids");
        assert!(is_session_id(&generated_id(&[7; 32])));
        assert_eq!(generated_id(&[0; 32]), "AAAAAAAAAAAA");
    }

    #[test]
    fn session_dirs() {
        assert_eq!(session_dir(".fx/sessions/abc/session.json").unwrap(), (".fx/sessions/abc", "abc"));
        assert_eq!(session_dir("session.json").unwrap(), ("", ""));
        assert!(session_dir(".fx/sessions/abc/events.jsonl").is_err());
        assert!(session_dir("/abs/session.json").is_err());
    }
}
