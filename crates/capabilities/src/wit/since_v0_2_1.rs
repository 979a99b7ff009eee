//! Bindings of `trajhost:codec@0.2.1` (frozen in `wit/since_v0.2.1/`), the
//! newest API: the capabilities in `crate` implement its
//! import traits directly. They also serve 0.2.0 codecs: 0.2.1 only adds the
//! `target` import, and the component model links a `@0.2.0` import to the
//! `@0.2.1` definition and finds a `codec@0.2.0` export under `@0.2.1`
//! (semver-compatible names), so one binding module serves the 0.2 track.

wasmtime::component::bindgen!({
    world: "codec-plugin",
    path: "../../wit/since_v0.2.1",
    imports: { default: trappable },
    with: {
        "trajhost:codec/fs.dir": crate::fs::DirHandle,
        "trajhost:codec/fs.file": crate::fs::FileHandle,
        "trajhost:codec/sqlite.database": crate::sqlite::DatabaseHandle,
        "trajhost:codec/sqlite.rows": crate::sqlite::RowsHandle,
    },
});

pub use self::exports::trajhost::codec::codec;
pub use self::trajhost::codec::{fs, log, sqlite, target, types};
