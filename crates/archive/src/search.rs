//! What the full-text index holds for a record, and how a user's query
//! becomes terms (and an FTS5 query; PostgreSQL's tsquery is built from
//! the same terms in [`super::postgres`]).

use serde_json::Value;
use trajhost_canonical::{Body, Record};

/// Marks around each match in a snippet. Control characters, so that they
/// cannot occur in indexed text; the CLI renders them (bold on a terminal,
/// `[`…`]` otherwise) and `--json` keeps them as `\u0002`/`\u0003`.
pub const MARK_OPEN: &str = "\u{2}";
pub const MARK_CLOSE: &str = "\u{3}";

/// The searchable text of a canonical record: what the user or the model
/// said, the model's reasoning, a tool call's name and arguments, a tool
/// result, a compaction summary. `None` for other kinds and empty text.
pub fn record_text(record: &Record) -> Option<String> {
    let text = match &record.body {
        Body::User { text, .. } => text.clone(),
        Body::Assistant(a) => a.text.clone(),
        Body::Reasoning(r) => r.text.clone()?,
        Body::ToolCall { name, arguments, .. } => match arguments {
            Value::String(s) => format!("{name} {s}"),
            other => format!("{name} {}", argument_text(other)),
        },
        Body::ToolResult { content, .. } => content.clone(),
        Body::Compaction { summary, .. } => summary.clone(),
        _ => return None,
    };
    // The snippet markers must not occur in indexed text.
    let text = text.replace(['\u{2}', '\u{3}'], " ");
    (!text.trim().is_empty()).then_some(text)
}

/// The strings of a JSON value (keys are not searched for; values are).
fn argument_text(value: &Value) -> String {
    let mut out = String::new();
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push(' ');
            }
            Value::Number(n) => {
                out.push_str(&n.to_string());
                out.push(' ');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    walk(value, &mut out);
    out.trim_end().to_string()
}

/// One term of a user's query: a word or `"a phrase"` (which must match),
/// `word*` (a prefix), or `OR` between the terms around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Words { text: String, prefix: bool },
    Or,
}

/// A user's query as terms: words and `"phrases"`, `word*` prefixes, `OR`
/// between two terms (kept only there); a term with no letter or digit is
/// dropped. Every store turns these into its own syntax.
pub fn terms(text: &str) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (term, after) = if let Some(quoted) = rest.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            match rest.find(char::is_whitespace) {
                Some(end) => (&rest[..end], &rest[end..]),
                None => (rest, ""),
            }
        };
        rest = after.trim_start();
        if term == "OR" && terms.last().is_some_and(|t| *t != Term::Or) && !rest.is_empty() {
            terms.push(Term::Or);
            continue;
        }
        let (word, prefix) = match term.strip_suffix('*') {
            Some(w) if !w.is_empty() => (w, true),
            _ => (term, false),
        };
        if !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        terms.push(Term::Words { text: word.to_string(), prefix });
    }
    while terms.last().is_some_and(|t| *t == Term::Or) {
        terms.pop();
    }
    terms
}

/// A user's query as FTS5 syntax: every word must match (each quoted, so
/// that punctuation is never operator syntax), `"a phrase"` stays a phrase,
/// `word*` is a prefix, and `OR` between words is kept. `None` when nothing
/// is left to search for.
pub fn fts_query(text: &str) -> Option<String> {
    let terms: Vec<String> = terms(text)
        .into_iter()
        .map(|term| match term {
            Term::Or => "OR".to_string(),
            Term::Words { text, prefix } => {
                let quoted = format!("\"{}\"", text.replace('"', "\"\""));
                if prefix { format!("{quoted}*") } else { quoted }
            }
        })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn queries_quote_words_and_keep_phrases_prefixes_and_or() {
        assert_eq!(fts_query("papaya secret").as_deref(), Some(r#""papaya" "secret""#));
        assert_eq!(fts_query(r#""secret word" pap*"#).as_deref(), Some(r#""secret word" "pap"*"#));
        assert_eq!(fts_query("a OR b").as_deref(), Some(r#""a" OR "b""#));
        assert_eq!(fts_query("NEAR( -x:y").as_deref(), Some(r#""NEAR(" "-x:y""#));
        assert_eq!(fts_query("  * - "), None);
    }

    fn text(value: serde_json::Value) -> Option<String> {
        let mut value = value;
        value["id"] = json!("r");
        record_text(&serde_json::from_value(value).unwrap())
    }

    #[test]
    fn text_per_kind() {
        assert_eq!(text(json!({"kind": "user", "text": "hello"})).as_deref(), Some("hello"));
        assert_eq!(
            text(
                json!({"kind": "tool_call", "call_id": "c", "name": "Bash", "arguments": {"command": "ls -la", "n": 2}})
            )
            .as_deref(),
            Some("Bash ls -la 2")
        );
        assert_eq!(text(json!({"kind": "tool_result", "call_id": "c", "content": "MANGO"})).as_deref(), Some("MANGO"));
        assert_eq!(text(json!({"kind": "system", "text": "x"})), None);
        assert_eq!(text(json!({"kind": "assistant", "text": "  "})), None);
    }
}
