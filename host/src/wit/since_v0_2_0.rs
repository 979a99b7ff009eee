//! Bindings of `trajhost:codec@0.2.0` (frozen in `wit/since_v0.2.0/`), the
//! newest API: the capabilities in `crate::capabilities` implement its
//! import traits directly.

wasmtime::component::bindgen!({
    world: "codec-plugin",
    path: "../wit/since_v0.2.0",
    imports: { default: trappable },
    with: {
        "trajhost:codec/fs.dir": crate::capabilities::fs::DirHandle,
        "trajhost:codec/fs.file": crate::capabilities::fs::FileHandle,
        "trajhost:codec/sqlite.database": crate::capabilities::sqlite::DatabaseHandle,
        "trajhost:codec/sqlite.rows": crate::capabilities::sqlite::RowsHandle,
    },
});

pub use self::exports::trajhost::codec::codec;
pub use self::trajhost::codec::{fs, log, sqlite, types};
