//! `append-file`: bytes written after the end of an existing file, only
//! while the file still has the length and sha256 the codec saw.
//!
//! The bytes are staged in a temporary file beside the target (so a
//! roll-forward has them after a kill), then written at the original end
//! through one descriptor opened without following links, after checking
//! through that same descriptor that the original bytes are unchanged. A
//! file is never rewritten: its original bytes stay an untouched prefix, and
//! undoing an append truncates the file back to its original length, only
//! when what follows that length is this install's bytes (or a torn part of
//! them).

use std::fs::File;
use std::io::Read as _;
use std::os::unix::fs::FileExt as _;
use std::path::Path;

use sha2::Digest as _;

use super::error::{InstallError, Result};
use super::journal::AppendStep;
use super::{files, pause_point};

/// Where a file stands relative to an append step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Progress {
    /// The original bytes, nothing after them.
    Original,
    /// The original bytes, then the first `n` of the appended bytes (a
    /// write a kill tore).
    Partial(u64),
    /// The original bytes, then all the appended bytes (and possibly what
    /// someone appended later).
    Done,
    /// Not the file the step was planned against any more.
    Changed(String),
}

/// Whether `s` is a lowercase hex sha256.
pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Opens `path` for reading (and writing) without following a link.
pub(crate) fn open(path: &Path, write: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new().read(true).write(write).custom_flags(libc::O_NOFOLLOW).open(path)
}

/// The lowercase hex sha256 of the first `len` bytes of `file` (which has
/// at least that many).
pub(crate) fn digest_prefix(file: &File, len: u64) -> std::io::Result<String> {
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut offset = 0u64;
    while offset < len {
        let want = buffer.len().min((len - offset) as usize);
        let n = file.read_at(&mut buffer[..want], offset)?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file got shorter while read"));
        }
        hasher.update(&buffer[..n]);
        offset += n as u64;
    }
    Ok(hex::encode(hasher.finalize()))
}

/// The length and sha256 of a whole file, read through `file`.
pub(crate) fn snapshot(file: &File) -> std::io::Result<(u64, String)> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let len = meta.len();
    Ok((len, digest_prefix(file, len)?))
}

/// Where `file` stands relative to `step`. `staged` are the appended bytes
/// when known (the staged temporary file); without them the appended part
/// is recognized by its recorded length and sha256 only once complete.
pub(crate) fn progress(file: &File, step: &AppendStep, staged: Option<&[u8]>) -> std::io::Result<Progress> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Progress::Changed("it is no longer a regular file".into()));
    }
    let len = meta.len();
    if len < step.original_length {
        return Ok(Progress::Changed(format!(
            "it has {len} bytes, fewer than the {} it had when the install was planned",
            step.original_length
        )));
    }
    if digest_prefix(file, step.original_length)? != step.original_sha256 {
        return Ok(Progress::Changed(format!(
            "its first {} bytes are not those the install was planned against",
            step.original_length
        )));
    }
    let tail_len = len - step.original_length;
    if tail_len == 0 {
        return Ok(Progress::Original);
    }
    let compared = tail_len.min(step.length);
    let mut tail = vec![0u8; compared as usize];
    file.read_exact_at(&mut tail, step.original_length)?;
    let ours = match staged {
        Some(staged) => staged.get(..compared as usize) == Some(&tail[..]),
        None => compared == step.length && crate::sha256_hex(&tail) == step.sha256,
    };
    Ok(match (ours, tail_len >= step.length) {
        (true, true) => Progress::Done,
        (true, false) => Progress::Partial(tail_len),
        (false, _) => {
            Progress::Changed(format!("other bytes were added after its original {} bytes", step.original_length))
        }
    })
}

/// Checks, at validation and just before the committing marker, that
/// `path` still has `length` bytes with sha256 `sha256`.
pub(crate) fn check_expected(path: &Path, length: u64, sha256: &str) -> Result<()> {
    let file = open(path, false).map_err(|e| InstallError::io(path, e))?;
    let (len, digest) = snapshot(&file).map_err(|e| InstallError::io(path, e))?;
    if len != length {
        return Err(InstallError::AppendChanged {
            path: path.to_path_buf(),
            message: format!("it has {len} bytes, not the {length} the codec saw (it changed since the plan was made)"),
        });
    }
    if digest != sha256 {
        return Err(InstallError::AppendChanged {
            path: path.to_path_buf(),
            message: format!(
                "its sha256 is {digest}, not the {sha256} the codec saw (it changed since the plan was made)"
            ),
        });
    }
    Ok(())
}

/// The commit step of an install in progress: the file must still be as
/// planned (else [`InstallError::AppendChanged`], nothing written); the
/// bytes go after its end and are fsynced.
pub(crate) fn commit(step: &AppendStep, bytes: &[u8]) -> Result<()> {
    let file = open(&step.target, true).map_err(|e| InstallError::io(&step.target, e))?;
    match progress(&file, step, Some(bytes)).map_err(|e| InstallError::io(&step.target, e))? {
        Progress::Original => write_from(&file, step, bytes, 0),
        Progress::Changed(message) => Err(InstallError::AppendChanged { path: step.target.clone(), message }),
        // Not ours: this install has not written yet.
        Progress::Partial(_) | Progress::Done => Err(InstallError::AppendChanged {
            path: step.target.clone(),
            message: "bytes were added after its end since the plan was made".into(),
        }),
    }
}

/// Writes `bytes[done..]` at `original_length + done`, in two halves with
/// the `append-partial` test point between, and fsyncs.
fn write_from(file: &File, step: &AppendStep, bytes: &[u8], done: u64) -> Result<()> {
    let io = |e| InstallError::io(&step.target, e);
    let rest = &bytes[done as usize..];
    let half = rest.len() / 2;
    let at = step.original_length + done;
    file.write_all_at(&rest[..half], at).map_err(io)?;
    pause_point("append-partial");
    file.write_all_at(&rest[half..], at + half as u64).map_err(io)?;
    file.sync_all().map_err(io)
}

/// The staged bytes of a step, if its temporary file is still there.
fn staged(step: &AppendStep) -> std::io::Result<Option<Vec<u8>>> {
    let mut file = match open(&step.temp, false) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// How a roll-forward of an append went.
pub(crate) enum Finished {
    Appended,
    /// The file changed since; left alone.
    Conflict(String),
}

/// Roll-forward: completes the append, idempotently (nothing when the
/// bytes are there, the rest of a torn write), then removes the staged
/// file. A staged file that is gone means the install finished.
pub(crate) fn roll_forward(step: &AppendStep) -> Result<Finished> {
    let io = |path: &Path, e| InstallError::io(path, e);
    let Some(bytes) = staged(step).map_err(|e| io(&step.temp, e))? else { return Ok(Finished::Appended) };
    if bytes.len() as u64 != step.length || crate::sha256_hex(&bytes) != step.sha256 {
        // A staged file a kill tore before the committing marker cannot be
        // here: the journal says committing only after it was fsynced.
        return Err(InstallError::Journal {
            path: step.temp.clone(),
            message: "the staged bytes to append are not those the journal recorded".into(),
        });
    }
    let file = match open(&step.target, true) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            files::remove_if_exists(&step.temp).map_err(|e| io(&step.temp, e))?;
            return Ok(Finished::Conflict(format!(
                "{} disappeared before the install completed; nothing was appended",
                step.target.display()
            )));
        }
        Err(e) => return Err(io(&step.target, e)),
    };
    let outcome = match progress(&file, step, Some(&bytes)).map_err(|e| io(&step.target, e))? {
        Progress::Original => write_from(&file, step, &bytes, 0).map(|()| Finished::Appended)?,
        Progress::Partial(done) => write_from(&file, step, &bytes, done).map(|()| Finished::Appended)?,
        Progress::Done => Finished::Appended,
        Progress::Changed(message) => Finished::Conflict(format!(
            "{}: {message} before the install completed; nothing was appended",
            step.target.display()
        )),
    };
    files::remove_if_exists(&step.temp).map_err(|e| io(&step.temp, e))?;
    Ok(outcome)
}

/// Undoes an append: truncates the file back to its original length when
/// what follows is this install's bytes (all or a torn part), and removes
/// the staged file. Returns what could not be undone.
pub(crate) fn roll_back(step: &AppendStep) -> Option<String> {
    let bytes = match staged(step) {
        Ok(bytes) => bytes,
        Err(e) => return Some(format!("cannot read {}: {e}", step.temp.display())),
    };
    let problem = match open(&step.target, true) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(format!("cannot open {}: {e}", step.target.display())),
        Ok(file) => match progress(&file, step, bytes.as_deref()) {
            Ok(Progress::Original) => None,
            Ok(Progress::Partial(_)) => truncate(&file, step),
            Ok(Progress::Done) => match file.metadata() {
                Ok(meta) if meta.len() == step.original_length + step.length => truncate(&file, step),
                Ok(_) => Some(format!(
                    "{}: bytes were added after this install's; the appended bytes were left in place",
                    step.target.display()
                )),
                Err(e) => Some(format!("cannot stat {}: {e}", step.target.display())),
            },
            // Not ours to undo.
            Ok(Progress::Changed(_)) => None,
            Err(e) => Some(format!("cannot read {}: {e}", step.target.display())),
        },
    };
    if let Err(e) = files::remove_if_exists(&step.temp) {
        return Some(format!("cannot remove {}: {e}", step.temp.display()));
    }
    problem
}

fn truncate(file: &File, step: &AppendStep) -> Option<String> {
    match file.set_len(step.original_length).and_then(|()| file.sync_all()) {
        Ok(()) => None,
        Err(e) => {
            Some(format!("cannot truncate {} back to {} bytes: {e}", step.target.display(), step.original_length))
        }
    }
}
