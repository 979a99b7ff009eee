//! `prepare`: the plan that puts a written block where Aider restores it,
//! `<cwd>/.aider.chat.history.md`.
//!
//! Aider keeps no store in HOME: the history lies in the workspace, and
//! `aider --restore-chat-history` run there restores every block of it as
//! one conversation. The plan's paths are relative to the target home, so
//! the working directory (`options.cwd`) must lie in it; without one, the
//! target directory itself is the workspace.
//!
//! Aider appends a block per run, and so does `prepare`: where the
//! workspace has no history, the plan creates it (`create-file`); where it
//! has one, the plan appends the written `# aider chat started at` block
//! after it (`append-file`, API 0.3.0), with the length and sha256 of the
//! history as read here through the target directory, so the host refuses
//! the append if Aider (or anyone) changed the file since: the existing
//! bytes stay an untouched prefix, never rewritten. A history that already
//! holds the same block (the same export installed before) is refused
//! rather than given a copy. The new block's id depends on where it starts
//! in the file ([`session::native_id`]), so the plan names the id the block
//! has once appended: the one `discover` gives it there.
//!
//! Budget: Aider has the model summarize a restored history larger than its
//! chat-history budget before it sends anything (1,024 tokens for a model it
//! does not know, at most 8,192), and the summary replaces the history. A
//! converted session is restored to be continued, so the resume command
//! raises the budget (`--max-chat-history-tokens`) to the history's size in
//! bytes, rounded up to 1,024 (a token is at least a byte), whenever the
//! history could exceed the smallest budget. Leave the flag out to let Aider
//! summarize a history larger than the model's context.
//!
//! Model: Aider takes it from its command line, so a chosen model becomes
//! `--model` in the resume command; a provider is part of Aider's model
//! name (`openai/gpt-4o`) and is refused on its own.

use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::writer::install::{self, ResumeCommand};
use trajhost_codec_sdk::{Artifact, CodecError, Plan, WriteOptions};

use crate::history::{self, FILE};
use crate::session;

/// Largest history accepted.
const MAX_ARTIFACT_BYTES: usize = 512 << 20;

/// The user's choice of model and provider for the target (`--model`,
/// `--provider`), as the SDK gives it.
pub use trajhost_codec_sdk::target::TargetChoice as Choice;

pub fn prepare(
    artifacts: Vec<Artifact>,
    target: &Dir,
    options: &WriteOptions,
    choice: &Choice,
) -> Result<Plan, CodecError> {
    if choice.provider.is_some() {
        return Err(CodecError::Other(
            "Aider names the provider in the model (`--model openai/<name>`): leave --provider out".into(),
        ));
    }
    let [artifact] = <[Artifact; 1]>::try_from(artifacts)
        .map_err(|all| CodecError::Malformed(format!("an Aider export is one {FILE}, not {} artifacts", all.len())))?;
    install::check_size(&artifact, MAX_ARTIFACT_BYTES)?;
    if artifact.path != FILE {
        return Err(CodecError::Malformed(format!(
            "artifact {:?} is not an Aider chat history ({FILE})",
            artifact.path
        )));
    }
    let text = String::from_utf8(artifact.bytes)
        .map_err(|_| CodecError::Malformed(format!("{FILE}: the history is not UTF-8")))?;
    let blocks = history::blocks(&text);
    let [block] = blocks.as_slice() else {
        return Err(CodecError::Malformed(format!(
            "{FILE}: the export holds {} blocks, not one session",
            blocks.len()
        )));
    };
    if block.offset != 1 || !history::messages(block).iter().any(|m| m.kind == history::Kind::User) {
        return Err(CodecError::Malformed(format!(
            "{FILE}: not one written session with a user message (nothing for Aider to restore)"
        )));
    }
    let id = session::native_id(FILE, block);
    install::check_requested_id(&id, options)?;
    // No working directory: the target directory itself is the workspace.
    let home = options.home_path.as_deref().map(|h| h.trim_end_matches('/'));
    let cwd = options.cwd.as_deref().filter(|c| !c.is_empty()).or(home).ok_or_else(|| {
        CodecError::Other("Aider keeps its history in the workspace: give the working directory (--cwd)".into())
    })?;
    let cwd = if cwd.len() > 1 { cwd.trim_end_matches('/') } else { cwd };
    let path = history_path(options.home_path.as_deref(), cwd)?;
    let (native_id, history_bytes, operation) = match install::read_existing(target, &path, session::MAX_BYTES)? {
        None => (id, text.len(), install::create_file(path, text.into_bytes())),
        Some(current) => {
            let installed = appended_id(&current, &text, block.text)
                .map_err(|problem| CodecError::Other(format!("{cwd}/{FILE}: {problem}")))?;
            (installed, current.len() + text.len(), install::append_file(path, &current, text.into_bytes()))
        }
    };
    let command = resume_command(cwd, options.home_path.as_deref(), choice.model.as_deref(), history_bytes);
    Ok(Plan { native_id, operations: vec![operation], resume_command: Some(command) })
}

/// The id the written block (`block`, all of `text`) has once appended to
/// a history holding `current`, as `discover` reads the file then; an
/// error says why it must not be appended (the same block is there).
pub fn appended_id(current: &[u8], text: &str, block: &str) -> Result<String, String> {
    let current = trajhost_codec_sdk::text::lossy(current.to_vec());
    if history::blocks(&current).iter().any(|b| b.text.trim_end() == block.trim_end()) {
        return Err("the history already holds this session (the same `# aider chat started at` block); it is \
                    not appended twice"
            .into());
    }
    let after = format!("{current}{text}");
    match history::blocks(&after).last() {
        Some(last) if last.text == block => Ok(session::native_id(FILE, last)),
        _ => Err("the written block would not read back as the history's last block once appended".into()),
    }
}

/// `<cwd>/.aider.chat.history.md` relative to the target home, for a `cwd`
/// inside it.
pub fn history_path(home: Option<&str>, cwd: &str) -> Result<String, CodecError> {
    let home = home.map(|h| h.trim_end_matches('/')).ok_or_else(|| {
        CodecError::Other("Aider's history goes into the workspace: the target home's path is needed".into())
    })?;
    if cwd == home {
        return Ok(FILE.into());
    }
    match cwd.strip_prefix(home).and_then(|rest| rest.strip_prefix('/')) {
        Some(rel) if trajhost_codec_sdk::paths::is_relative_below(rel) => Ok(format!("{rel}/{FILE}")),
        _ => Err(CodecError::Other(format!(
            "the working directory {cwd} is not inside the target home {home}: Aider's history lies in the \
             workspace, and a plan writes only below the home"
        ))),
    }
}

/// Aider's smallest chat-history budget, in tokens (a model it does not know).
const SMALLEST_HISTORY_BUDGET: usize = 1024;

/// `cd <cwd> && [HOME=<home>] aider [--model <model>] [--max-chat-history-tokens <n>] --restore-chat-history`,
/// for a history of `history_bytes` once installed.
pub fn resume_command(cwd: &str, home: Option<&str>, model: Option<&str>, history_bytes: usize) -> String {
    let budget = (history_bytes > SMALLEST_HISTORY_BUDGET)
        .then(|| history_bytes.div_ceil(SMALLEST_HISTORY_BUDGET) * SMALLEST_HISTORY_BUDGET)
        .map(|tokens| tokens.to_string());
    ResumeCommand::in_dir(Some(cwd))
        .env("HOME", home.map(|h| h.trim_end_matches('/')))
        .program("aider")
        .option("--model", model)
        .option("--max-chat-history-tokens", budget.as_deref())
        .arg("--restore-chat-history")
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "\n# aider chat started at 2026-12-01 10:00:00\n\n#### first  \n\nfirst answer\n\n";
    const NEW: &str = "\n# aider chat started at 2026-12-07 12:00:00\n\n#### second  \n\nsecond answer\n\n";

    #[test]
    fn an_appended_block_has_the_id_discover_gives_it_after_the_old_ones() {
        let blocks = history::blocks(NEW);
        let id = appended_id(OLD.as_bytes(), NEW, blocks[0].text).unwrap();
        let after = format!("{OLD}{NEW}");
        let all = history::blocks(&after);
        assert_eq!(all.len(), 2);
        assert_eq!(id, session::native_id(FILE, &all[1]));
        // Not the id the block has alone (it starts later in the file).
        assert_ne!(id, session::native_id(FILE, &blocks[0]));
        // The same block again is refused.
        let again = appended_id(after.as_bytes(), NEW, blocks[0].text).unwrap_err();
        assert!(again.contains("not appended twice"), "{again}");
        // A history without a final newline still ends before the new header.
        let torn = "\n# aider chat started at 2026-12-01 10:00:00\n\n#### first";
        let id = appended_id(torn.as_bytes(), NEW, blocks[0].text).unwrap();
        assert_eq!(history::blocks(&format!("{torn}{NEW}")).len(), 2);
        assert!(id.starts_with("20261207T120000-"), "{id}");
    }

    #[test]
    fn paths_and_commands() {
        assert_eq!(history_path(Some("/h/"), "/h/w").unwrap(), "w/.aider.chat.history.md");
        assert_eq!(history_path(Some("/h"), "/h").unwrap(), FILE);
        assert!(history_path(Some("/h"), "/hx/w").is_err());
        assert!(history_path(Some("/h"), "/h/../etc").is_err());
        assert!(history_path(None, "/h/w").is_err());
        assert_eq!(resume_command("/w p", Some("/h/"), None, 900), "cd '/w p' && HOME=/h aider --restore-chat-history");
        assert_eq!(
            resume_command("/w", None, Some("openai/m"), 1024),
            "cd /w && aider --model openai/m --restore-chat-history"
        );
        // Larger than the smallest budget: raised to the size, in whole KiB.
        assert_eq!(
            resume_command("/w", None, None, 1025),
            "cd /w && aider --max-chat-history-tokens 2048 --restore-chat-history"
        );
    }
}
