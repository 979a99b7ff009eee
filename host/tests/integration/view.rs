//! `trajhost view` on every fixture home and on a hostile session: the page holds every record (its
//! data blocks parse back to the records the codec read), session text never becomes markup, and
//! the page names nothing outside itself. tests/view/run loads the same pages in headless Chromium.

use std::path::{Path, PathBuf};

use trajhost::inventory::{self, SessionQuery};

use crate::common::{CatalogHost, LAB_SCENARIOS, fixture_homes, repo_root, stderr, stdout, trajhost};

fn hostile_home() -> PathBuf {
    repo_root().join("tests/view/hostile")
}

/// The page's parts: the JSON of each data block, the session block, and the markup around them.
struct Parsed {
    blocks: Vec<serde_json::Value>,
    session: serde_json::Value,
    markup: String,
    script_tags: usize,
}

fn parse_page(page: &str) -> Result<Parsed, String> {
    const OPEN_BLOCK: &str = "<script type=\"application/json\" class=\"th-block\"";
    const OPEN_SESSION: &str = "<script type=\"application/json\" id=\"th-session\">";
    let mut blocks = Vec::new();
    let mut session = None;
    let mut markup = String::new();
    let mut rest = page;
    loop {
        let next_block = rest.find(OPEN_BLOCK);
        let next_session = rest.find(OPEN_SESSION);
        let (at, is_session) = match (next_block, next_session) {
            (Some(b), Some(s)) if s < b => (s, true),
            (Some(b), _) => (b, false),
            (None, Some(s)) => (s, true),
            (None, None) => break,
        };
        markup.push_str(&rest[..at]);
        let body_start = at + rest[at..].find('>').ok_or("an unclosed script tag")? + 1;
        let body_len = rest[body_start..].find("</script>").ok_or("a data block that never ends")?;
        let body = &rest[body_start..body_start + body_len];
        if body.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
            return Err(format!(
                "a data block holds a raw <, >, & or line separator: {}",
                body.chars().take(200).collect::<String>()
            ));
        }
        let value: serde_json::Value =
            serde_json::from_str(body).map_err(|e| format!("a data block is not JSON: {e}"))?;
        if is_session {
            session = Some(value);
        } else {
            blocks.push(value);
        }
        rest = &rest[body_start + body_len + "</script>".len()..];
    }
    markup.push_str(rest);
    let script_tags = markup.matches("<script").count();
    Ok(Parsed { blocks, session: session.ok_or("no session block")?, markup, script_tags })
}

/// What every page must satisfy: only its own script, no reference outside itself.
fn check_markup(parsed: &Parsed) -> Vec<String> {
    let mut problems = Vec::new();
    if parsed.script_tags != 1 {
        problems.push(format!("{} <script> tags outside the data blocks (the page's own: 1)", parsed.script_tags));
    }
    // The title is the session's text, escaped: it can hold "src=" as text, never a tag.
    let (before, after) = parsed.markup.split_once("<title>").unwrap_or((&parsed.markup, ""));
    let (title, after) = after.split_once("</title>").unwrap_or(("", after));
    if title.contains(['<', '>']) {
        problems.push(format!("the title holds markup: {title}"));
    }
    let markup = format!("{before}{after}");
    for forbidden in ["http://", "https://", " src=", " href=", "url(", "@import"] {
        if markup.contains(forbidden) {
            problems.push(format!("the markup holds {forbidden:?}"));
        }
    }
    if !parsed.markup.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';") {
        problems.push("no Content-Security-Policy".into());
    }
    problems
}

#[test]
fn every_fixture_session_renders_a_page_holding_its_records() {
    let host = CatalogHost::new();
    let catalog = host.catalog();
    let (mut lab, mut pages, mut failures) = (0, 0, Vec::new());
    for home in fixture_homes() {
        let is_lab = LAB_SCENARIOS.iter().any(|s| home.ends_with(s));
        let name = home.strip_prefix(repo_root()).unwrap().display().to_string();
        let found =
            inventory::discover(&catalog, &SessionQuery { home: home.clone(), harness: None, cwd: None }).unwrap();
        if found.sessions.is_empty() {
            // Cursor's codec is a plugin file, not built in.
            assert!(!is_lab || name.contains("cursor"), "{name}: a lab fixture with no session");
            continue;
        }
        lab += is_lab as usize;
        for session in &found.sessions {
            let id = format!("{name} {}", session.session.native_id);
            let mut page = Vec::new();
            let rendered = match trajhost::view::render(&catalog, session, None, None, &mut page) {
                Ok(rendered) => rendered,
                // Hand-kept homes hold sessions a codec refuses on purpose (an fx schema it does not read).
                Err(error) if !is_lab => {
                    eprintln!("{id}: the codec refuses it ({error}): no page");
                    continue;
                }
                Err(error) => {
                    failures.push(format!("{id}: {error}"));
                    continue;
                }
            };
            pages += 1;
            let page = String::from_utf8(page).unwrap();
            let parsed = match parse_page(&page) {
                Ok(parsed) => parsed,
                Err(problem) => {
                    failures.push(format!("{id}: {problem}"));
                    continue;
                }
            };
            failures.extend(check_markup(&parsed).into_iter().map(|p| format!("{id}: {p}")));
            // The blocks hold exactly the records a plain read returns, in order.
            let embedded: Vec<serde_json::Value> =
                parsed.blocks.iter().flat_map(|b| b.as_array().cloned().unwrap_or_default()).collect();
            let (_codec, mut stream) =
                inventory::open(&catalog, session, None, inventory::default_read_options()).unwrap();
            let mut read = Vec::new();
            while let Some(batch) = stream.next_batch().unwrap() {
                read.extend(batch.records.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()));
            }
            if embedded != read {
                failures.push(format!("{id}: the page holds {} records, the read {}", embedded.len(), read.len()));
            }
            if parsed.blocks.len() as u64 != rendered.blocks || parsed.session["records"] != read.len() {
                failures.push(format!("{id}: block or record counts disagree"));
            }
            if parsed.session["native_id"] != session.session.native_id.as_str() {
                failures.push(format!("{id}: the session block names {}", parsed.session["native_id"]));
            }
        }
    }
    eprintln!("view: {pages} pages; lab fixtures {lab}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(lab >= 80, "the lab fixtures were found: {lab}");
}

#[test]
fn a_hostile_session_stays_text() {
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("hostile.html");
    let home = hostile_home();
    let args = ["view", "0b5e55ed", "--home", home.to_str().unwrap(), "--out", file.to_str().unwrap()];
    let run = trajhost(data.path(), &args);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(stdout(&run).trim(), file.display().to_string());
    let page = std::fs::read_to_string(&file).unwrap();
    let parsed = parse_page(&page).unwrap();
    assert_eq!(check_markup(&parsed), Vec::<String>::new());
    for raw in ["<script>alert", "<img", "<svg", "<b onmouseover", "<!-- comment", "\u{2028}"] {
        assert!(!page.contains(raw), "the page holds {raw:?} as markup");
    }
    // The prompt is the page's title, escaped as HTML text.
    assert!(page.contains("<title>Please echo this back: &lt;/script&gt;&lt;script&gt;alert(1)"), "{page}");
    // And the records still say what the session said.
    let text = serde_json::to_string(&parsed.blocks).unwrap();
    assert!(text.contains("</script><script>alert(1)</script> and <img src=x onerror=alert(1)>"), "{text}");
    assert!(text.contains("HOSTILE-RESULT-7") && text.contains("\u{2028}line\u{2029}sep"));
    // The file is readable like any file the user creates.
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&file).unwrap().permissions());
    assert_eq!(mode & 0o600, 0o600);
}

#[test]
fn view_writes_the_session_id_named_file_or_stdout() {
    let data = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let home = crate::common::fixture_home("claude-code", "2.1.197", "simple");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_trajhost"))
        .current_dir(cwd.path())
        .arg("--data-dir")
        .arg(data.path())
        .args(["view", "61ec73f4", "--home"])
        .arg(&home)
        .env("TRAJHOST_CACHE_DIR", crate::common::shared_cache())
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    let name = "61ec73f4-b0bb-4d28-a8cc-bfda17c07ec0.html";
    assert_eq!(stdout(&run).trim(), name);
    let page = std::fs::read_to_string(cwd.path().join(name)).unwrap();
    assert!(page.contains("PAPAYA-42"));
    let leftovers: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");

    let run = trajhost(data.path(), &["view", "61ec73f4", "--home", home.to_str().unwrap(), "--out", "-"]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_eq!(stdout(&run), page);
    assert!(stderr(&run).contains("15 records"), "{}", stderr(&run));
}

#[test]
fn view_of_an_unknown_id_says_so_and_writes_nothing() {
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("page.html");
    let home = crate::common::fixture_home("claude-code", "2.1.197", "simple");
    let args = ["view", "ffffdead", "--home", home.to_str().unwrap(), "--out", file.to_str().unwrap()];
    let run = trajhost(data.path(), &args);
    assert_eq!(run.status.code(), Some(3), "{}", stderr(&run));
    assert!(stderr(&run).contains("ffffdead"), "{}", stderr(&run));
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none(), "a file was left behind");

    // A file that is no session of any codec.
    let stray = out.path().join("notes.txt");
    std::fs::write(&stray, "just some notes\n").unwrap();
    let run = trajhost(data.path(), &["view", stray.to_str().unwrap(), "--out", file.to_str().unwrap()]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("notes.txt"), "{}", stderr(&run));
    assert!(!file.exists());
}

#[test]
fn view_open_without_a_browser_says_what_to_do() {
    let data = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let empty_path = tempfile::tempdir().unwrap();
    let file = out.path().join("page.html");
    let home = crate::common::fixture_home("claude-code", "2.1.197", "simple");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_trajhost"))
        .arg("--data-dir")
        .arg(data.path())
        .args(["view", "61ec73f4", "--open", "--home"])
        .arg(&home)
        .arg("--out")
        .arg(&file)
        .env("TRAJHOST_CACHE_DIR", crate::common::shared_cache())
        .env("PATH", empty_path.path())
        .env_remove("BROWSER")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", stderr(&run));
    assert!(stderr(&run).contains("no browser"), "{}", stderr(&run));
    assert!(stderr(&run).contains("$BROWSER"), "{}", stderr(&run));
    // The page itself was written.
    assert!(file.exists());
    assert!(Path::new(&file).metadata().unwrap().len() > 1000);
}

#[test]
fn an_archived_session_is_viewed_after_its_source_is_deleted() {
    let home = tempfile::tempdir().unwrap();
    for harness in [("claude-code", "2.1.197"), ("hermes", "0.19.0")] {
        let fixture = crate::common::fixture_home(harness.0, harness.1, "simple");
        let copied = std::process::Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", fixture.display()))
            .arg(home.path())
            .status()
            .unwrap();
        assert!(copied.success());
    }
    let data = tempfile::tempdir().unwrap();
    let sync = trajhost(data.path(), &["sync", "--home", home.path().to_str().unwrap()]);
    assert!(sync.status.success(), "{}", stderr(&sync));
    std::fs::remove_dir_all(home.path().join(".claude")).unwrap();
    std::fs::remove_dir_all(home.path().join(".hermes")).unwrap();
    let out = tempfile::tempdir().unwrap();
    // JSONL from kept byte ranges, and SQLite from a recorded tape: both read in a restored home.
    for id in ["61ec73f4", "20261130_041901_233928"] {
        let file = out.path().join(format!("{id}.html"));
        let args = ["view", id, "--home", home.path().to_str().unwrap(), "--out", file.to_str().unwrap()];
        let run = trajhost(data.path(), &args);
        assert!(run.status.success(), "{id}: {}", stderr(&run));
        let page = std::fs::read_to_string(&file).unwrap();
        assert!(page.contains("PAPAYA-42"), "{id}: the page holds the session");
    }
}
