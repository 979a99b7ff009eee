//! Recovery of installs a kill interrupted: `staging` journals are rolled
//! back, `committing` journals rolled forward (see the module docs).

use std::path::{Path, PathBuf};

use super::error::Result;
use super::journal::{self, State};
use super::stage::{self, Placement};
use super::{files, pause_point};

/// One interrupted install that recovery finished.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Recovered {
    pub id: String,
    pub home: PathBuf,
    pub native_id: String,
    pub outcome: RecoveryOutcome,
    /// What could not be done (a target someone else created meanwhile, …).
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryOutcome {
    /// Killed while staging: the home is as it was before.
    RolledBack,
    /// Killed while committing: the install was completed.
    RolledForward,
    /// A step failed (for example a database stayed locked): the journal is
    /// kept and the next recovery tries again.
    Retrying,
}

/// Recovers every interrupted install journaled in `journal_dir`. Installs
/// still running (their lock is held) are left alone.
pub fn recover(journal_dir: &Path) -> Result<Vec<Recovered>> {
    let mut recovered = Vec::new();
    files::remove_stale_temps(journal_dir, std::time::Duration::from_secs(60));
    for id in journal::pending(journal_dir)? {
        let Some(_lock) = journal::try_lock(journal_dir, &id)? else {
            tracing::debug!("install {id} is running; not recovering it");
            continue;
        };
        let path = journal::journal_path(journal_dir, &id);
        if !path.exists() {
            // Killed before its journal was written: nothing was changed.
            journal::remove_journal(journal_dir, &id)?;
            continue;
        }
        let journal = match journal::read(&path) {
            Ok(journal) => journal,
            Err(error) => {
                tracing::warn!("{error}; left in place");
                continue;
            }
        };
        let (outcome, problems) = match journal.state {
            State::Staging => (RecoveryOutcome::RolledBack, stage::roll_back(&journal)),
            State::Committing => roll_forward(&journal),
        };
        if outcome != RecoveryOutcome::Retrying {
            journal::remove_journal(journal_dir, &id)?;
        }
        for problem in &problems {
            tracing::warn!("recovering install {id} into {}: {problem}", journal.home.display());
        }
        recovered.push(Recovered { id, home: journal.home, native_id: journal.native_id, outcome, problems });
    }
    Ok(recovered)
}

/// The commit steps again, each skipping what is already done.
fn roll_forward(journal: &journal::Journal) -> (RecoveryOutcome, Vec<String>) {
    let mut problems = Vec::new();
    let mut retry = false;
    for step in &journal.files {
        match stage::place_file(step) {
            Ok(Placement::Placed) => {}
            Ok(Placement::Conflict(problem)) => problems.push(problem),
            Err(error) => {
                retry = true;
                problems.push(error.to_string());
            }
        }
    }
    pause_point("recover-placed");
    for step in &journal.appends {
        match crate::append::roll_forward(step) {
            Ok(crate::append::Finished::Appended) => {}
            Ok(crate::append::Finished::Conflict(problem)) => problems.push(problem),
            Err(error) => {
                retry = true;
                problems.push(format!("{error} (will retry)"));
            }
        }
    }
    for step in &journal.databases {
        if let Err(error) = stage::finish_database(step) {
            retry = true;
            problems.push(format!("{error} (will retry)"));
        }
    }
    for step in &journal.json {
        if let Err(error) = stage::commit_json(step) {
            retry = true;
            problems.push(format!("{error} (will retry)"));
        }
    }
    stage::sync_parents(journal.files.iter().map(|f| &f.target).chain(journal.json.iter().map(|j| &j.target)));
    (if retry { RecoveryOutcome::Retrying } else { RecoveryOutcome::RolledForward }, problems)
}
