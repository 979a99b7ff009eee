//! Validation: every rule checked against the home before anything
//! changes, producing the resolved plan that staging applies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::{InstallError, Result};
use super::{
    AppendedFile, Applied, CreatedDatabase, InstallOp, InstallPlan, JsonEntryOutcome, SqlValue, TableRows, append,
    json, paths, sqlite,
};

/// A new file and where its bytes come from.
pub(crate) struct NewFile<'p> {
    pub target: PathBuf,
    pub content: Content<'p>,
}

pub enum Content<'p> {
    Bytes(&'p [u8]),
    Copy(&'p Path),
    Database { schema: &'p [String], user_version: Option<i64>, tables: &'p [TableRows] },
}

/// Rows for an existing database (one transaction).
pub(crate) struct DatabaseInserts<'p> {
    pub path: PathBuf,
    pub inserts: Vec<sqlite::Insert<'p>>,
}

/// A JSON file that changes.
pub(crate) struct JsonFile {
    pub target: PathBuf,
    /// The bytes the new content was computed from; None: no file yet.
    pub base: Option<Vec<u8>>,
    pub initial: Option<String>,
    pub entries: Vec<json::Entry>,
    pub new_text: String,
    pub mode: Option<u32>,
}

/// Bytes appended to an existing file that still has `original_length`
/// bytes with `original_sha256`.
pub(crate) struct AppendTo<'p> {
    pub target: PathBuf,
    pub bytes: &'p [u8],
    pub original_length: u64,
    pub original_sha256: String,
}

/// A validated plan, resolved against the home.
pub(crate) struct Checked<'p> {
    pub home: PathBuf,
    /// Directories to create, parents first.
    pub dirs: Vec<PathBuf>,
    pub files: Vec<NewFile<'p>>,
    pub databases: Vec<DatabaseInserts<'p>>,
    pub json: Vec<JsonFile>,
    pub appends: Vec<AppendTo<'p>>,
    pub applied: Applied,
}

/// Checks `plan` against `home` without changing anything, and says what
/// executing it would do.
pub fn validate(plan: &InstallPlan, home: &Path) -> Result<Applied> {
    check(plan, home).map(|checked| checked.applied)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Claim {
    NewFile,
    Database,
    Json,
    Append,
}

fn check_rows(path: &Path, table: &str, columns: &[String], rows: &[Vec<SqlValue>]) -> Result<()> {
    for name in std::iter::once(table).chain(columns.iter().map(String::as_str)) {
        if !paths::is_identifier(name) {
            return Err(InstallError::InvalidIdentifier { path: path.to_path_buf(), name: name.to_string() });
        }
    }
    if columns.is_empty() {
        return Err(InstallError::sqlite(
            path,
            format!("the plan inserts into {table} without naming a column (nothing was changed)"),
        ));
    }
    if let Some(row) = rows.iter().find(|r| r.len() != columns.len()) {
        return Err(InstallError::RowWidth {
            path: path.to_path_buf(),
            table: table.to_string(),
            found: row.len(),
            expected: columns.len(),
        });
    }
    Ok(())
}

pub fn check<'p>(plan: &'p InstallPlan, home: &Path) -> Result<Checked<'p>> {
    let home = paths::home(home)?;
    let mut claims: BTreeMap<PathBuf, Claim> = BTreeMap::new();
    let mut claim = |path: &Path, kind: Claim| -> Result<()> {
        match claims.get(path) {
            Some(existing) if *existing == kind && !matches!(kind, Claim::NewFile | Claim::Append) => Ok(()),
            Some(_) => Err(InstallError::Conflict {
                path: path.to_path_buf(),
                message: "the plan writes this path twice".into(),
            }),
            None => {
                claims.insert(path.to_path_buf(), kind);
                Ok(())
            }
        }
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut add_dirs = |missing: &[PathBuf]| {
        for dir in missing {
            if !dirs.contains(dir) {
                dirs.push(dir.clone());
            }
        }
    };
    let mut checked_files = Vec::new();
    let mut databases: Vec<DatabaseInserts<'p>> = Vec::new();
    let mut json_files: Vec<JsonFile> = Vec::new();
    let mut appends: Vec<AppendTo<'p>> = Vec::new();
    let mut applied = Applied::default();

    for op in &plan.operations {
        match op {
            InstallOp::CreateFile { path, bytes } => {
                let resolved = paths::for_create(&home, path)?;
                claim(&resolved.abs, Claim::NewFile)?;
                add_dirs(&resolved.missing_dirs);
                applied.created_files.push(resolved.abs.clone());
                checked_files.push(NewFile { target: resolved.abs, content: Content::Bytes(bytes) });
            }
            InstallOp::CopyFile { source, path } => {
                let resolved = paths::for_create(&home, path)?;
                if !source.is_absolute() {
                    return Err(InstallError::Source {
                        path: source.clone(),
                        message: "must be an absolute path".into(),
                    });
                }
                match std::fs::metadata(source) {
                    Ok(meta) if meta.is_file() => {}
                    Ok(_) => {
                        return Err(InstallError::Source {
                            path: source.clone(),
                            message: "is not a regular file".into(),
                        });
                    }
                    Err(e) => {
                        return Err(InstallError::Source {
                            path: source.clone(),
                            message: format!("cannot be read: {e}"),
                        });
                    }
                }
                claim(&resolved.abs, Claim::NewFile)?;
                add_dirs(&resolved.missing_dirs);
                applied.created_files.push(resolved.abs.clone());
                checked_files.push(NewFile { target: resolved.abs, content: Content::Copy(source) });
            }
            InstallOp::CreateDatabase { path, schema, user_version, tables } => {
                let resolved = paths::for_create(&home, path)?;
                for table in tables {
                    check_rows(&resolved.abs, &table.table, &table.columns, &table.rows)?;
                }
                let rows = sqlite::check_new(&resolved.abs, schema, *user_version, tables)?;
                claim(&resolved.abs, Claim::NewFile)?;
                add_dirs(&resolved.missing_dirs);
                applied.created_databases.push(CreatedDatabase { path: resolved.abs.clone(), rows });
                checked_files.push(NewFile {
                    target: resolved.abs,
                    content: Content::Database { schema, user_version: *user_version, tables },
                });
            }
            InstallOp::InsertRows { database, table, columns, rows } => {
                let resolved = paths::for_file(&home, database)?;
                if resolved.existing.is_none() {
                    return Err(InstallError::MissingDatabase(resolved.abs));
                }
                check_rows(&resolved.abs, table, columns, rows)?;
                sqlite::check_existing(&resolved.abs, table, columns)?;
                claim(&resolved.abs, Claim::Database)?;
                applied.inserted_rows.push((resolved.abs.clone(), table.clone(), rows.len()));
                if rows.is_empty() {
                    continue;
                }
                let insert = sqlite::Insert { table, columns, rows };
                match databases.iter_mut().find(|d| d.path == resolved.abs) {
                    Some(db) => db.inserts.push(insert),
                    None => databases.push(DatabaseInserts { path: resolved.abs, inserts: vec![insert] }),
                }
            }
            InstallOp::AppendFile { path, bytes, expect_length, expect_sha256 } => {
                let resolved = paths::for_file(&home, path)?;
                if resolved.existing.is_none() {
                    return Err(InstallError::AppendMissing(resolved.abs));
                }
                if !append::is_sha256_hex(expect_sha256) {
                    return Err(InstallError::AppendDigest { path: resolved.abs, found: expect_sha256.clone() });
                }
                append::check_expected(&resolved.abs, *expect_length, expect_sha256)?;
                claim(&resolved.abs, Claim::Append)?;
                applied.appended_files.push(AppendedFile {
                    path: resolved.abs.clone(),
                    original_length: *expect_length,
                    appended: bytes.len() as u64,
                });
                if !bytes.is_empty() {
                    appends.push(AppendTo {
                        target: resolved.abs,
                        bytes,
                        original_length: *expect_length,
                        original_sha256: expect_sha256.clone(),
                    });
                }
            }
            InstallOp::AddJsonEntry { path, pointer, key, match_member, value, initial } => {
                let resolved = paths::for_file(&home, path)?;
                claim(&resolved.abs, Claim::Json)?;
                let entry = json::Entry {
                    pointer: pointer.clone(),
                    key: key.clone(),
                    match_member: match_member.clone(),
                    value: value.clone(),
                };
                let index = match json_files.iter().position(|f| f.target == resolved.abs) {
                    Some(index) => index,
                    None => {
                        let (base, text, mode) = match &resolved.existing {
                            Some(meta) => {
                                let bytes =
                                    std::fs::read(&resolved.abs).map_err(|e| InstallError::io(&resolved.abs, e))?;
                                let text = String::from_utf8(bytes.clone()).map_err(|_| InstallError::JsonInvalid {
                                    path: resolved.abs.clone(),
                                    what: "the file",
                                    message: "not UTF-8".into(),
                                })?;
                                json::check_document(&resolved.abs, &text, "the file")?;
                                use std::os::unix::fs::PermissionsExt;
                                (Some(bytes), text, Some(meta.permissions().mode() & 0o7777))
                            }
                            None => {
                                let Some(initial) = initial else {
                                    return Err(InstallError::JsonMissing(resolved.abs));
                                };
                                json::check_document(&resolved.abs, initial, "the initial document")?;
                                add_dirs(&resolved.missing_dirs);
                                (None, initial.clone(), None)
                            }
                        };
                        json_files.push(JsonFile {
                            target: resolved.abs.clone(),
                            base,
                            initial: initial.clone(),
                            entries: Vec::new(),
                            new_text: text,
                            mode,
                        });
                        json_files.len() - 1
                    }
                };
                let file = &mut json_files[index];
                let added = match json::add_entry(&resolved.abs, &file.new_text, &entry)? {
                    Some(text) => {
                        file.new_text = text;
                        true
                    }
                    None => false,
                };
                file.entries.push(entry);
                applied.json_entries.push(JsonEntryOutcome {
                    path: resolved.abs,
                    pointer: pointer.clone(),
                    key: key.clone(),
                    added,
                    created_file: file.base.is_none(),
                });
            }
        }
    }

    // A file the plan creates cannot also be a directory another path needs.
    for path in claims.keys() {
        for ancestor in path.ancestors().skip(1).take_while(|a| a.starts_with(&home) && *a != home) {
            if claims.contains_key(ancestor) {
                return Err(InstallError::Conflict {
                    path: ancestor.to_path_buf(),
                    message: format!(
                        "the plan writes this path as a file and needs it as the directory of {}",
                        path.display()
                    ),
                });
            }
        }
    }

    // A JSON file whose every entry was already there is not rewritten.
    json_files.retain(|f| f.base.is_none() || f.base.as_deref() != Some(f.new_text.as_bytes()));
    Ok(Checked { home, dirs, files: checked_files, databases, json: json_files, appends, applied })
}
