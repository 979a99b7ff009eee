//! The session list behind `trajhost browse`: rows from the archive or from
//! a discovery, newest first, and the filters the terminal UI applies (a
//! harness, words matched against title, folder and id, the sessions a
//! full-text search hit). Kept apart from drawing, so that it is measured
//! (the bench lists 25,000 sessions) and tested without a terminal.

use std::collections::HashSet;
use std::path::PathBuf;

use trajhost_archive::ArchivedSession;
use trajhost_inventory::FoundSession;

/// One session in the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub harness: String,
    pub native_id: String,
    /// The home it was found under (where to read it from).
    pub home: PathBuf,
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub updated_at: Option<String>,
    /// Bytes of its files, from a discovery.
    pub size: Option<u64>,
    /// Canonical records, from the archive.
    pub records: Option<u64>,
    /// Lowercased harness, id, title and folder: what words are matched in.
    haystack: String,
}

impl Row {
    pub fn new(
        harness: &str,
        native_id: &str,
        home: PathBuf,
        title: Option<String>,
        cwd: Option<String>,
        updated_at: Option<String>,
    ) -> Row {
        let haystack = format!(
            "{harness}\n{native_id}\n{}\n{}",
            title.as_deref().unwrap_or_default(),
            cwd.as_deref().unwrap_or_default()
        )
        .to_lowercase();
        Row {
            harness: harness.to_string(),
            native_id: native_id.to_string(),
            home,
            title,
            cwd,
            updated_at,
            size: None,
            records: None,
            haystack,
        }
    }

    /// The rows of a discovery, newest first.
    pub fn from_inventory(sessions: &[FoundSession]) -> Vec<Row> {
        let mut rows: Vec<Row> = sessions
            .iter()
            .map(|s| {
                let mut row = Row::new(
                    &s.harness,
                    &s.session.native_id,
                    s.home.clone(),
                    s.session.title.clone(),
                    s.session.cwd.clone(),
                    s.session.updated_at.clone().or_else(|| s.session.started_at.clone()),
                );
                row.size = Some(s.session.size);
                row
            })
            .collect();
        newest_first(&mut rows);
        rows
    }

    /// The rows of the archive's index, newest first.
    pub fn from_archive(sessions: &[ArchivedSession]) -> Vec<Row> {
        let mut rows: Vec<Row> = sessions
            .iter()
            .map(|s| {
                let mut row = Row::new(
                    &s.harness,
                    &s.native_id,
                    s.home.clone(),
                    s.title.clone(),
                    s.cwd.clone(),
                    s.updated_at.clone().or_else(|| s.started_at.clone()),
                );
                row.records = Some(s.records);
                row
            })
            .collect();
        newest_first(&mut rows);
        rows
    }
}

fn newest_first(rows: &mut [Row]) {
    rows.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.native_id.cmp(&b.native_id)));
}

/// What the list shows.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this harness.
    pub harness: Option<String>,
    /// Every word must occur (case-insensitively) in the harness, id, title or folder.
    pub words: String,
    /// Only these sessions, `(harness, native id)`: a full-text search's hits.
    pub only: Option<HashSet<(String, String)>>,
}

/// The indices of the rows `filter` keeps, in list order.
pub fn filter(rows: &[Row], filter: &Filter) -> Vec<usize> {
    let words: Vec<String> = filter.words.split_whitespace().map(str::to_lowercase).collect();
    rows.iter()
        .enumerate()
        .filter(|(_, row)| filter.harness.as_deref().is_none_or(|h| row.harness == h))
        .filter(|(_, row)| words.iter().all(|w| row.haystack.contains(w.as_str())))
        .filter(|(_, row)| {
            filter.only.as_ref().is_none_or(|only| only.contains(&(row.harness.clone(), row.native_id.clone())))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The harnesses present in `rows`, sorted.
pub fn harnesses(rows: &[Row]) -> Vec<String> {
    let mut all: Vec<String> = rows.iter().map(|r| r.harness.clone()).collect();
    all.sort();
    all.dedup();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(harness: &str, id: &str, title: &str, cwd: &str, updated: &str) -> Row {
        Row::new(harness, id, PathBuf::from("/h"), Some(title.into()), Some(cwd.into()), Some(updated.into()))
    }

    #[test]
    fn filters_combine_harness_words_and_hits() {
        let mut rows = vec![
            row("codex", "a1", "Fix the parser", "/w/parser", "2026-12-01"),
            row("claude-code", "b2", "Write docs", "/w/docs", "2026-12-03"),
            row("codex", "c3", "Parser docs", "/w/docs", "2026-12-02"),
        ];
        newest_first(&mut rows);
        assert_eq!(rows.iter().map(|r| r.native_id.as_str()).collect::<Vec<_>>(), ["b2", "c3", "a1"]);
        assert_eq!(filter(&rows, &Filter::default()), [0, 1, 2]);
        let codex = Filter { harness: Some("codex".into()), ..Filter::default() };
        assert_eq!(filter(&rows, &codex), [1, 2]);
        let words = Filter { words: "PARSER /w/docs".into(), ..Filter::default() };
        assert_eq!(filter(&rows, &words), [1]);
        let hits = Filter { only: Some([("codex".to_string(), "a1".to_string())].into()), ..Filter::default() };
        assert_eq!(filter(&rows, &hits), [2]);
        assert_eq!(harnesses(&rows), ["claude-code", "codex"]);
    }
}
