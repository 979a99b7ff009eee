//! Where Claude Code keeps sessions under a home directory.
//!
//! ```text
//! ~/.claude/projects/<cwd-slug>/<sessionId>.jsonl          main transcript
//! ~/.claude/projects/<cwd-slug>/<sessionId>/subagents/agent-<agentId>.jsonl
//! ~/.claude/projects/<cwd-slug>/<sessionId>/subagents/agent-<agentId>.meta.json
//! ~/.claude/projects/<cwd-slug>/<sessionId>/tool-results/<id>.txt  spilled outputs
//! ~/.claude/projects/<cwd-slug>/agent-<agentId>.jsonl      subagents of older builds
//! ```
//! Some installs use `~/.config/claude` instead of `~/.claude`. People with
//! several accounts keep one config dir per account (`CLAUDE_CONFIG_DIR=
//! ~/.claude-work`): every sibling `~/.claude-<name>` is searched the same way.

use trajhost_codec_sdk::CodecError;
use trajhost_codec_sdk::discovery::{self, FileProblems};
pub use trajhost_codec_sdk::paths::{join, plain_name as plain_file_name};

/// Project roots relative to the home, in the order they are searched.
pub const PROJECT_ROOTS: [&str; 2] = [".claude/projects", ".config/claude/projects"];
/// Prefix of a sibling config dir (`.claude-<name>`, one per account).
pub const SIBLING_PREFIX: &str = ".claude-";

/// Every project root under `home`: [`PROJECT_ROOTS`], then the
/// `projects/` of each sibling config dir.
pub fn project_roots(home: &trajhost_codec_sdk::fs::Dir, problems: &mut FileProblems) -> Vec<String> {
    let mut roots: Vec<String> = PROJECT_ROOTS.iter().map(|r| r.to_string()).collect();
    for entry in discovery::list(home, "", problems).unwrap_or_default() {
        let sibling = entry.name.strip_prefix(SIBLING_PREFIX).is_some_and(|n| !n.is_empty());
        if sibling && entry.is_dir() {
            roots.push(join(&entry.name, "projects"));
        }
    }
    roots
}

/// Where Claude Code 2.x writes sessions (the default `CLAUDE_CONFIG_DIR`).
pub const WRITE_ROOT: &str = PROJECT_ROOTS[0];
/// Longest project directory name before it is cut and hashed.
pub const MAX_PROJECT_DIR_CHARS: usize = 200;

/// Extension of transcript files.
pub const JSONL: &str = ".jsonl";
/// Prefix of subagent transcript files.
pub const AGENT_PREFIX: &str = "agent-";
/// The per-session directory holding subagent transcripts.
pub const SUBAGENTS: &str = "subagents";
/// The per-session directory holding spilled tool outputs.
pub const TOOL_RESULTS: &str = "tool-results";

/// The paths around one session file, all relative to the home.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionPaths {
    /// The transcript, as the host passed it.
    pub locator: String,
    /// `<project-dir>`, the directory holding the main transcript.
    pub project_dir: String,
    /// The session id: the file stem of a main transcript, the agent id of
    /// a subagent's.
    pub native_id: String,
    /// `<project-dir>/<sessionId>`, the main session's sibling directory
    /// (for a subagent: its parent's).
    pub session_dir: String,
    /// Set for a subagent transcript (`agent-<agentId>.jsonl`).
    pub subagent: Option<Subagent>,
}

/// Where a subagent transcript lies.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Subagent {
    /// `<project-dir>/<sessionId>/subagents/agent-<id>.jsonl` (2.1.x).
    InSessionDir,
    /// `<project-dir>/agent-<id>.jsonl` (older builds): the parent is
    /// known only from the `sessionId` its lines carry.
    Legacy,
}

impl SessionPaths {
    /// Splits a locator `<project-dir>/<sessionId>.jsonl`, or a subagent's
    /// `<project-dir>/<sessionId>/subagents/agent-<id>.jsonl` /
    /// `<project-dir>/agent-<id>.jsonl`.
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let bad = |why: &str| CodecError::NotFound(format!("locator {locator:?}: {why}"));
        let stem = locator.strip_suffix(JSONL).ok_or_else(|| bad("not a .jsonl file"))?;
        if locator.starts_with('/') || locator.split('/').any(|c| c == ".." || c.is_empty()) {
            return Err(bad("not a relative path below the home"));
        }
        let (dir, name) = match locator.rsplit_once('/') {
            Some((dir, name)) => (dir, name),
            None => ("", locator),
        };
        if let Some(agent) = agent_id(name) {
            // A subagent transcript: in `<session>/subagents/`, or loose in
            // the project directory.
            // `<session>/subagents/agent-*.jsonl`, or deeper below it
            // (`subagents/workflows/<runId>/…`).
            let in_session_dir = subagents_owner(dir);
            let (project_dir, session_dir, kind) = match in_session_dir {
                Some(session_dir) => {
                    let project = session_dir.rsplit_once('/').map_or("", |(p, _)| p);
                    (project.to_string(), session_dir.to_string(), Subagent::InSessionDir)
                }
                None => (dir.to_string(), stem.to_string(), Subagent::Legacy),
            };
            return Ok(SessionPaths {
                locator: locator.to_string(),
                project_dir,
                native_id: agent.to_string(),
                session_dir,
                subagent: Some(kind),
            });
        }
        let native_id = stem.rsplit_once('/').map_or(stem, |(_, id)| id).to_string();
        if native_id.is_empty() {
            return Err(bad("no session id in the file name"));
        }
        Ok(SessionPaths {
            locator: locator.to_string(),
            project_dir: dir.to_string(),
            native_id,
            session_dir: stem.to_string(),
            subagent: None,
        })
    }

    /// Settles the session id from the ids the content carries. A main
    /// transcript is named by its session id, so a stem that is one wins
    /// (true is returned when the content disagrees); a stem that is not
    /// (a renamed copy) gives way to the content's id. A subagent is its
    /// `agentId` (its lines' `sessionId` is the parent's); the parent's
    /// session directory of a legacy file follows from that `sessionId`.
    pub fn identify(&mut self, content_id: Option<&str>, content_agent: Option<&str>) -> bool {
        match self.subagent {
            Some(ref kind) => {
                if *kind == Subagent::Legacy
                    && let Some(parent) = content_id.filter(|p| plain_file_name(p))
                {
                    self.session_dir = join(&self.project_dir, parent);
                }
                match content_agent.filter(|a| !a.is_empty()) {
                    Some(agent) if agent != self.native_id => {
                        self.native_id = agent.to_string();
                        true
                    }
                    _ => false,
                }
            }
            None => {
                let (id, mismatch) = trajhost_codec_sdk::discovery::identify(
                    &self.native_id,
                    is_session_id(&self.native_id),
                    content_id,
                );
                self.native_id = id;
                mismatch
            }
        }
    }

    /// `agent-<agentId>.meta.json` beside a subagent transcript.
    pub fn agent_meta_json(&self) -> Option<String> {
        self.subagent.as_ref()?;
        let stem = self.locator.strip_suffix(JSONL)?;
        Some(format!("{stem}.meta.json"))
    }

    /// `<project-dir>/<name>`.
    pub fn in_project(&self, name: &str) -> String {
        join(&self.project_dir, name)
    }

    /// `<session-dir>/subagents`.
    pub fn subagents_dir(&self) -> String {
        join(&self.session_dir, SUBAGENTS)
    }

    /// `<session-dir>/tool-results/<name>`.
    pub fn tool_result(&self, name: &str) -> String {
        join(&join(&self.session_dir, TOOL_RESULTS), name)
    }
}

/// The project directory name Claude Code keys a working directory by:
/// every UTF-16 code unit outside `[a-zA-Z0-9]` becomes `-` (the CLI runs
/// `cwd.replace(/[^a-zA-Z0-9]/g, "-")` on a JavaScript string, so a
/// character outside the BMP becomes two dashes); a name longer than 200
/// is cut to 200 and `-<hash>` appended, the hash being
/// `Math.abs(h).toString(36)` of the 32-bit `h = (h << 5) - h + unit` over
/// the UTF-16 code units of the original cwd (read from the 2.1.197
/// binary: functions `$E`/`fNu`/`jCe`).
pub fn project_dir_name(cwd: &str) -> String {
    let mut name = String::with_capacity(cwd.len());
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                name.push('-');
            }
        }
    }
    if name.len() <= MAX_PROJECT_DIR_CHARS {
        return name;
    }
    let mut h: i32 = 0;
    for unit in cwd.encode_utf16() {
        h = (h << 5).wrapping_sub(h).wrapping_add(i32::from(unit));
    }
    name.truncate(MAX_PROJECT_DIR_CHARS);
    name.push('-');
    name.push_str(&base36(u64::from(h.unsigned_abs())));
    name
}

/// `.claude/projects/<project-dir-name(cwd)>`.
pub fn project_dir(cwd: &str) -> String {
    join(WRITE_ROOT, &project_dir_name(cwd))
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// A Claude Code session id: a UUID, lowercase hex.
pub fn is_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
        })
}

/// The session directory a directory inside `<session>/subagents/` belongs
/// to: the part of `dir` before its last `/subagents` component.
fn subagents_owner(dir: &str) -> Option<&str> {
    let components: Vec<&str> = dir.split('/').collect();
    let at = components.iter().rposition(|c| *c == SUBAGENTS).filter(|at| *at > 0)?;
    let len = components[..at].iter().map(|c| c.len() + 1).sum::<usize>() - 1;
    Some(&dir[..len])
}

/// The agent id of a subagent file name `agent-<id>.jsonl`.
pub fn agent_id(file_name: &str) -> Option<&str> {
    file_name.strip_prefix(AGENT_PREFIX)?.strip_suffix(JSONL).filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locators_of_main_and_subagent_transcripts() {
        let p = SessionPaths::from_locator(".claude/projects/-w/s1.jsonl").unwrap();
        assert_eq!(
            (p.project_dir.as_str(), p.native_id.as_str(), p.session_dir.as_str()),
            (".claude/projects/-w", "s1", ".claude/projects/-w/s1")
        );
        assert_eq!(p.subagent, None);
        let p = SessionPaths::from_locator(".claude/projects/-w/s1/subagents/agent-ab.jsonl").unwrap();
        assert_eq!(
            (p.project_dir.as_str(), p.native_id.as_str(), p.session_dir.as_str()),
            (".claude/projects/-w", "ab", ".claude/projects/-w/s1")
        );
        assert_eq!(p.subagent, Some(Subagent::InSessionDir));
        assert_eq!(p.agent_meta_json().as_deref(), Some(".claude/projects/-w/s1/subagents/agent-ab.meta.json"));
        let p = SessionPaths::from_locator(".claude/projects/-w/s1/subagents/workflows/r1/agent-cd.jsonl").unwrap();
        assert_eq!((p.session_dir.as_str(), p.native_id.as_str()), (".claude/projects/-w/s1", "cd"));
        let mut p = SessionPaths::from_locator(".claude/projects/-w/agent-ef.jsonl").unwrap();
        assert_eq!(p.subagent, Some(Subagent::Legacy));
        assert!(!p.identify(Some("s2"), Some("ef")));
        assert_eq!(p.session_dir, ".claude/projects/-w/s2");
        assert!(p.identify(Some("s2"), Some("gh")), "the content's agentId wins");
        assert_eq!(p.native_id, "gh");
        let p = SessionPaths::from_locator("agent-ij.jsonl").unwrap();
        assert_eq!((p.project_dir.as_str(), p.native_id.as_str()), ("", "ij"));
    }
}
