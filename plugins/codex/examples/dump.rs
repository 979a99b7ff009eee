use trajhost_codec_sdk::fs::Dir;
use trajhost_codec_sdk::{Codec, ReadOptions};
use trajhost_codec_codex::Codex;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let home = Dir::native(&args[1]);
    let d = Codex::discover(&home).unwrap();
    for s in &d.sessions {
        eprintln!("{:?}", s);
        let options = ReadOptions { max_batch_records: 1000, max_batch_bytes: 1 << 20 };
        trajhost_codec_sdk::read_all::<Codex>(Dir::native(&args[1]), &s.locator, options, |b| {
            for line in b.records.lines() {
                let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
                for k in ["text", "content", "summary", "opaque"] {
                    if let Some(s) = v.get(k).and_then(|x| x.as_str()) {
                        let cut: String = s.chars().take(70).collect();
                        v[k] = serde_json::Value::String(cut);
                    }
                }
                println!("{v}");
            }
            for d in &b.diagnostics { println!("DIAG {} {} {} x{}", d.code, d.detail, d.file.clone().unwrap_or_default(), d.count); }
        }).unwrap();
    }
    eprintln!("{:?}", d.diagnostics);
}
