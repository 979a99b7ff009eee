use std::fmt;
use std::path::{Path, PathBuf};

/// Why an archive could not be opened. Every variant names the archive; those
/// about one member name it too (escaped: a hostile name cannot reach a
/// terminal raw).
#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a tar, tar.gz, tar.zst or zip archive", archive.display())]
    NotArchive { archive: PathBuf },
    #[error("{}: corrupt or truncated at byte {offset}: {detail}", archive.display())]
    Corrupt { archive: PathBuf, offset: u64, detail: String },
    #[error("{}: member {}: {reason}", archive.display(), Escaped(entry))]
    Refused { archive: PathBuf, entry: String, reason: Refusal },
}

/// What is wrong with one member.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("absolute path")]
    Absolute,
    #[error("`..` component")]
    ParentComponent,
    #[error("name is not valid UTF-8")]
    NotUtf8,
    #[error("name holds a control character")]
    ControlCharacter,
    #[error("name is empty")]
    EmptyName,
    #[error("name is {0} bytes, over the limit of {1}")]
    PathTooLong(usize, usize),
    #[error("name is {0} components deep, over the limit of {1}")]
    TooDeep(usize, usize),
    #[error("appears twice")]
    Duplicate,
    #[error("a parent of it is a file")]
    ParentIsFile,
    #[error("{0} (devices and FIFOs are refused)")]
    SpecialFile(&'static str),
    #[error("hard link to {}, which is not an earlier file of the archive", Escaped(.0))]
    HardLinkOutside(String),
    #[error("more than {0} members")]
    TooManyEntries(u64),
    #[error("more than {0} bytes unpacked in all")]
    TooLarge(u64),
    #[error("unpacks to over {ratio} times the {read} bytes read (a compression bomb?)")]
    Bomb { ratio: u64, read: u64 },
    #[error("unsupported member type {0}")]
    Unsupported(String),
}

impl UnpackError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        UnpackError::Io { path: path.to_path_buf(), source }
    }
}

/// A member name for a message: control characters escaped.
struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}
