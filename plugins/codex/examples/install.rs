//! Scratch: read a Codex (or other) session natively, write it as a rollout,
//! prepare it into TARGET (a home) with HOME_PATH as the home path, and
//! execute the plan. Usage: install SOURCE_HOME LOCATOR TARGET HOME_PATH
use trajhost_codec_codex::Codex;
use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::sqlite::Value;
use trajhost_codec_sdk::{Codec, Operation, ReadOptions, WriteOptions};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut doc = String::new();
    let options = ReadOptions { max_batch_records: 1000, max_batch_bytes: 1 << 20 };
    trajhost_codec_sdk::read_all::<Codex>(Dir::native(&a[1]), &a[2], options, |b| doc.push_str(&b.records)).unwrap();
    if let Ok(path) = std::env::var("DOC_IN") {
        doc = std::fs::read_to_string(path).unwrap();
    }
    let opts = WriteOptions { cwd: None, native_id: None, home_path: Some(a[4].clone()) };
    let written = Codex::write(&doc, opts.clone()).unwrap();
    for d in &written.diagnostics { eprintln!("write diag {} {} x{}", d.code, d.detail, d.count); }
    let opts = WriteOptions { native_id: Some(written.native_id.clone()), ..opts };
    let plan = Codex::prepare(written.artifacts, &Dir::native(&a[3]), opts).unwrap();
    eprintln!("resume: {:?}", plan.resume_command);
    for op in plan.operations {
        match op {
            Operation::CreateFile(f) => {
                let p = std::path::Path::new(&a[3]).join(&f.path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, &f.bytes).unwrap();
                eprintln!("created {}", f.path);
            }
            Operation::InsertRows(ins) => {
                let conn = rusqlite::Connection::open(std::path::Path::new(&a[3]).join(&ins.database)).unwrap();
                let sql = format!("INSERT INTO \"{}\" ({}) VALUES ({})", ins.table,
                    ins.columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
                    vec!["?"; ins.columns.len()].join(", "));
                for row in ins.rows {
                    let vals: Vec<rusqlite::types::Value> = row.iter().map(|v| match v {
                        Value::Null => rusqlite::types::Value::Null,
                        Value::Integer(i) => rusqlite::types::Value::Integer(*i),
                        Value::Real(f) => rusqlite::types::Value::Real(*f),
                        Value::Text(s) => rusqlite::types::Value::Text(s.clone()),
                        Value::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
                    }).collect();
                    conn.execute(&sql, rusqlite::params_from_iter(vals)).unwrap();
                }
                eprintln!("inserted into {} {:?}", ins.database, ins.columns);
            }
        }
    }
}
