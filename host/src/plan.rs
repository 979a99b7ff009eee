//! Executing a codec's install plan in a target home: validated first,
//! then applied all-or-nothing. The codec only describes; the host writes.
//!
//! Rules: paths stay inside the target home; a file that exists is never
//! overwritten (the whole plan is refused); rows go only into databases
//! that already exist, in one transaction per database, committed only
//! after every operation succeeded; on any failure created files and
//! directories are removed and transactions rolled back.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::error::{HostError, Result};
use crate::wit::latest::codec::{Operation, Plan};
use crate::capabilities::sqlite::to_sql;

/// What executing (or checking) a plan did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Applied {
    pub created_files: Vec<PathBuf>,
    /// (database, table, rows)
    pub inserted_rows: Vec<(PathBuf, String, usize)>,
}

fn plan_error(home: &Path, message: String) -> HostError {
    HostError::Io { path: home.to_path_buf(), message }
}

/// A relative, `/`-separated path that stays inside the home.
fn checked_relative(home: &Path, rel: &str) -> Result<PathBuf> {
    let path = Path::new(rel);
    if rel.is_empty() || rel.contains('\0') {
        return Err(plan_error(home, format!("plan names an invalid path {rel:?}")));
    }
    for component in path.components() {
        if !matches!(component, Component::Normal(_)) {
            return Err(plan_error(home, format!("plan path {rel:?} must be relative, without `..` or `.`")));
        }
    }
    Ok(home.join(path))
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Checks a plan against the target home without changing anything.
pub fn validate(plan: &Plan, home: &Path) -> Result<Applied> {
    let mut applied = Applied::default();
    let mut seen = std::collections::BTreeSet::new();
    for op in &plan.operations {
        match op {
            Operation::CreateFile(file) => {
                let path = checked_relative(home, &file.path)?;
                if path.symlink_metadata().is_ok() {
                    return Err(plan_error(
                        home,
                        format!("{} already exists; trajhost never overwrites a session (nothing was changed)", path.display()),
                    ));
                }
                if !seen.insert(path.clone()) {
                    return Err(plan_error(home, format!("plan creates {} twice", path.display())));
                }
                // Existing ancestors must be real directories inside the home.
                let mut ancestor = path.parent();
                while let Some(dir) = ancestor {
                    if dir == home {
                        break;
                    }
                    if let Ok(meta) = dir.symlink_metadata() {
                        if !meta.is_dir() {
                            return Err(plan_error(home, format!("{} is not a directory", dir.display())));
                        }
                    }
                    ancestor = dir.parent();
                }
                applied.created_files.push(path);
            }
            Operation::InsertRows(insert) => {
                let db = checked_relative(home, &insert.database)?;
                if !db.is_file() {
                    return Err(plan_error(home, format!("plan inserts into {}, which does not exist", db.display())));
                }
                if !is_identifier(&insert.table) || !insert.columns.iter().all(|c| is_identifier(c)) {
                    return Err(plan_error(home, format!("plan names an invalid table or column in {}", insert.table)));
                }
                if let Some(row) = insert.rows.iter().find(|r| r.len() != insert.columns.len()) {
                    return Err(plan_error(
                        home,
                        format!("a row for {} has {} values for {} columns", insert.table, row.len(), insert.columns.len()),
                    ));
                }
                applied.inserted_rows.push((db, insert.table.clone(), insert.rows.len()));
            }
            // Executed by the journaled installer (host/src/install).
            Operation::CopyArtifact(_) | Operation::CreateDatabase(_) | Operation::AddJsonEntry(_) => {
                return Err(plan_error(home, "this plan needs operations the installer does not apply yet".into()));
            }
        }
    }
    Ok(applied)
}


/// Undo log of a partially applied plan.
#[derive(Default)]
struct Undo {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Undo {
    fn roll_back(self) {
        for file in self.files.iter().rev() {
            if let Err(e) = std::fs::remove_file(file) {
                tracing::warn!("rollback: cannot remove {}: {e}", file.display());
            }
        }
        for dir in self.dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Validates, then applies the plan all-or-nothing.
pub fn execute(plan: &Plan, home: &Path) -> Result<Applied> {
    let applied = validate(plan, home)?;
    let mut undo = Undo::default();
    let result = apply(plan, home, &mut undo);
    match result {
        Ok(()) => Ok(applied),
        Err(error) => {
            undo.roll_back();
            Err(error)
        }
    }
}

fn apply(plan: &Plan, home: &Path, undo: &mut Undo) -> Result<()> {
    // Open every database and insert inside a transaction first: a schema or
    // constraint failure then leaves no files behind.
    let mut transactions = Vec::new();
    for op in &plan.operations {
        if let Operation::InsertRows(insert) = op {
            let db = checked_relative(home, &insert.database)?;
            let conn = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
                .map_err(|e| HostError::io(&db, e))?;
            conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(|e| HostError::io(&db, e))?;
            conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| HostError::io(&db, e))?;
            let sql = format!(
                "INSERT INTO \"{}\" ({}) VALUES ({})",
                insert.table,
                insert.columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
                vec!["?"; insert.columns.len()].join(", ")
            );
            {
                let mut stmt = conn.prepare(&sql).map_err(|e| HostError::io(&db, format!("{}: {e}", insert.table)))?;
                for row in &insert.rows {
                    stmt.execute(rusqlite::params_from_iter(row.iter().map(to_sql)))
                        .map_err(|e| HostError::io(&db, format!("inserting into {}: {e}", insert.table)))?;
                }
            }
            transactions.push((db, conn));
        }
    }
    for op in &plan.operations {
        if let Operation::CreateFile(file) = op {
            let path = checked_relative(home, &file.path)?;
            let mut missing = Vec::new();
            let mut dir = path.parent();
            while let Some(d) = dir {
                if d.exists() {
                    break;
                }
                missing.push(d.to_path_buf());
                dir = d.parent();
            }
            for d in missing.iter().rev() {
                std::fs::create_dir(d).map_err(|e| HostError::io(d, e))?;
                undo.dirs.push(d.clone());
            }
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| HostError::io(&path, e))?;
            undo.files.push(path.clone());
            out.write_all(&file.bytes).map_err(|e| HostError::io(&path, e))?;
            out.sync_all().map_err(|e| HostError::io(&path, e))?;
        }
    }
    for (db, conn) in transactions {
        conn.execute_batch("COMMIT").map_err(|e| HostError::io(&db, e))?;
    }
    Ok(())
}
