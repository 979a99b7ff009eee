//! Errors of the host library. The CLI turns them into messages and exit
//! codes; every variant names the plugin and the operation or file involved.

use std::path::PathBuf;

/// A codec operation, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Load,
    Info,
    Discover,
    Read,
    Write,
    Prepare,
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Operation::Load => "load",
            Operation::Info => "info",
            Operation::Discover => "discover",
            Operation::Read => "read",
            Operation::Write => "write",
            Operation::Prepare => "prepare",
        })
    }
}

/// Which sandbox limit stopped a codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// The call's wall-clock deadline (epoch interruption).
    Time,
    Memory,
    Stack,
    /// Instructions, in metered mode (`plugin test`).
    Fuel,
    /// Bytes returned across the boundary.
    Output,
}

impl std::fmt::Display for LimitKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LimitKind::Time => "time",
            LimitKind::Memory => "memory",
            LimitKind::Stack => "stack",
            LimitKind::Fuel => "fuel",
            LimitKind::Output => "output size",
        })
    }
}

/// Errors of the plugin host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    #[error("codec {plugin} trapped during {op}: {message}")]
    Trap { plugin: String, op: Operation, message: String },

    #[error("codec {plugin} exceeded its {kind} limit ({limit}) during {op}")]
    LimitExceeded { plugin: String, op: Operation, kind: LimitKind, limit: String },

    #[error("{component}: {message}; this trajhost supports trajhost:codec {supported}")]
    ApiMismatch { component: String, message: String, supported: String },

    #[error(
        "{component} imports {import}, which codecs may not use (allowed: trajhost:codec/*, wasi:cli/*, wasi:io/*)"
    )]
    /// `import` lists every refused import.
    CapabilityDenied { component: String, import: String },

    #[error("codec {plugin} failed to {op}: {message}")]
    Codec { plugin: String, op: Operation, message: String },

    #[error("{component}: not a valid component: {message}")]
    InvalidComponent { component: String, message: String },

    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },

    #[error("codec registry at {path}: {message}")]
    Registry { path: PathBuf, message: String },

    #[error("{0}")]
    NoCodec(String),

    #[error(
        "{session} cannot be continued in {target} as it is: {}; pass --lossy to convert it anyway (the fidelity report lists what is dropped)",
        causes.join("; ")
    )]
    NotPortable { session: String, target: String, causes: Vec<String> },

    #[error("{0}")]
    TargetChoice(String),

    #[error("{0}")]
    SessionNotFound(String),

    #[error(transparent)]
    Install(#[from] trajhost_install::InstallError),

    /// An archive given as a home could not be opened (boxed: it is rare).
    #[error(transparent)]
    Unpack(Box<trajhost_unpack::UnpackError>),

    /// A codec registry (OCI) refused, was unreachable, or served something
    /// unsigned, untrusted or altered (boxed: it is rare).
    #[error(transparent)]
    Oci(Box<trajhost_oci::OciError>),

    #[error(
        "plugin blob {path} does not match its recorded sha256 (expected {expected}, found {found}); reinstall it or run `trajhost plugin verify`"
    )]
    Tampered { path: PathBuf, expected: String, found: String },
}

impl From<trajhost_oci::OciError> for HostError {
    fn from(error: trajhost_oci::OciError) -> HostError {
        HostError::Oci(Box::new(error))
    }
}

impl From<trajhost_unpack::UnpackError> for HostError {
    fn from(error: trajhost_unpack::UnpackError) -> HostError {
        HostError::Unpack(Box::new(error))
    }
}

impl HostError {
    pub fn io(path: impl Into<PathBuf>, error: impl std::fmt::Display) -> HostError {
        HostError::Io { path: path.into(), message: error.to_string() }
    }
}

pub type Result<T, E = HostError> = std::result::Result<T, E>;
