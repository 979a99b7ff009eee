//! Bindings of `trajhost:codec@0.3.0` (`wit/since_v0.3.0/`, not yet
//! released), the newest API: the capabilities in `crate` implement its
//! import traits directly. 0.3.0 adds the plan operation `append-file`; a
//! new variant case is not additive, so 0.2 codecs are served by their own
//! module ([`super::since_v0_2_1`]), converted at the edge.

wasmtime::component::bindgen!({
    world: "codec-plugin",
    path: "../../wit/since_v0.3.0",
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
