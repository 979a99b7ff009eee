//! Reads a session (or takes a canonical document), writes the import
//! document and installs the plan into a HOME-layout directory, natively:
//! what `trajhost convert` + `trajhost prepare` do, without the host. The
//! real `opencode import` then loads it (see the crate docs); used for the
//! lab's loader check.
//!
//! `cargo run -p trajhost-codec-opencode --example roundtrip -- <home|-> <locator|doc.jsonl> <out> [home-path]`
//!
//! Point it at a copy of a home: natively the SDK opens the database with
//! rusqlite read-only, which leaves `-wal`/`-shm` files beside a WAL-mode
//! database (the host reads through `immutable=1` or a private copy).

use trajhost_codec_opencode::OpenCode;
use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{ReadOptions, WriteOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [home, locator, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: roundtrip <home|-> <locator|doc.jsonl> <out> [home-path]");
        std::process::exit(2);
    };
    let mut document = String::new();
    if home == "-" {
        document = std::fs::read_to_string(locator).unwrap();
    } else {
        let options = ReadOptions { max_batch_records: 1000, max_batch_bytes: 1 << 20 };
        trajhost_codec_sdk::read_all::<OpenCode>(Dir::native(home), locator, options, |b| {
            document.push_str(&b.records)
        })
        .unwrap();
    }
    let cwd = "/home/user/project".to_string();
    let written = trajhost_codec_sdk::write_document::<OpenCode>(
        &document,
        WriteOptions { cwd: Some(cwd.clone()), native_id: None, home_path: None },
    )
    .unwrap();
    let home_path = rest.first().cloned().unwrap_or_else(|| out.clone());
    std::fs::create_dir_all(out).unwrap();
    let options =
        WriteOptions { cwd: Some(cwd), native_id: Some(written.native_id.clone()), home_path: Some(home_path) };
    let plan =
        trajhost_codec_sdk::prepare_artifacts::<OpenCode>(written.artifacts, &Dir::native(out), options).unwrap();
    for op in plan.operations {
        if let Operation::CreateFile(f) = op {
            let path = std::path::Path::new(out).join(&f.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &f.bytes).unwrap();
            println!("created {}", f.path);
        }
    }
    println!("resume: {}", plan.resume_command.unwrap_or_default());
    for d in written.diagnostics {
        println!("diagnostic {} {} x{}", d.code, d.detail, d.count);
    }
}
