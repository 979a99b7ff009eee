//! Harness homes that the environment moves out of `$HOME`.
//!
//! Codex keeps its home in `$CODEX_HOME` when that is set, Claude Code its
//! config dir in `$CLAUDE_CONFIG_DIR`. Discovery of the
//! process's own home must still find those sessions, so the host shows the
//! directory to the codecs inside the home under a name the harness's codec
//! already treats as a home (`.codex-<name>`). Homes that resolve to a
//! directory the codec looks at anyway are not shown twice.

use std::ffi::OsString;
use std::path::Path;

use crate::segment_matches;
use trajhost_runtime::{HomeMounts, Mount};

/// One environment variable that names a harness home.
struct EnvironmentHome {
    variable: &'static str,
    /// The name the directory appears under, inside `$HOME`.
    shown_as: &'static str,
    /// Where the harness's codec looks by itself (relative to `$HOME`, `*`
    /// within a segment): a variable pointing there needs no mount.
    seen_at: &'static [&'static str],
}

const ENVIRONMENT_HOMES: &[EnvironmentHome] = &[
    EnvironmentHome {
        variable: "CODEX_HOME",
        shown_as: ".codex-$CODEX_HOME",
        seen_at: &[".codex", ".codex-*", ".config/agent-accounts/codex/*"],
    },
    // Claude Code's config dir (`projects/` inside it), one per account.
    EnvironmentHome {
        variable: "CLAUDE_CONFIG_DIR",
        shown_as: ".claude-$CLAUDE_CONFIG_DIR",
        seen_at: &[".claude", ".claude-*", ".config/claude"],
    },
];

/// The mounts for the process's own `home`, from `env` (the process
/// environment, or a test's).
pub fn environment_mounts(home: &Path, env: impl Fn(&str) -> Option<OsString>) -> HomeMounts {
    let mut mounts = HomeMounts::default();
    let Ok(home) = std::fs::canonicalize(home) else { return mounts };
    for known in ENVIRONMENT_HOMES {
        let Some(value) = env(known.variable).filter(|v| !v.is_empty()) else { continue };
        let target = match std::fs::canonicalize(&value) {
            Ok(target) if target.is_dir() => target,
            _ => {
                tracing::warn!("{}={}: not a directory; its sessions are not listed", known.variable, value.display());
                continue;
            }
        };
        if seen_anyway(&home, &target, known.seen_at) {
            continue;
        }
        tracing::debug!("{}={}: shown to codecs as {}", known.variable, target.display(), known.shown_as);
        mounts.add(&home, Mount { name: known.shown_as.to_string(), target });
    }
    mounts
}

fn seen_anyway(home: &Path, target: &Path, seen_at: &[&str]) -> bool {
    let Ok(relative) = target.strip_prefix(home) else { return false };
    let segments: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    seen_at.iter().any(|glob| {
        let pattern: Vec<&str> = glob.split('/').collect();
        pattern.len() == segments.len() && pattern.iter().zip(&segments).all(|(p, s)| segment_matches(p, s))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_home_outside_home_is_mounted_once() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        for dir in ["home/.codex", "home/.codex-work", "elsewhere/codex"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let with = |value: &Path| {
            let value = value.as_os_str().to_owned();
            environment_mounts(&home, move |v| (v == "CODEX_HOME").then(|| value.clone()))
        };
        let outside = with(&root.path().join("elsewhere/codex"));
        assert_eq!(
            outside.host_path(&home, ".codex-$CODEX_HOME/sessions/x.jsonl"),
            std::fs::canonicalize(root.path().join("elsewhere/codex")).unwrap().join("sessions/x.jsonl")
        );
        // Inside the home where the codec looks anyway: nothing to add.
        for seen in ["home/.codex", "home/.codex-work"] {
            let mounts = with(&root.path().join(seen));
            assert_eq!(mounts.host_path(&home, ".codex-$CODEX_HOME/a"), home.join(".codex-$CODEX_HOME/a"));
        }
    }
}
