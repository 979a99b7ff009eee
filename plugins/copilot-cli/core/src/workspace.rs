//! `workspace.yaml`: the session's metadata as Copilot CLI lists it.
//!
//! A flat mapping written by the CLI (`id`, `cwd`, `git_root`, `branch`,
//! `name`, `summary`, `created_at`, `updated_at`, …). Only top-level scalar
//! keys are read: plain, single- or double-quoted, or `|`/`>` block
//! scalars. Nested values are skipped.

use std::collections::BTreeMap;

/// Largest `workspace.yaml` read.
pub const MAX_WORKSPACE_BYTES: u64 = 256 * 1024;

/// The keys the codec uses.
#[derive(Debug, Default, Clone)]
pub struct Workspace {
    pub id: Option<String>,
    pub cwd: Option<String>,
    pub branch: Option<String>,
    pub name: Option<String>,
    pub summary: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

impl Workspace {
    pub fn parse(text: &str) -> Workspace {
        let mut map = scalars(text);
        let mut take = |key: &str| map.remove(key).filter(|v| !v.is_empty());
        Workspace {
            id: take("id"),
            cwd: take("cwd"),
            branch: take("branch"),
            name: take("name"),
            summary: take("summary"),
            created_at: take("created_at"),
            updated_at: take("updated_at"),
        }
    }
}

/// Top-level `key: scalar` pairs.
fn scalars(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.is_empty() || line.starts_with([' ', '\t', '#', '-']) || line == "---" {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else { continue };
        let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
        let rest = rest.trim();
        let value = if let Some(indicator) = rest.strip_prefix(['|', '>']) {
            // A block scalar: the more-indented lines that follow.
            let folded = rest.starts_with('>');
            let keep = indicator.contains('+');
            let mut block = Vec::new();
            while i < lines.len() && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty()) {
                block.push(lines[i]);
                i += 1;
            }
            let indent = block
                .iter()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.len() - l.trim_start().len())
                .min()
                .unwrap_or(0);
            let body: Vec<&str> = block.iter().map(|l| if l.len() >= indent { &l[indent..] } else { "" }).collect();
            let mut joined = if folded { fold(&body) } else { body.join("\n") };
            if !keep {
                joined = joined.trim_end_matches('\n').to_string();
            }
            joined
        } else if let Some(inner) = rest.strip_prefix('"') {
            double_quoted(inner.strip_suffix('"').unwrap_or(inner))
        } else if let Some(inner) = rest.strip_prefix('\'') {
            inner.strip_suffix('\'').unwrap_or(inner).replace("''", "'")
        } else if rest.is_empty() || rest == "~" || rest == "null" {
            // A nested mapping or list, or null.
            continue;
        } else {
            // A plain scalar; a trailing comment goes.
            rest.split(" #").next().unwrap_or(rest).trim().to_string()
        };
        out.insert(key.to_string(), value);
    }
    out
}

fn fold(lines: &[&str]) -> String {
    let mut out = String::new();
    for (n, line) in lines.iter().enumerate() {
        if n > 0 {
            out.push(if line.is_empty() || lines[n - 1].is_empty() { '\n' } else { ' ' });
        }
        out.push_str(line);
    }
    out
}

fn double_quoted(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Workspace;

    #[test]
    fn reads_flat_scalars() {
        let w = Workspace::parse(
            "id: abc\ncwd: /home/u/p\nname: 'It''s: a test'\nsummary: |\n  line one\n  line two\nbranch: \"main \\u00e9\"\ncreated_at: 2026-01-01T00:00:00.000Z # c\nnested:\n  key: v\n",
        );
        assert_eq!(w.id.as_deref(), Some("abc"));
        assert_eq!(w.cwd.as_deref(), Some("/home/u/p"));
        assert_eq!(w.name.as_deref(), Some("It's: a test"));
        assert_eq!(w.summary.as_deref(), Some("line one\nline two"));
        assert_eq!(w.branch.as_deref(), Some("main é"));
        assert_eq!(w.created_at.as_deref(), Some("2026-01-01T00:00:00.000Z"));
        assert_eq!(w.updated_at, None);
    }
}
