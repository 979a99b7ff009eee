//! Builds the fixture home of `fixtures/cursor/2026.10.01/home` and broken
//! stores, with a protobuf encoder of its own (independent of the codec's)
//! and rusqlite, laid out as the CLI lays out its chats (see PROVENANCE.md).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use trajhost_codec_sdk::hash::{md5_hex, sha256, to_hex};

pub const CWD: &str = "/home/user/project";
pub const CHAT: &str = "0b7e3f4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
pub const FRAGILE: &str = "1c8f4a5b-2d3e-4f60-9bac-1d2e3f4a5b6c";
pub const ACP_ONLY: &str = "2d9a5b6c-3e4f-4061-8cbd-2e3f4a5b6c7d";
pub const TRANSCRIPT: &str = "3eab6c7d-4f50-4172-9dce-3f4a5b6c7d8e";
pub const USER1_ID: &str = "4fbc7d8e-5061-4283-8edf-4a5b6c7d8e9f";
pub const BROKEN: &str = "5acd8e9f-6172-4394-9fe0-5b6c7d8e9fa0";
pub const BROKEN_LOCATOR: &str =
    ".cursor/chats/90722f2638004be06d790eaac9ac1f8a/5acd8e9f-6172-4394-9fe0-5b6c7d8e9fa0/store.db";
const CREATED: i64 = 1_796_032_800_000; // 2026-11-30T10:00:00Z

// A protobuf encoder of the test's own.
fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}
fn fb(n: u32, b: &[u8]) -> Vec<u8> {
    let mut o = Vec::new();
    varint(u64::from(n) << 3 | 2, &mut o);
    varint(b.len() as u64, &mut o);
    o.extend_from_slice(b);
    o
}
fn fs(n: u32, s: &str) -> Vec<u8> {
    fb(n, s.as_bytes())
}
fn fv(n: u32, v: u64) -> Vec<u8> {
    let mut o = Vec::new();
    varint(u64::from(n) << 3, &mut o);
    varint(v, &mut o);
    o
}
fn fd(n: u32, f: f64) -> Vec<u8> {
    let mut o = Vec::new();
    varint(u64::from(n) << 3 | 1, &mut o);
    o.extend_from_slice(&f.to_bits().to_le_bytes());
    o
}
fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

/// google.protobuf.Value of a JSON value.
fn value(v: &Value) -> Vec<u8> {
    match v {
        Value::Null => fv(1, 0),
        Value::Bool(b) => fv(4, u64::from(*b)),
        Value::Number(n) => fd(2, n.as_f64().unwrap()),
        Value::String(s) => fs(3, s),
        Value::Array(a) => fb(6, &cat(&a.iter().map(|x| fb(1, &value(x))).collect::<Vec<_>>())),
        Value::Object(m) => {
            fb(5, &cat(&m.iter().map(|(k, x)| fb(1, &cat(&[fs(1, k), fb(2, &value(x))]))).collect::<Vec<_>>()))
        }
    }
}

pub fn list_args() -> Value {
    json!({"path": CWD, "options": {"depth": 2, "hidden": false, "filter": null}, "globs": ["*.rs", "*.md"], "ratio": 0.5})
}

pub fn long_result() -> String {
    (0..400).map(|i| format!("file_{i:04}.rs\n")).collect()
}

/// A store under construction.
#[derive(Default)]
struct Blobs(Vec<(String, Vec<u8>)>);

impl Blobs {
    fn put(&mut self, data: Vec<u8>) -> [u8; 32] {
        let id = sha256(&data);
        let hex = to_hex(&id);
        if !self.0.iter().any(|(h, _)| *h == hex) {
            self.0.push((hex, data));
        }
        id
    }
    fn json(&mut self, v: Value) -> [u8; 32] {
        self.put(serde_json::to_vec(&v).unwrap())
    }
}

fn mcp_step(name: &str, call_id: &str, args: &Value, result: Vec<u8>) -> Vec<u8> {
    let entries: Vec<Vec<u8>> =
        args.as_object().unwrap().iter().map(|(k, v)| fb(2, &cat(&[fs(1, k), fb(2, &value(v))]))).collect();
    let mcp_args = cat(&[fs(1, name), cat(&entries), fs(3, call_id), fs(4, "tools-server"), fs(5, name), fv(8, 1)]);
    let tool = cat(&[fb(15, &cat(&[fb(1, &mcp_args), fb(2, &result)])), fs(57, call_id)]);
    fb(2, &tool)
}

fn success(text: &str) -> Vec<u8> {
    fb(1, &fb(1, &fb(1, &fs(1, text))))
}

fn agent_turn(user: Option<[u8; 32]>, steps: &[[u8; 32]]) -> Vec<u8> {
    let mut a = user.map(|u| fb(1, &u)).unwrap_or_default();
    for s in steps {
        a.extend(fb(2, s));
    }
    a.extend(fs(3, "req-1"));
    fb(1, &a)
}

fn write_store(path: &Path, blobs: &Blobs, meta: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA user_version = 1; CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
         CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);",
    )
    .unwrap();
    // Reversed: rowid order is not conversation order.
    for (id, data) in blobs.0.iter().rev() {
        c.execute("INSERT INTO blobs (id, data) VALUES (?1, ?2)", rusqlite::params![id, data]).unwrap();
    }
    let hex = to_hex(&serde_json::to_vec(meta).unwrap());
    c.execute("INSERT INTO meta (key, value) VALUES ('0', ?1)", [hex]).unwrap();
}

fn write_json(path: &Path, v: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

fn chat_dir(home: &Path, cwd: &str, id: &str) -> PathBuf {
    home.join(".cursor/chats").join(md5_hex(cwd.as_bytes())).join(id)
}

fn meta_of(id: &str, root: [u8; 32], name: &str) -> Value {
    json!({"agentId": id, "latestRootBlobId": to_hex(&root), "name": name, "mode": "default",
           "createdAt": CREATED, "lastUsedModel": "claude-4.5-sonnet"})
}

fn main_chat() -> (Blobs, [u8; 32]) {
    let mut b = Blobs::default();
    // Root field 1: the model's view.
    let context = format!("<user_info>\nOS: linux\nWorkspace Path: {CWD}\n</user_info>");
    let msgs = vec![
        b.json(json!({"role": "system", "content": "You are a coding agent."})),
        b.json(json!({"role": "user", "content": [{"type": "text", "text": format!("{context}\n<user_query>\nList the files\n</user_query>")}]})),
        b.json(json!({"role": "assistant", "content": [{"type": "reasoning", "text": "I should call the list tool."},
            {"type": "tool-call", "toolCallId": "call-list", "toolName": "list_files", "args": list_args()}]})),
        b.json(json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call-list", "toolName": "list_files", "result": long_result()}]})),
        b.json(json!({"role": "assistant", "content": [{"type": "text", "text": "There are 400 files."}]})),
    ];
    // Turn 0.
    let u0 = b.put(cat(&[fs(1, "List the files"), fs(2, USER1_ID), fv(4, 1)]));
    let s0 = b.put(fb(3, &cat(&[fs(1, "I should call the list tool."), fv(2, 1200)])));
    let s1 = b.put(mcp_step("list_files", "call-list", &list_args(), success(&long_result())));
    let s2 = b.put(fb(1, &fs(1, "There are 400 files.")));
    let t0 = b.put(agent_turn(Some(u0), &[s0, s1, s2]));
    // Turn 1: injected context around the query; failing results.
    let u1 = b.put(cat(&[
        fs(1, &format!("{context}\n<user_query>\nNow run the failing tools\n</user_query>")),
        fs(2, "5b6c7d8e-9fa0-41b2-83c4-d5e6f7a8b9c0"),
    ]));
    let e0 = b.put(mcp_step("run", "call-run", &json!({"cmd": "false"}), fb(2, &fs(1, "boom"))));
    let e1 =
        b.put(mcp_step("write", "call-write", &json!({"path": "x"}), fb(3, &cat(&[fs(1, "user said no"), fv(2, 1)]))));
    let e2 = b.put(mcp_step("delete", "call-delete", &json!({"path": "y"}), fb(4, &cat(&[fs(1, "not allowed")]))));
    let e3 = b.put(fb(1, &fs(1, "Done.")));
    let t1 = b.put(agent_turn(Some(u1), &[e0, e1, e2, e3]));
    // Turn 2: a shell turn.
    let cmd = b.put(fs(1, "ls"));
    let out = b.put(cat(&[fs(1, "a\nb\n"), fv(3, 0)]));
    let t2 = b.put(fb(2, &cat(&[fb(1, &cmd), fb(2, &out)])));
    let mut root = Vec::new();
    for m in &msgs {
        root.extend(fb(1, m));
    }
    root.extend(fb(5, &cat(&[fv(1, 1000), fv(2, 200000)])));
    for t in [t0, t1, t2] {
        root.extend(fb(8, &t));
    }
    root.extend(fs(9, "file:///home/user/project"));
    root.extend(fv(10, 1));
    for (i, _) in [t0, t1, t2].iter().enumerate() {
        root.extend(fb(14, &cat(&[fv(1, 900), fv(2, (CREATED + 1000 + 60_000 * i as i64) as u64)])));
    }
    root.extend(fs(18, "/home/user/project/README.md"));
    let r = b.put(root);
    (b, r)
}

/// The whole fixture home.
pub fn build(home: &Path) {
    let (b, root) = main_chat();
    let chat = chat_dir(home, CWD, CHAT);
    write_store(&chat.join("store.db"), &b, &meta_of(CHAT, root, "List the files"));
    let meta_json = json!({"schemaVersion": 1, "title": "List the files", "createdAtMs": CREATED,
        "updatedAtMs": CREATED + 180_000, "hasConversation": true, "cwd": CWD});
    write_json(&chat.join("meta.json"), &meta_json);
    // The same chat in the ACP location.
    let acp = home.join(".cursor/acp-sessions").join(CHAT);
    write_store(&acp.join("store.db"), &b, &meta_of(CHAT, root, "List the files"));
    write_json(&acp.join("meta.json"), &json!({"schemaVersion": 1, "cwd": CWD, "title": "List the files"}));

    // An ACP-only chat whose root has field 1 only; cwd from field 9.
    let mut b = Blobs::default();
    let msgs = [
        b.json(json!({"role": "system", "content": "You are a coding agent."})),
        b.json(json!({"role": "user", "content": "<user_info>\nWorkspace Path: /srv/acp\n</user_info>\n<user_query>\nhello from acp\n</user_query>"})),
        b.json(json!({"role": "assistant", "content": [{"type": "text", "text": "hi"},
            {"type": "tool-call", "toolCallId": "c9", "toolName": "Read", "args": {"path": "a.txt"}}]})),
        b.json(json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c9", "toolName": "Read", "result": "ok"}]})),
    ];
    let root = b.put(cat(&[cat(&msgs.iter().map(|m| fb(1, m)).collect::<Vec<_>>()), fs(9, "file:///srv/acp")]));
    write_store(
        &home.join(".cursor/acp-sessions").join(ACP_ONLY).join("store.db"),
        &b,
        &meta_of(ACP_ONLY, root, "acp"),
    );

    // An archive-only chat: its root carries a compaction summary archive.
    let mut b = Blobs::default();
    let archive = b.put(cat(&[fs(2, "Earlier the user listed files."), fv(3, 2)]));
    let u = b.put(fs(1, "after compaction"));
    let t = b.put(agent_turn(Some(u), &[]));
    let root = b.put(cat(&[fb(8, &t), fs(9, "file:///home/user/project"), fb(13, &archive)]));
    let dir = chat_dir(home, CWD, FRAGILE);
    write_store(&dir.join("store.db"), &b, &meta_of(FRAGILE, root, "compacted"));
    write_json(
        &dir.join("meta.json"),
        &json!({"schemaVersion": 1, "title": "compacted", "createdAtMs": CREATED,
        "updatedAtMs": CREATED, "hasConversation": true, "cwd": CWD}),
    );

    // The agent-transcripts mirror of another chat.
    let t = home.join(".cursor/projects/home-user-project/agent-transcripts").join(TRANSCRIPT);
    std::fs::create_dir_all(&t).unwrap();
    let lines = [
        json!({"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>\nshow the readme\n</user_query>"}]}}),
        json!({"role": "assistant", "message": {"content": [{"type": "text", "text": "Reading it."},
            {"type": "tool_use", "name": "Read", "input": {"path": "README.md"}}]}}),
        json!({"role": "assistant", "message": {"content": [{"type": "text", "text": "It says hello."}]}}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(t.join(format!("{TRANSCRIPT}.jsonl")), text).unwrap();
}

/// Every store.db under `home`, relative, sorted.
pub fn stores(home: &Path) -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n == "store.db") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(home, &mut v);
    let mut out: Vec<(String, PathBuf)> =
        v.into_iter().map(|p| (p.strip_prefix(home).unwrap().display().to_string(), p)).collect();
    out.sort();
    out
}

/// Every row of a store, sorted.
pub fn rows(path: &Path) -> Vec<(String, Vec<u8>)> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut s = c.prepare("SELECT id, data FROM blobs ORDER BY id").unwrap();
    out.extend(s.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap));
    let mut s = c.prepare("SELECT key, value FROM meta").unwrap();
    out.extend(
        s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?.into_bytes())))
            .unwrap()
            .map(Result::unwrap),
    );
    out
}

/// meta['0'] of a store, decoded.
pub fn meta0(path: &Path) -> Value {
    let c = rusqlite::Connection::open(path).unwrap();
    let hex: String = c.query_row("SELECT value FROM meta WHERE key = '0'", [], |r| r.get(0)).unwrap();
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    serde_json::from_slice(&bytes).unwrap()
}

fn broken(home: &Path, b: &Blobs, root: [u8; 32]) {
    assert_eq!(md5_hex(CWD.as_bytes()), "90722f2638004be06d790eaac9ac1f8a");
    write_store(&home.join(BROKEN_LOCATOR), b, &meta_of(BROKEN, root, "broken"));
}

/// A turn names a step blob the store does not hold; returns its id.
pub fn broken_missing_step(home: &Path) -> String {
    let mut b = Blobs::default();
    let u = b.put(fs(1, "hi"));
    let missing = sha256(&fb(1, &fs(1, "gone")));
    let t = b.put(agent_turn(Some(u), &[missing]));
    let root = b.put(fb(8, &t));
    broken(home, &b, root);
    to_hex(&missing)
}

/// A UserMessage with field 42; returns its blob id.
pub fn broken_unknown_field(home: &Path) -> String {
    let mut b = Blobs::default();
    let u = b.put(cat(&[fs(1, "hi"), fs(42, "new")]));
    let t = b.put(agent_turn(Some(u), &[]));
    let root = b.put(fb(8, &t));
    broken(home, &b, root);
    to_hex(&u)
}

/// A turn blob stored under an id its bytes do not hash to.
pub fn broken_hash(home: &Path) {
    let mut b = Blobs::default();
    let u = b.put(fs(1, "hi"));
    let turn = agent_turn(Some(u), &[]);
    let fake = sha256(b"something else");
    b.0.push((to_hex(&fake), turn));
    let root = b.put(fb(8, &fake));
    broken(home, &b, root);
}

/// meta '0' naming no stored blob, and no blobs (the shape of a public sample).
pub fn meta_only(home: &Path) {
    let meta = json!({"agentId": BROKEN, "latestRootBlobId": "deadbeef", "name": "New Agent", "mode": "default", "createdAt": CREATED});
    write_store(&home.join(BROKEN_LOCATOR), &Blobs::default(), &meta);
}

/// Applies a plan natively (as the host's installer would).
pub fn apply(plan: &trajhost_codec_sdk::Plan, home: &Path) {
    use trajhost_codec_sdk::Operation;
    use trajhost_codec_sdk::sqlite::Value as V;
    for op in &plan.operations {
        match op {
            Operation::CreateDatabase(d) => {
                let p = home.join(&d.path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                assert!(!p.exists());
                let c = rusqlite::Connection::open(&p).unwrap();
                for s in &d.schema {
                    c.execute_batch(s).unwrap();
                }
                if let Some(v) = d.user_version {
                    c.execute_batch(&format!("PRAGMA user_version = {v}")).unwrap();
                }
                for t in &d.tables {
                    let sql = format!(
                        "INSERT INTO {} ({}) VALUES ({})",
                        t.table,
                        t.columns.join(","),
                        vec!["?"; t.columns.len()].join(",")
                    );
                    for row in &t.rows {
                        let vals: Vec<rusqlite::types::Value> = row
                            .iter()
                            .map(|v| match v {
                                V::Null => rusqlite::types::Value::Null,
                                V::Integer(i) => rusqlite::types::Value::Integer(*i),
                                V::Real(f) => rusqlite::types::Value::Real(*f),
                                V::Text(s) => rusqlite::types::Value::Text(s.clone()),
                                V::Blob(b) => rusqlite::types::Value::Blob(b.clone()),
                            })
                            .collect();
                        c.execute(&sql, rusqlite::params_from_iter(vals)).unwrap();
                    }
                }
            }
            Operation::CreateFile(f) => {
                let p = home.join(&f.path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                assert!(!p.exists());
                std::fs::write(p, &f.bytes).unwrap();
            }
            _ => panic!("unexpected operation"),
        }
    }
}
