//! Which version of a harness will resume a prepared session: `prepare`
//! writes for that version (it picks the writer) and is verified only for it.
//!
//! In order: the user's `--target-version`; the target home's own evidence
//! (the newest session its store holds, as that harness's codecs discover
//! it: the version it recorded, and the layout it is in); the harness's CLI
//! on `PATH` (`claude --version`, …), run here by the host, never by a
//! codec, under a short timeout, unless probing is off.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{self as inventory, SessionQuery};
use trajhost_registry::catalog::{Catalog, parse_native_version};

/// How long a `--version` probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Where a target version came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum VersionSource {
    /// `prepare --target-version`.
    Flag,
    /// `convert --to HARNESS@VERSION`, recorded in the export.
    Export,
    /// The newest session in the target home recorded it.
    HomeSession { path: PathBuf },
    /// The harness's CLI on `PATH` printed it.
    Cli { command: String },
}

/// The target's version as far as it can be known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TargetVersion {
    /// The native version, when known.
    pub version: Option<String>,
    /// Where it came from.
    pub from: Option<VersionSource>,
    /// The codec (id) whose layout the home's newest session is in: the
    /// writer for that layout, when the version is unknown.
    pub layout: Option<String>,
    /// The newest session the home holds, if any.
    pub newest_session: Option<PathBuf>,
}

impl TargetVersion {
    /// One phrase: `0.25.0 (from the newest session, /h/.gemini/…)`.
    pub fn describe(&self) -> String {
        match (&self.version, &self.from) {
            (Some(v), Some(VersionSource::Flag)) => format!("{v} (from --target-version)"),
            (Some(v), Some(VersionSource::Export)) => format!("{v} (chosen at convert: --to HARNESS@VERSION)"),
            (Some(v), Some(VersionSource::HomeSession { path })) => {
                format!("{v} (recorded by the home's newest session, {})", path.display())
            }
            (Some(v), Some(VersionSource::Cli { command })) => format!("{v} (from `{command}`)"),
            (Some(v), None) => v.clone(),
            (None, _) => "unknown (no --target-version, no session in the home records one, no CLI answered)".into(),
        }
    }
}

/// What to look at, besides the home.
#[derive(Debug, Clone, Default)]
pub struct Probe<'a> {
    /// `--target-version`.
    pub explicit: Option<&'a str>,
    /// The version `convert --to HARNESS@VERSION` recorded in the export.
    pub recorded: Option<&'a str>,
    /// Run the harness's CLI (`--no-probe` turns it off).
    pub run_cli: bool,
}

/// The version of `harness` that will resume sessions in `home`.
pub fn detect(catalog: &Catalog<'_>, harness: &str, home: &Path, probe: &Probe<'_>) -> TargetVersion {
    let mut found = TargetVersion::default();
    if let Some(home_evidence) = newest_session(catalog, harness, home) {
        found.layout = Some(home_evidence.discovered_by.clone());
        found.newest_session = Some(home_evidence.session.path.clone());
        if let Some(v) = home_evidence.session.native_version.as_deref().filter(|v| parse_native_version(v).is_some()) {
            found.version = Some(v.to_string());
            found.from = Some(VersionSource::HomeSession { path: home_evidence.session.path.clone() });
        }
    }
    let chosen = match (probe.explicit, probe.recorded) {
        (Some(v), _) => Some((v, VersionSource::Flag)),
        (None, Some(v)) => Some((v, VersionSource::Export)),
        (None, None) => None,
    };
    if let Some((v, from)) = chosen {
        found.version = Some(v.to_string());
        found.from = Some(from);
        return found;
    }
    if found.version.is_none()
        && probe.run_cli
        && let Some((command, version)) = cli_version(harness)
    {
        found.version = Some(version);
        found.from = Some(VersionSource::Cli { command });
    }
    found
}

/// The newest session of `harness` under `home`, if discovery finds one.
fn newest_session(catalog: &Catalog<'_>, harness: &str, home: &Path) -> Option<inventory::FoundSession> {
    let query = SessionQuery { home: home.to_path_buf(), harness: Some(harness.to_string()), cwd: None };
    match inventory::discover(catalog, &query) {
        Ok(found) => found.sessions.into_iter().next(),
        Err(error) => {
            tracing::warn!("cannot look for {harness} sessions in {}: {error}", home.display());
            None
        }
    }
}

/// The executable each lab harness installs (its `--version` prints the
/// version). A harness not listed is not probed.
pub fn cli_of(harness: &str) -> Option<&'static str> {
    Some(match harness {
        "claude-code" => "claude",
        "codex" => "codex",
        "opencode" => "opencode",
        "pi" => "pi",
        "oh-my-pi" => "omp",
        "gemini-cli" => "gemini",
        "qwen-code" => "qwen",
        "copilot-cli" => "copilot",
        "factory-droid" => "droid",
        "kimi-cli" => "kimi",
        "grok-build" => "grok",
        "letta-code" => "letta",
        "openhands" => "openhands",
        "hermes" => "hermes",
        "cline" => "cline",
        "deep-agents" => "dcode",
        "openclaw" => "openclaw",
        "cursor" => "cursor-agent",
        _ => return None,
    })
}

/// `<cli> --version` for `harness`, when its CLI is on `PATH` and prints a
/// version within [`PROBE_TIMEOUT`].
fn cli_version(harness: &str) -> Option<(String, String)> {
    let name = cli_of(harness)?;
    let program = find_on_path(name)?;
    let command = format!("{} --version", program.display());
    let output = run_with_timeout(Command::new(&program).arg("--version"), PROBE_TIMEOUT)?;
    let version = first_version(&output)?;
    tracing::debug!("{command} printed {version}");
    Some((command, version))
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|candidate| {
        std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// The child's stdout, if it exits within `timeout`; otherwise its process
/// group (its own, started here: a wrapper script's children go with it) is
/// killed and nothing is returned.
fn run_with_timeout(command: &mut Command, timeout: Duration) -> Option<String> {
    use std::os::unix::process::CommandExt;
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).process_group(0).spawn().ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let mut text = Vec::new();
        let _ = (&mut stdout).take(64 << 10).read_to_end(&mut text);
        text
    });
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < timeout => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                tracing::warn!("a version probe did not answer within {timeout:?}; it was stopped");
                if let Ok(pgid) = i32::try_from(child.id()) {
                    // SAFETY: signals the process group this function created.
                    unsafe { libc::kill(-pgid, libc::SIGKILL) };
                }
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    reader.join().ok().map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// The first `X.Y.Z` (with an optional prerelease) in `text`:
/// `2.1.197 (Claude Code)`, `codex-cli 0.171.0`, `v0.61.0`.
pub fn first_version(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')').find_map(|word| {
        let word = word.trim_start_matches(|c: char| !c.is_ascii_digit());
        let end =
            word.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+')).unwrap_or(word.len());
        let candidate = word[..end].trim_end_matches('.');
        (candidate.matches('.').count() >= 2 && semver::Version::parse(candidate).is_ok())
            .then(|| candidate.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_found_in_what_clis_print() {
        assert_eq!(first_version("2.1.197 (Claude Code)\n").as_deref(), Some("2.1.197"));
        assert_eq!(first_version("codex-cli 0.171.0\n").as_deref(), Some("0.171.0"));
        assert_eq!(first_version("v0.61.0").as_deref(), Some("0.61.0"));
        assert_eq!(first_version("GitHub Copilot CLI 0.0.354.\nRun 'copilot --help'").as_deref(), Some("0.0.354"));
        assert_eq!(first_version("kimi, version 1.51.0").as_deref(), Some("1.51.0"));
        assert_eq!(first_version("no version here 1.2").as_deref(), None);
    }

    #[test]
    fn a_slow_probe_is_stopped() {
        let started = Instant::now();
        let out = run_with_timeout(Command::new("sleep").arg("30"), Duration::from_millis(200));
        assert_eq!(out, None);
        assert!(started.elapsed() < Duration::from_secs(10));
        let out = run_with_timeout(Command::new("echo").arg("1.2.3"), Duration::from_secs(5));
        assert_eq!(out.as_deref(), Some("1.2.3\n"));
    }
}
