//! Host bindings of every supported `trajhost:codec` API version.
//!
//! Each released WIT snapshot (`wit/since_vX.Y.Z/`) gets one module here.
//! Only 0.1 exists; when 0.2 is released, 0.1's host traits delegate to the
//! newest implementation and [`SUPPORTED`] grows.

pub mod since_v0_1_0;

pub use since_v0_1_0 as latest;

/// API versions this host can load, newest first.
pub const SUPPORTED: &[semver::Version] = &[semver::Version::new(0, 1, 0)];

/// The WIT package name of the codec API.
pub const PACKAGE: &str = "trajhost:codec";

/// The range a component's exported `trajhost:codec/codec@X` must fall in.
pub fn supported_range() -> String {
    SUPPORTED
        .iter()
        .map(|v| format!("{}.{}.x", v.major, v.minor))
        .collect::<Vec<_>>()
        .join(", ")
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
