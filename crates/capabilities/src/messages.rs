//! Turning what a codec did into messages its author can act on: the Rust
//! API behind a refused import, and the panic behind a trap.

/// The refused imports, each family followed by the Rust API that pulls it
/// in and what to use instead, e.g.
/// `` `wasi:filesystem/preopens@0.2.6` (std::fs pulls it in; use trajhost_codec_sdk::fs::Dir) ``.
pub fn denied_imports(imports: &[String]) -> String {
    // Families in first-seen order, each with its imports.
    let mut families: Vec<(&'static str, Vec<&str>)> = Vec::new();
    for import in imports {
        let hint = hint_for(import);
        match families.iter_mut().find(|(h, _)| *h == hint) {
            Some((_, list)) => list.push(import),
            None => families.push((hint, vec![import])),
        }
    }
    families
        .into_iter()
        .map(|(hint, list)| {
            let names = list.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ");
            format!("{names} ({hint})")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn hint_for(import: &str) -> &'static str {
    let package = import.split('@').next().unwrap_or(import);
    let (namespace, interface) = package.split_once('/').unwrap_or((package, ""));
    match (namespace, interface) {
        ("wasi:filesystem", _) => {
            "std::fs pulls it in; read through the granted directory with trajhost_codec_sdk::fs::Dir"
        }
        ("wasi:random", _) => {
            "HashMap::new() / RandomState (a random seed) pulls it in; use BTreeMap, or trajhost_codec_sdk::hash::HashMap (a seedless FixedState hasher): HashMap::default()"
        }
        ("wasi:clocks", _) => {
            "std::time::SystemTime / Instant pull it in; take times from the native data, parsed with trajhost_codec_sdk::time"
        }
        ("wasi:sockets", _) => "std::net pulls it in; codecs have no network",
        ("wasi:cli", _) => "codecs get only the stdio, environment and exit interfaces of wasi:cli",
        _ => {
            "not an interface the host provides; codecs may import only trajhost:codec/* and std's wasi:cli/wasi:io subset"
        }
    }
}

const BACKTRACE_NOTE: &str = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";

/// `text` without std's backtrace hint, which cannot help inside the
/// sandbox (a codec has no environment).
pub fn without_backtrace_note(text: &str) -> String {
    if !text.contains(BACKTRACE_NOTE) {
        return text.to_string();
    }
    text.lines().filter(|l| l.trim() != BACKTRACE_NOTE).collect::<Vec<_>>().join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// The last panic in a codec's captured output, as
/// `panicked at src/lib.rs:12:5: boom`. std prints
/// `thread '…' panicked at LOCATION:\nMESSAGE\nnote: …`.
pub fn panic_message(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().collect();
    let start = lines.iter().rposition(|l| l.contains(" panicked at "))?;
    let header = lines[start];
    let location = header[header.find(" panicked at ")? + " panicked at ".len()..].trim_end().trim_end_matches(':');
    let message: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with("note: ") && !l.starts_with("[std") && !l.contains(" panicked at "))
        .map(|l| l.trim_end())
        .collect();
    let message = message.join(" ").trim().to_string();
    const MAX: usize = 2000;
    let message = if message.len() > MAX {
        let mut cut = MAX;
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…", &message[..cut])
    } else {
        message
    };
    Some(if message.is_empty() {
        format!("panicked at {location}")
    } else {
        format!("panicked at {location}: {message}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_name_the_rust_api() {
        let message = denied_imports(&[
            "wasi:filesystem/types@0.2.6".into(),
            "wasi:random/insecure-seed@0.2.6".into(),
            "wasi:filesystem/preopens@0.2.6".into(),
            "wasi:clocks/wall-clock@0.2.6".into(),
            "wasi:sockets/tcp@0.2.6".into(),
            "acme:evil/x".into(),
        ]);
        assert!(
            message
                .starts_with("`wasi:filesystem/types@0.2.6`, `wasi:filesystem/preopens@0.2.6` (std::fs pulls it in;"),
            "{message}"
        );
        for needle in [
            "trajhost_codec_sdk::fs::Dir",
            "HashMap::new()",
            "BTreeMap",
            "SystemTime",
            "std::net",
            "`acme:evil/x` (not an interface",
        ] {
            assert!(message.contains(needle), "{needle} missing from {message}");
        }
    }

    #[test]
    fn the_panic_and_its_location_come_out_of_std_output() {
        let output = "[log] starting\n[stderr]\n\nthread '<unnamed>' panicked at src/lib.rs:12:5:\nboom\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(panic_message(output).as_deref(), Some("panicked at src/lib.rs:12:5: boom"));
        assert_eq!(panic_message("nothing here\n"), None);
        assert!(!without_backtrace_note(output).contains("RUST_BACKTRACE"));
        assert!(without_backtrace_note(output).contains("boom\n"));
    }
}
