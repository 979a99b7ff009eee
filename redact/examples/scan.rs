//! Prints what the built-in rules would mask in the given files (one line per finding), to tune
//! allowlists against real text: `cargo run -p trajhost-redact --example scan -- FILE...`.
//! A file ending in `.jsonl` is read as canonical record lines (`redact_line`), others as text.

use std::borrow::Cow;

use trajhost_redact::{Counts, Redactor};

fn main() {
    let r = Redactor::builtin();
    let mut total = Counts::default();
    for path in std::env::args().skip(1) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: not UTF-8 text, skipped");
            continue;
        };
        let pieces: Vec<&str> = if path.ends_with(".jsonl") { text.lines().collect() } else { vec![text.as_str()] };
        for piece in pieces {
            let mut counts = Counts::default();
            let out = if path.ends_with(".jsonl") {
                r.redact_line(piece, &mut counts)
            } else {
                r.redact_text(piece, &mut counts)
            };
            if let Cow::Owned(out) = out {
                for (a, b) in piece.lines().zip(out.lines()).filter(|(a, b)| a != b) {
                    println!("{path}\n  - {}\n  + {}", excerpt(a), excerpt(b));
                }
            }
            total.merge(&counts);
        }
    }
    println!("{}", serde_json::to_string(&total).unwrap());
}

fn excerpt(s: &str) -> String {
    s.chars().take(220).collect()
}
