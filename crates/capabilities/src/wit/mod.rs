//! Host bindings of every supported `trajhost:codec` API version.
//!
//! Each released WIT snapshot (`wit/since_vX.Y.Z/`) gets one module here.
//! The capabilities implement the newest version's import traits; an older
//! module implements its own traits by delegating to them and converts its
//! export types to the newest ones, so the rest of the host sees one API.

pub mod since_v0_1_0;
pub mod since_v0_2_1;
pub mod since_v0_3_0;

pub use since_v0_3_0 as latest;

/// API versions this host can load, newest first. Each serves its whole
/// `0.N` track (patches are additive).
pub const SUPPORTED: &[semver::Version] =
    &[semver::Version::new(0, 3, 0), semver::Version::new(0, 2, 1), semver::Version::new(0, 1, 0)];

/// The WIT package name of the codec API.
pub const PACKAGE: &str = "trajhost:codec";

/// The range a component's exported `trajhost:codec/codec@X` must fall in.
pub fn supported_range() -> String {
    SUPPORTED.iter().map(|v| format!("{}.{}.x", v.major, v.minor)).collect::<Vec<_>>().join(", ")
}

/// Whether an exported API version is one this host binds. Patch versions
/// within a `0.N` track are compatible (additive changes only).
pub fn is_supported(version: &semver::Version) -> bool {
    SUPPORTED.iter().any(|s| s.major == version.major && s.minor == version.minor && version.pre.is_empty())
}

/// The newest API version this host binds.
pub fn latest_version() -> &'static semver::Version {
    &SUPPORTED[0]
}
