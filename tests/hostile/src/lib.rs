//! A codec that misbehaves on purpose. `read`'s locator picks the attack;
//! the host's sandbox tests check each one is stopped or refused cleanly.

use trajhost_codec_sdk::prelude::*;
use trajhost_codec_sdk::sqlite::{Database, Value};

pub struct Hostile;

/// Attacks that report what the host answered, as a codec error the test reads.
fn probe(home: &Dir, attack: &str) -> Result<String, CodecError> {
    let report = |r: Result<String, String>| match r {
        Ok(v) => Ok(v),
        Err(e) => Err(CodecError::Other(e)),
    };
    match attack {
        "dotdot" => report(home.open("../outside.txt").map(|_| "opened".into()).map_err(|e| format!("{e:?}"))),
        "dotdot-dir" => report(home.list("sub/../..").map(|_| "listed".into()).map_err(|e| format!("{e:?}"))),
        "absolute" => report(home.open("/etc/passwd").map(|_| "opened".into()).map_err(|e| format!("{e:?}"))),
        "symlink" => report(home.open("escape/passwd").map(|_| "opened".into()).map_err(|e| format!("{e:?}"))),
        "symlink-file" => report(home.open("escape-file").map(|_| "opened".into()).map_err(|e| format!("{e:?}"))),
        "big-read" => report(
            home.open("data.txt")
                .and_then(|f| f.read_at(0, u32::MAX))
                .map(|_| "read".into())
                .map_err(|e| format!("{e:?}")),
        ),
        sql if sql.starts_with("sql:") => {
            let db = Database::open(home, "store.sqlite").map_err(|e| CodecError::Other(format!("{e:?}")))?;
            let statement = match &sql[4..] {
                "insert" => "INSERT INTO t VALUES (42)",
                "update" => "UPDATE t SET x = 0",
                "create" => "CREATE TABLE evil (x)",
                "attach" => "ATTACH DATABASE 'other.sqlite' AS other",
                "pragma" => "PRAGMA writable_schema = ON",
                "multi" => "SELECT 1; DELETE FROM t",
                "slow" => "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                "select" => "SELECT x FROM t ORDER BY x",
                other => return Err(CodecError::Other(format!("unknown sql attack {other}"))),
            };
            let rows = db.query(statement, &[]).map_err(|e| CodecError::Other(format!("{e:?}")))?;
            let mut values = Vec::new();
            loop {
                let page = rows.next_page(100).map_err(|e| CodecError::Other(format!("{e:?}")))?;
                for row in page.rows {
                    for v in row {
                        values.push(match v {
                            Value::Integer(i) => i.to_string(),
                            other => format!("{other:?}"),
                        });
                    }
                }
                if page.done {
                    break;
                }
            }
            Ok(values.join(","))
        }
        _ => Err(CodecError::Other(format!("unknown attack {attack}"))),
    }
}

/// Recursion with scalar frames only: it exhausts the wasm stack, not the
/// guest's shadow stack in linear memory.
#[inline(never)]
#[allow(unconditional_recursion)]
fn recurse(depth: u64) -> u64 {
    recurse(depth + 1).wrapping_mul(3).wrapping_sub(depth)
}

pub struct Reader {
    result: Option<String>,
}

impl SessionReader for Reader {
    fn next_batch(&mut self) -> Result<Option<Batch>, CodecError> {
        Ok(self.result.take().map(|text| Batch {
            records: serde_json::to_string(&Record {
                id: "probe".into(),
                body: Body::Observation { subtype: "probe".into(), text: Some(text) },
                parent: None,
                ts: None,
                agent: None,
                src: None,
            })
            .unwrap()
                + "\n",
            diagnostics: Vec::new(),
        }))
    }
}

impl Codec for Hostile {
    type Reader = Reader;

    fn info() -> CodecInfo {
        CodecInfo {
            harness: "hostile".into(),
            codec_version: "0.0.1".into(),
            native_versions: "*".into(),
            native_version_source: "none".into(),
            reads: vec![],
            writes: vec![],
            session_globs: vec![],
            canonical_schema: trajhost_codec_sdk::canonical::SCHEMA.into(),
        }
    }

    fn discover(_home: &Dir) -> Result<Discovery, CodecError> {
        Ok(Discovery { sessions: Vec::new(), diagnostics: Vec::new() })
    }

    fn read(home: Dir, locator: &str, _options: ReadOptions) -> Result<Reader, CodecError> {
        match locator {
            "loop" => {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            "alloc" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1u8; 16 << 20]);
                    std::hint::black_box(&hoard);
                }
            }
            "recurse" => {
                let n = recurse(0);
                Ok(Reader { result: Some(n.to_string()) })
            }
            "huge-output" => Ok(Reader { result: Some("x".repeat(64 << 20)) }),
            "print" => {
                for i in 0..100_000 {
                    println!("line {i} \u{1b}[31m");
                }
                Ok(Reader { result: Some("printed".into()) })
            }
            "panic" => panic!("the hostile codec panics"),
            attack => Ok(Reader { result: Some(probe(&home, attack)?) }),
        }
    }
}

trajhost_codec_sdk::export_codec!(Hostile);
