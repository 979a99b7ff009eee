//! Reads a session, writes it anew and installs the plan into a HOME-layout
//! directory, natively: what `trajhost convert` + `trajhost prepare` do,
//! without the host. Used to feed the lab's loader check
//! (`tests/lab/run check pi <out>`).
//!
//! `cargo run -p trajhost-pi-core --example roundtrip -- <pi|oh-my-pi> <home> <locator> <out> [home-path]`
//! (`<home>` `-` and `<locator>` a canonical JSONL file: write that document).

use trajhost_codec_sdk::bindings::exports::trajhost::codec::codec::Operation;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{ReadOptions, SessionReader, WriteOptions};
use trajhost_pi_core::{OMP, PI};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [harness, home, locator, out, rest @ ..] = args.as_slice() else {
        eprintln!("usage: roundtrip <pi|oh-my-pi> <home> <locator> <out> [home-path]");
        std::process::exit(2);
    };
    let flavor = if harness == "pi" { &PI } else { &OMP };
    let mut document = String::new();
    if home == "-" {
        document = std::fs::read_to_string(locator).unwrap();
    } else {
        let options = ReadOptions { max_batch_records: 1000, max_batch_bytes: 1 << 20 };
        let mut reader = trajhost_pi_core::read::Reader::open(flavor, Dir::native(home), locator, &options).unwrap();
        while let Some(batch) = reader.next_batch().unwrap() {
            document.push_str(&batch.records);
        }
    }
    let cwd = "/home/user/project".to_string();
    let written = trajhost_pi_core::write::write(
        flavor,
        &document,
        &WriteOptions { cwd: Some(cwd.clone()), native_id: None, home_path: None },
    )
    .unwrap();
    let home_path = rest.first().cloned().unwrap_or_else(|| out.clone());
    std::fs::create_dir_all(out).unwrap();
    let options =
        WriteOptions { cwd: Some(cwd), native_id: Some(written.native_id.clone()), home_path: Some(home_path) };
    let plan = trajhost_pi_core::prepare::prepare(flavor, written.chunks, &Dir::native(out), &options).unwrap();
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
