//! The private dir an archive is unpacked into, and every check a member
//! passes before anything is created there.

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::SystemTime;

use crate::{Limits, Refusal, Skipped, UnpackError};

/// One member, as the format reader saw it.
pub(crate) enum Member<'r> {
    Dir,
    File(&'r mut dyn Read),
    Symlink(String),
    HardLink(Vec<u8>),
    /// A device or FIFO ("character device", …).
    Special(&'static str),
    /// Metadata the format keeps as a member (a pax global header): not a file.
    Metadata(&'static str),
    Unsupported(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Other,
}

pub(crate) struct Sink<'l> {
    archive: PathBuf,
    root: PathBuf,
    limits: &'l Limits,
    /// Bytes of the archive read so far, kept by the format reader.
    pub(crate) read: Rc<Cell<u64>>,
    entries: u64,
    bytes: u64,
    skipped: Vec<Skipped>,
    seen: HashMap<String, Kind>,
}

pub(crate) fn make_private(dir: &Path) -> io::Result<()> {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
}

impl<'l> Sink<'l> {
    pub(crate) fn new(archive: &Path, root: &Path, limits: &'l Limits) -> Self {
        Sink {
            archive: archive.to_path_buf(),
            root: root.to_path_buf(),
            limits,
            read: Rc::new(Cell::new(0)),
            entries: 0,
            bytes: 0,
            skipped: Vec::new(),
            seen: HashMap::new(),
        }
    }

    pub(crate) fn finish(self) -> (u64, u64, Vec<Skipped>) {
        (self.entries, self.bytes, self.skipped)
    }

    pub(crate) fn corrupt(&self, offset: u64, detail: impl ToString) -> UnpackError {
        UnpackError::Corrupt { archive: self.archive.clone(), offset, detail: detail.to_string() }
    }

    fn refuse(&self, entry: &str, reason: Refusal) -> UnpackError {
        UnpackError::Refused { archive: self.archive.clone(), entry: entry.to_string(), reason }
    }

    /// Checks a member and creates it. `offset` is where its header starts.
    pub(crate) fn add(
        &mut self,
        raw_name: &[u8],
        member: Member<'_>,
        mtime: Option<SystemTime>,
        offset: u64,
    ) -> Result<(), UnpackError> {
        self.entries += 1;
        let shown = String::from_utf8_lossy(raw_name).into_owned();
        if self.entries > self.limits.max_entries {
            return Err(self.refuse(&shown, Refusal::TooManyEntries(self.limits.max_entries)));
        }
        let name = match self.check_name(raw_name) {
            Ok(Some(name)) => name,
            // `./` and the like: the root itself.
            Ok(None) if matches!(member, Member::Dir | Member::Metadata(_)) => return Ok(()),
            Ok(None) => return Err(self.refuse(&shown, Refusal::EmptyName)),
            Err(reason) => return Err(self.refuse(&shown, reason)),
        };
        match member {
            Member::Metadata(what) => {
                self.skipped.push(Skipped { name, reason: what.to_string() });
                Ok(())
            }
            Member::Symlink(target) => {
                self.claim(&name, Kind::Other)?;
                let target: String = target.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
                self.skipped
                    .push(Skipped { name, reason: format!("symbolic link to {target}: links are not followed") });
                Ok(())
            }
            Member::Special(what) => Err(self.refuse(&name, Refusal::SpecialFile(what))),
            Member::Unsupported(what) => Err(self.refuse(&name, Refusal::Unsupported(what))),
            Member::Dir => {
                if self.seen.get(&name) == Some(&Kind::Dir) {
                    return Ok(());
                }
                self.claim(&name, Kind::Dir)?;
                let path = self.root.join(&name);
                fs::create_dir_all(&path).map_err(|e| UnpackError::io(&path, e))
            }
            Member::File(reader) => {
                self.claim(&name, Kind::File)?;
                self.write_file(&name, reader, mtime, offset)
            }
            Member::HardLink(raw_target) => {
                let target = match self.check_name(&raw_target) {
                    Ok(Some(target)) if self.seen.get(&target) == Some(&Kind::File) => target,
                    _ => {
                        let shown = String::from_utf8_lossy(&raw_target).into_owned();
                        return Err(self.refuse(&name, Refusal::HardLinkOutside(shown)));
                    }
                };
                self.claim(&name, Kind::File)?;
                let source = self.root.join(&target);
                let mut file = fs::File::open(&source).map_err(|e| UnpackError::io(&source, e))?;
                self.write_file(&name, &mut file, mtime, offset)
            }
        }
    }

    /// The member's name made relative and checked; None for the root itself.
    fn check_name(&self, raw: &[u8]) -> Result<Option<String>, Refusal> {
        let text = std::str::from_utf8(raw).map_err(|_| Refusal::NotUtf8)?;
        if text.chars().any(char::is_control) {
            return Err(Refusal::ControlCharacter);
        }
        // Windows zips separate with `\`; no session file name holds one.
        let text = text.replace('\\', "/");
        let bytes = text.as_bytes();
        if text.starts_with('/') || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':') {
            return Err(Refusal::Absolute);
        }
        let mut parts = Vec::new();
        for part in text.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(Refusal::ParentComponent),
                part => parts.push(part),
            }
        }
        if parts.is_empty() {
            return Ok(None);
        }
        let name = parts.join("/");
        if name.len() > self.limits.max_path_bytes {
            return Err(Refusal::PathTooLong(name.len(), self.limits.max_path_bytes));
        }
        if parts.len() > self.limits.max_depth {
            return Err(Refusal::TooDeep(parts.len(), self.limits.max_depth));
        }
        Ok(Some(name))
    }

    /// Records `name`; refuses a second member of that name, or one below a file.
    fn claim(&mut self, name: &str, kind: Kind) -> Result<(), UnpackError> {
        if self.seen.contains_key(name) {
            return Err(self.refuse(name, Refusal::Duplicate));
        }
        let mut parent = name;
        while let Some((up, _)) = parent.rsplit_once('/') {
            match self.seen.get(up) {
                Some(Kind::Dir) => break,
                Some(_) => return Err(self.refuse(name, Refusal::ParentIsFile)),
                None => {
                    self.seen.insert(up.to_string(), Kind::Dir);
                }
            }
            parent = up;
        }
        self.seen.insert(name.to_string(), kind);
        Ok(())
    }

    fn write_file(
        &mut self,
        name: &str,
        reader: &mut dyn Read,
        mtime: Option<SystemTime>,
        offset: u64,
    ) -> Result<(), UnpackError> {
        let path = self.root.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| UnpackError::io(parent, e))?;
        }
        // create_new: never through a link, never over anything.
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| UnpackError::io(&path, e))?;
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let at = self.read.get().max(offset);
                    return Err(self.corrupt(at, format!("member {}: {e}", name)));
                }
            };
            self.bytes += n as u64;
            self.check_size(name)?;
            out.write_all(&buf[..n]).map_err(|e| UnpackError::io(&path, e))?;
        }
        if let Some(mtime) = mtime {
            // The codecs may date a session by its file's time, as in the unpacked folder.
            let _ = out.set_modified(mtime);
        }
        Ok(())
    }

    fn check_size(&self, name: &str) -> Result<(), UnpackError> {
        let limits = self.limits;
        if self.bytes > limits.max_total_bytes {
            return Err(self.refuse(name, Refusal::TooLarge(limits.max_total_bytes)));
        }
        let read = self.read.get().max(1);
        if self.bytes > limits.ratio_floor && self.bytes / read > limits.max_ratio {
            return Err(self.refuse(name, Refusal::Bomb { ratio: limits.max_ratio, read }));
        }
        Ok(())
    }
}
