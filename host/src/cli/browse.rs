//! `trajhost browse` (and bare `trajhost` on a terminal): every session on
//! the machine in a terminal UI. The list comes from the archive when one
//! exists, else from a discovery of the home (progress shown per harness);
//! `trajhost::browse` filters it. Session text is escaped like every other
//! human output, so a session cannot drive the terminal.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Row as TableRow, Table, TableState, Wrap};
use trajhost::browse::{self, Filter, Row};
use trajhost::canonical::{Body, Record};

use super::terminal::safe_field;
use super::{Context, default_home, exit};

#[derive(clap::Args, Default)]
pub struct Args {
    /// The home whose sessions to list when there is no archive (default: $HOME); with an archive, only
    /// the archived sessions of this home.
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Where `c` continues a session (default: $HOME).
    #[arg(long, value_name = "DIR")]
    target_home: Option<PathBuf>,
    /// List by discovery even when an archive exists.
    #[arg(long)]
    no_archive: bool,
}

/// How many records the preview reads.
const PREVIEW_RECORDS: usize = 40;
/// How many search hits narrow the list.
const SEARCH_HITS: usize = 500;

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let mut terminal = Terminal::enter()?;
    let archive = if args.no_archive { None } else { super::archive::existing_archive(ctx)? };
    let rows = match &archive {
        Some(store) => {
            let home = args.home.as_ref().map(|h| std::fs::canonicalize(h).unwrap_or_else(|_| h.clone()));
            let filter = trajhost::archive::store::SessionFilter { home, ..Default::default() };
            Row::from_archive(&store.sessions(&filter)?)
        }
        None => discover_with_progress(&catalog, &mut terminal, &args.home.clone().unwrap_or_else(default_home))?,
    };
    let mut app = App::new(rows, archive.is_some());
    let outcome = app.run(ctx, &catalog, &mut terminal, archive.as_deref(), args)?;
    drop(terminal);
    match outcome {
        Outcome::Quit => Ok(exit::OK),
        Outcome::Launch { argv, cwd, home, line } => super::continue_session::launch(&argv, &cwd, &home, &line),
    }
}

/// Discovery one harness at a time, drawing how far it got.
fn discover_with_progress(
    catalog: &trajhost::catalog::Catalog<'_>,
    terminal: &mut Terminal,
    home: &std::path::Path,
) -> anyhow::Result<Vec<Row>> {
    let harnesses = catalog.harnesses();
    let mut sessions = Vec::new();
    for (done, harness) in harnesses.iter().enumerate() {
        let text = format!(
            "discovering sessions under {}: {harness} ({}/{}), {} found so far",
            home.display(),
            done + 1,
            harnesses.len(),
            sessions.len()
        );
        terminal.inner.draw(|f| f.render_widget(Paragraph::new(safe_field(&text).into_owned()), f.area()))?;
        let query =
            trajhost::inventory::SessionQuery { home: home.to_path_buf(), harness: Some(harness.clone()), cwd: None };
        match trajhost::inventory::discover(catalog, &query) {
            Ok(found) => sessions.extend(found.sessions),
            Err(error) => tracing::warn!("{harness}: {error}"),
        }
    }
    Ok(Row::from_inventory(&sessions))
}

/// The terminal in raw mode on the alternate screen, restored when dropped
/// (also on a panic).
struct Terminal {
    inner: ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>,
}

impl Terminal {
    fn enter() -> anyhow::Result<Terminal> {
        crossterm::terminal::enable_raw_mode()?;
        crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        let inner = ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))?;
        Ok(Terminal { inner })
    }
}

fn restore() {
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = crossterm::execute!(std::io::stdout(), crossterm::terminal::LeaveAlternateScreen, crossterm::cursor::Show);
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore();
    }
}

enum Outcome {
    Quit,
    Launch { argv: Vec<String>, cwd: PathBuf, home: PathBuf, line: String },
}

/// What the keyboard is typing into.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Filter,
    Search,
}

enum Mode {
    List,
    Prompt(Prompt, String),
    /// The whole transcript, scrolled; `unfolded` shows tool calls,
    /// results and reasoning whole.
    Pager {
        lines: Vec<Line<'static>>,
        raw: Vec<Item>,
        scroll: usize,
        unfolded: bool,
    },
    /// Choosing the harness to continue in.
    Pick {
        harnesses: Vec<String>,
        selected: usize,
    },
    /// A session was prepared: Enter starts the harness.
    Prepared {
        line: String,
        argv: Option<Vec<String>>,
        cwd: PathBuf,
        home: PathBuf,
    },
}

struct App {
    rows: Vec<Row>,
    shown: Vec<usize>,
    filter: Filter,
    harnesses: Vec<String>,
    state: TableState,
    mode: Mode,
    status: String,
    /// The search words, highlighted in the list.
    search: String,
    from_archive: bool,
    previews: HashMap<(String, String), Vec<Line<'static>>>,
}

impl App {
    fn new(rows: Vec<Row>, from_archive: bool) -> App {
        let harnesses = browse::harnesses(&rows);
        let shown = browse::filter(&rows, &Filter::default());
        let mut state = TableState::default();
        state.select((!shown.is_empty()).then_some(0));
        App {
            rows,
            shown,
            filter: Filter::default(),
            harnesses,
            state,
            mode: Mode::List,
            status: String::new(),
            search: String::new(),
            from_archive,
            previews: HashMap::new(),
        }
    }

    fn selected(&self) -> Option<&Row> {
        self.state.selected().and_then(|i| self.shown.get(i)).map(|&i| &self.rows[i])
    }

    fn refilter(&mut self) {
        self.shown = browse::filter(&self.rows, &self.filter);
        self.state.select((!self.shown.is_empty()).then_some(0));
    }

    fn run(
        &mut self,
        ctx: &Context,
        catalog: &trajhost::catalog::Catalog<'_>,
        terminal: &mut Terminal,
        archive: Option<&dyn trajhost::archive::ArchiveStore>,
        args: &Args,
    ) -> anyhow::Result<Outcome> {
        loop {
            self.load_preview(ctx, catalog);
            terminal.inner.draw(|f| self.draw(f))?;
            if !event::poll(Duration::from_millis(500))? {
                continue;
            }
            let Event::Key(key) = event::read()? else { continue };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            if let Some(outcome) = self.key(ctx, catalog, archive, args, key)? {
                return Ok(outcome);
            }
        }
    }

    fn key(
        &mut self,
        ctx: &Context,
        catalog: &trajhost::catalog::Catalog<'_>,
        archive: Option<&dyn trajhost::archive::ArchiveStore>,
        args: &Args,
        key: KeyEvent,
    ) -> anyhow::Result<Option<Outcome>> {
        let ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c {
            return Ok(Some(Outcome::Quit));
        }
        match &mut self.mode {
            Mode::Prompt(prompt, text) => match key.code {
                KeyCode::Esc => self.mode = Mode::List,
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) => text.push(c),
                KeyCode::Enter => {
                    let (prompt, text) = (*prompt, std::mem::take(text));
                    self.mode = Mode::List;
                    match prompt {
                        Prompt::Filter => {
                            self.filter.words = text;
                            self.refilter();
                        }
                        Prompt::Search => self.search(archive, text)?,
                    }
                }
                _ => {}
            },
            Mode::Pager { lines, raw, scroll, unfolded } => match key.code {
                KeyCode::Char('q') | KeyCode::Esc => self.mode = Mode::List,
                KeyCode::Down | KeyCode::Char('j') => *scroll = (*scroll + 1).min(lines.len().saturating_sub(1)),
                KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                KeyCode::PageDown | KeyCode::Char(' ') => *scroll = (*scroll + 20).min(lines.len().saturating_sub(1)),
                KeyCode::PageUp => *scroll = scroll.saturating_sub(20),
                KeyCode::Char('g') | KeyCode::Home => *scroll = 0,
                KeyCode::Char('G') | KeyCode::End => *scroll = lines.len().saturating_sub(1),
                KeyCode::Char('t') => {
                    *unfolded = !*unfolded;
                    *lines = render(raw, *unfolded, &self.search);
                    *scroll = (*scroll).min(lines.len().saturating_sub(1));
                }
                _ => {}
            },
            Mode::Pick { harnesses, selected } => match key.code {
                KeyCode::Esc | KeyCode::Char('q') => self.mode = Mode::List,
                KeyCode::Down | KeyCode::Char('j') => {
                    *selected = (*selected + 1).min(harnesses.len().saturating_sub(1))
                }
                KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
                // A letter jumps to the first harness it starts (the list grows long).
                KeyCode::Char(letter) => {
                    if let Some(first) = harnesses.iter().position(|h| h.starts_with(letter)) {
                        *selected = first;
                    }
                }
                KeyCode::Enter => {
                    let to = harnesses[*selected].clone();
                    self.mode = Mode::List;
                    self.continue_in(ctx, catalog, args, &to);
                }
                _ => {}
            },
            Mode::Prepared { argv, cwd, home, line } => match key.code {
                KeyCode::Enter => {
                    if let Some(argv) = argv.take() {
                        return Ok(Some(Outcome::Launch {
                            argv,
                            cwd: cwd.clone(),
                            home: home.clone(),
                            line: line.clone(),
                        }));
                    }
                    self.mode = Mode::List;
                }
                _ => self.mode = Mode::List,
            },
            Mode::List => match key.code {
                KeyCode::Char('q') | KeyCode::Esc => return Ok(Some(Outcome::Quit)),
                KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
                KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
                KeyCode::PageDown => self.move_by(20),
                KeyCode::PageUp => self.move_by(-20),
                KeyCode::Home | KeyCode::Char('g') => self.state.select((!self.shown.is_empty()).then_some(0)),
                KeyCode::End | KeyCode::Char('G') => self.state.select(self.shown.len().checked_sub(1)),
                KeyCode::Char('/') => self.mode = Mode::Prompt(Prompt::Search, String::new()),
                KeyCode::Char('f') => self.mode = Mode::Prompt(Prompt::Filter, self.filter.words.clone()),
                KeyCode::Char('h') => {
                    // Cycle: all, then each harness.
                    let next = match &self.filter.harness {
                        None => self.harnesses.first().cloned(),
                        Some(h) => {
                            let at = self.harnesses.iter().position(|x| x == h).map_or(0, |i| i + 1);
                            self.harnesses.get(at).cloned()
                        }
                    };
                    self.filter.harness = next;
                    self.refilter();
                }
                KeyCode::Char('x') => {
                    self.filter = Filter::default();
                    self.search.clear();
                    self.refilter();
                    self.status = "filters cleared".into();
                }
                KeyCode::Enter => {
                    if let Some(row) = self.selected().cloned() {
                        match read_items(ctx, catalog, &row, usize::MAX) {
                            Ok(raw) => {
                                let lines = render(&raw, false, &self.search);
                                self.mode = Mode::Pager { lines, raw, scroll: 0, unfolded: false };
                            }
                            Err(error) => self.status = format!("cannot read it: {error:#}"),
                        }
                    }
                }
                KeyCode::Char('c') => {
                    if let Some(row) = self.selected() {
                        let harnesses: Vec<String> = catalog
                            .harnesses()
                            .into_iter()
                            .filter(|h| *h != row.harness)
                            .filter(|h| catalog.for_harness(h).iter().any(|c| !c.writes.is_empty()))
                            .collect();
                        self.mode = Mode::Pick { harnesses, selected: 0 };
                    }
                }
                KeyCode::Char('v') => self.view(ctx, catalog),
                KeyCode::Char('e') => self.export(ctx, catalog),
                KeyCode::Char('y') => {
                    if let Some(row) = self.selected() {
                        let id = row.native_id.clone();
                        copy_to_clipboard(&id);
                        self.status = format!("copied {}", safe_field(&id));
                    }
                }
                _ => {}
            },
        }
        Ok(None)
    }

    fn move_by(&mut self, delta: isize) {
        if self.shown.is_empty() {
            return;
        }
        let at = self.state.selected().unwrap_or(0) as isize + delta;
        self.state.select(Some(at.clamp(0, self.shown.len() as isize - 1) as usize));
    }

    /// Narrows the list to the sessions whose records hold `text` (the
    /// archive's full-text index), else to those whose title or folder do.
    fn search(&mut self, archive: Option<&dyn trajhost::archive::ArchiveStore>, text: String) -> anyhow::Result<()> {
        self.search = text.clone();
        if text.trim().is_empty() {
            self.filter.only = None;
            self.refilter();
            return Ok(());
        }
        match archive {
            Some(store) => {
                let query = trajhost::archive::store::SearchQuery {
                    text: text.clone(),
                    harness: None,
                    cwd: None,
                    since_ms: None,
                    kind: None,
                    limit: SEARCH_HITS,
                };
                match store.search(&query) {
                    Ok(hits) => {
                        let sessions: std::collections::HashSet<(String, String)> =
                            hits.iter().map(|h| (h.harness.clone(), h.native_id.clone())).collect();
                        self.status =
                            format!("{} hits in {} sessions for {}", hits.len(), sessions.len(), safe_field(&text));
                        self.filter.only = Some(sessions);
                    }
                    Err(error) => self.status = format!("search failed: {error}"),
                }
            }
            None => {
                // No archive: titles and folders only.
                self.filter.only = None;
                self.filter.words = text.clone();
                self.status =
                    format!("no archive (run `trajhost sync`): matched {} in titles and folders", safe_field(&text));
            }
        }
        self.refilter();
        Ok(())
    }

    fn load_preview(&mut self, ctx: &Context, catalog: &trajhost::catalog::Catalog<'_>) {
        let Some(row) = self.selected().cloned() else { return };
        let key = (row.harness.clone(), row.native_id.clone());
        if self.previews.contains_key(&key) {
            return;
        }
        let lines = match read_items(ctx, catalog, &row, PREVIEW_RECORDS) {
            Ok(items) => render(&items, false, &self.search),
            Err(error) => vec![Line::from(format!("cannot read it: {}", safe_field(&format!("{error:#}"))))],
        };
        self.previews.insert(key, lines);
    }

    fn continue_in(&mut self, ctx: &Context, catalog: &trajhost::catalog::Catalog<'_>, args: &Args, to: &str) {
        let Some(row) = self.selected().cloned() else { return };
        let target = super::continue_session::Target {
            harness: to,
            version: None,
            home: args.target_home.clone().unwrap_or_else(default_home),
            cwd: None,
            choice: Default::default(),
            lossy: false,
            target_version: None,
            probe_cli: true,
            keep_export: None,
            redaction: None,
        };
        let result = resolve(ctx, catalog, &row)
            .and_then(|session| super::continue_session::continue_into(ctx, catalog, &session.found, &target));
        match result {
            Ok(continued) => {
                let verified = if continued.installed.verdict.verified { "verified" } else { "not verified" };
                let (argv, line) = match &continued.interactive {
                    Some((argv, line)) => (Some(argv.clone()), line.clone()),
                    None => (None, continued.installed.plan.resume_command.clone().unwrap_or_default()),
                };
                self.status = format!("prepared in {to} as {} ({verified})", continued.installed.plan.native_id);
                self.mode =
                    Mode::Prepared { line, argv, cwd: continued.cwd.clone(), home: continued.installed.home.clone() };
            }
            Err(error) => self.status = format!("cannot continue it in {to}: {}", safe_field(&format!("{error:#}"))),
        }
    }

    fn view(&mut self, ctx: &Context, catalog: &trajhost::catalog::Catalog<'_>) {
        let Some(row) = self.selected().cloned() else { return };
        let path = std::env::temp_dir().join(format!("trajhost-{}.html", row.native_id.replace(['/', '\\'], "_")));
        let written = resolve(ctx, catalog, &row).and_then(|session| {
            let file = std::fs::File::create(&path)?;
            // A page is for sharing: masked as `trajhost view` masks it.
            let redactor =
                super::redact::RedactFlags::default().redactor(&ctx.data_dir, trajhost::redaction::Sink::View)?;
            trajhost::view::render(catalog, &session.found, None, redactor.as_ref(), std::io::BufWriter::new(file))?;
            Ok(())
        });
        self.status = match written {
            Ok(()) => {
                let opener = std::env::var("BROWSER").unwrap_or_else(|_| "xdg-open".into());
                let opened = std::process::Command::new(&opener)
                    .arg(&path)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .is_ok();
                format!("wrote {}{}", path.display(), if opened { "" } else { " (no browser to open it)" })
            }
            Err(error) => format!("cannot write the page: {}", safe_field(&format!("{error:#}"))),
        };
    }

    /// Writes the session's canonical records (as `read --json`) to
    /// `<id>.jsonl` in the current directory.
    fn export(&mut self, ctx: &Context, catalog: &trajhost::catalog::Catalog<'_>) {
        let Some(row) = self.selected().cloned() else { return };
        let path = PathBuf::from(format!("{}.jsonl", row.native_id.replace(['/', '\\'], "_")));
        let written = resolve(ctx, catalog, &row).and_then(|session| {
            let (_, stream) =
                trajhost::inventory::open(catalog, &session.found, None, trajhost::inventory::default_read_options())?;
            let mut stream = stream.prefetched();
            let redactor =
                super::redact::RedactFlags::default().redactor(&ctx.data_dir, trajhost::redaction::Sink::Export)?;
            let mut out = std::io::BufWriter::new(std::fs::File::create_new(&path)?);
            let mut redactions = trajhost::redaction::Counts::default();
            while let Some(batch) = stream.next_batch()? {
                let records = match &redactor {
                    Some(r) => trajhost::redaction::redact_lines(r, batch.records, &mut redactions),
                    None => batch.records,
                };
                out.write_all(records.as_bytes())?;
            }
            out.flush()?;
            Ok(())
        });
        self.status = match written {
            Ok(()) => format!("exported the canonical records to {}", path.display()),
            Err(error) => format!("cannot export it: {}", safe_field(&format!("{error:#}"))),
        };
    }

    fn draw(&mut self, f: &mut ratatui::Frame<'_>) {
        let area = f.area();
        let [top, main, bottom] =
            split(area, Direction::Vertical, [Constraint::Length(1), Constraint::Min(3), Constraint::Length(1)]);
        let source = if self.from_archive { "archive" } else { "discovery" };
        let header = format!(
            " trajhost  {} sessions, {} shown ({source})  harness: {}  filter: {}  search: {}",
            self.rows.len(),
            self.shown.len(),
            self.filter.harness.as_deref().unwrap_or("all"),
            if self.filter.words.is_empty() { "-" } else { &self.filter.words },
            if self.search.is_empty() { "-" } else { &self.search },
        );
        f.render_widget(
            Paragraph::new(safe_field(&header).into_owned()).style(Style::new().add_modifier(Modifier::REVERSED)),
            top,
        );

        match &self.mode {
            Mode::Pager { lines, scroll, unfolded, .. } => {
                let title = if *unfolded { " transcript (t: fold) " } else { " transcript (t: unfold) " };
                let text: Vec<Line<'static>> = lines.iter().skip(*scroll).cloned().collect();
                let pager = Paragraph::new(text)
                    .block(Block::default().borders(Borders::ALL).title(title))
                    .wrap(Wrap { trim: false });
                f.render_widget(pager, main);
            }
            _ => self.draw_list(f, main),
        }

        let keys = match &self.mode {
            Mode::List => {
                "↑↓ move  Enter open  / search  f filter  h harness  x clear  c continue  v view  e export  y copy id  q quit"
            }
            Mode::Prompt(..) => "Enter apply  Esc cancel",
            Mode::Pager { .. } => "↑↓ PgUp PgDn scroll  t fold/unfold  q back",
            Mode::Pick { .. } => "↑↓ or its first letter: choose the harness  Enter continue there  Esc back",
            Mode::Prepared { .. } => "Enter start it now  any other key: back to the list",
        };
        let line = if self.status.is_empty() { keys.to_string() } else { format!("{}  |  {keys}", self.status) };
        f.render_widget(Paragraph::new(safe_field(&line).into_owned()), bottom);

        match &self.mode {
            Mode::Prompt(prompt, text) => {
                let label = match prompt {
                    Prompt::Filter => "filter (words in title, folder, id, harness)",
                    Prompt::Search => {
                        if self.from_archive {
                            "search the full text"
                        } else {
                            "search titles and folders (no archive)"
                        }
                    }
                };
                let popup = centered(area, 60, 3);
                f.render_widget(Clear, popup);
                f.render_widget(
                    Paragraph::new(format!("{}▏", safe_field(text)))
                        .block(Block::default().borders(Borders::ALL).title(format!(" {label} "))),
                    popup,
                );
            }
            Mode::Pick { harnesses, selected } => {
                let popup = centered(area, 40, harnesses.len() as u16 + 2);
                f.render_widget(Clear, popup);
                let lines: Vec<Line<'static>> = harnesses
                    .iter()
                    .enumerate()
                    .map(|(i, h)| {
                        let style =
                            if i == *selected { Style::new().add_modifier(Modifier::REVERSED) } else { Style::new() };
                        Line::styled(h.clone(), style)
                    })
                    .collect();
                f.render_widget(
                    Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" continue in ")),
                    popup,
                );
            }
            Mode::Prepared { line, argv, .. } => {
                let popup = centered(area, 90, 6);
                f.render_widget(Clear, popup);
                let hint = if argv.is_some() {
                    "Enter starts it now; any other key goes back."
                } else {
                    "This harness has no interactive resume; run the command above."
                };
                let text = vec![
                    Line::from("Prepared. Resume with:"),
                    Line::from(safe_field(line).into_owned()),
                    Line::from(""),
                    Line::from(hint),
                ];
                f.render_widget(
                    Paragraph::new(text)
                        .wrap(Wrap { trim: false })
                        .block(Block::default().borders(Borders::ALL).title(" continued ")),
                    popup,
                );
            }
            _ => {}
        }
    }

    fn draw_list(&mut self, f: &mut ratatui::Frame<'_>, area: Rect) {
        let [list, preview] =
            split(area, Direction::Vertical, [Constraint::Percentage(55), Constraint::Percentage(45)]);
        // Only the visible window is built: 25,000 rows cost what 50 do.
        let height = list.height.saturating_sub(3) as usize;
        let selected = self.state.selected().unwrap_or(0);
        let offset = selected.saturating_sub(height.saturating_sub(1));
        let words: Vec<String> = self.search.split_whitespace().map(str::to_lowercase).collect();
        let rows: Vec<TableRow<'static>> = self
            .shown
            .iter()
            .skip(offset)
            .take(height.max(1))
            .map(|&i| {
                let r = &self.rows[i];
                let size = match (r.size, r.records) {
                    (Some(bytes), _) => human_size(bytes),
                    (None, Some(records)) => format!("{records} rec"),
                    (None, None) => String::new(),
                };
                TableRow::new(vec![
                    Line::from(r.harness.clone()),
                    highlight(r.title.as_deref().unwrap_or("(untitled)"), &words),
                    highlight(r.cwd.as_deref().unwrap_or(""), &words),
                    Line::from(
                        r.updated_at.as_deref().map(|t| t.chars().take(16).collect::<String>()).unwrap_or_default(),
                    ),
                    Line::from(size),
                ])
            })
            .collect();
        let widths = [
            Constraint::Length(14),
            Constraint::Percentage(45),
            Constraint::Percentage(30),
            Constraint::Length(16),
            Constraint::Length(9),
        ];
        let table = Table::new(rows, widths)
            .header(
                TableRow::new(vec!["HARNESS", "TITLE", "CWD", "UPDATED", "SIZE"])
                    .style(Style::new().add_modifier(Modifier::BOLD)),
            )
            .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
            .block(Block::default().borders(Borders::ALL).title(" sessions "));
        let mut state = TableState::default();
        state.select(self.state.selected().map(|s| s - offset));
        f.render_stateful_widget(table, list, &mut state);

        let lines = self
            .selected()
            .map(|r| (r.harness.clone(), r.native_id.clone()))
            .and_then(|key| self.previews.get(&key).cloned())
            .unwrap_or_default();
        let title =
            self.selected().map(|r| format!(" {} {} ", r.harness, safe_field(&r.native_id))).unwrap_or_default();
        f.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: false }).block(Block::default().borders(Borders::ALL).title(title)),
            preview,
        );
    }
}

fn split<const N: usize>(area: Rect, direction: Direction, constraints: [Constraint; N]) -> [Rect; N] {
    let parts = Layout::default().direction(direction).constraints(constraints).split(area);
    std::array::from_fn(|i| parts[i])
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}

fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// `text` (escaped) with each of `words` in bold and underlined.
fn highlight(text: &str, words: &[String]) -> Line<'static> {
    let text = safe_field(text).into_owned();
    if words.is_empty() {
        return Line::from(text);
    }
    let lower = text.to_lowercase();
    // Byte ranges of matches; lowercasing keeps ASCII offsets, and a non-ASCII text is shown unmarked when they drift.
    if lower.len() != text.len() {
        return Line::from(text);
    }
    let mut marks = vec![false; text.len()];
    for word in words {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word.as_str()) {
            let start = from + at;
            marks[start..start + word.len()].iter_mut().for_each(|m| *m = true);
            from = start + word.len().max(1);
        }
    }
    let mut spans = Vec::new();
    let mut start = 0;
    for i in 1..=text.len() {
        if i == text.len() || marks[i] != marks[start] {
            if text.is_char_boundary(start) && text.is_char_boundary(i) {
                let piece = text[start..i].to_string();
                spans.push(if marks[start] {
                    Span::styled(piece, Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED))
                } else {
                    Span::raw(piece)
                });
            }
            start = i;
        }
    }
    Line::from(spans)
}

/// One displayable record.
#[derive(Clone)]
enum Item {
    User(String),
    Assistant(String),
    Reasoning(String),
    Call { name: String, arguments: String },
    Result { content: String, ok: Option<bool> },
    System(String),
    Compaction(String),
}

fn resolve(
    ctx: &Context,
    catalog: &trajhost::catalog::Catalog<'_>,
    row: &Row,
) -> anyhow::Result<super::given::Session> {
    let lookup = super::given::Lookup { harness: Some(row.harness.clone()), home: Some(row.home.clone()) };
    let home = lookup.open_home(ctx, catalog)?;
    lookup.resolve(ctx, catalog, &home, &row.native_id, &Default::default())
}

/// The first `limit` records of a session, as items.
fn read_items(
    ctx: &Context,
    catalog: &trajhost::catalog::Catalog<'_>,
    row: &Row,
    limit: usize,
) -> anyhow::Result<Vec<Item>> {
    let session = resolve(ctx, catalog, row)?;
    let (_, mut stream) =
        trajhost::inventory::open(catalog, &session.found, None, trajhost::inventory::default_read_options())?;
    let mut items = Vec::new();
    let mut records = 0;
    'batches: while let Some(batch) = stream.next_batch()? {
        for line in batch.records.lines().filter(|l| !l.trim().is_empty()) {
            records += 1;
            if records > limit {
                break 'batches;
            }
            let record: Record = serde_json::from_str(line)?;
            if record.agent.is_some() {
                continue;
            }
            items.push(match record.body {
                Body::User { text, .. } => Item::User(text),
                Body::Assistant(a) if !a.text.trim().is_empty() => Item::Assistant(a.text),
                Body::Reasoning(r) => Item::Reasoning(r.text.unwrap_or_default()),
                Body::ToolCall { name, arguments, .. } => Item::Call { name, arguments: arguments.to_string() },
                Body::ToolResult { content, ok, .. } => Item::Result { content, ok },
                Body::System { text } => Item::System(text),
                Body::Compaction { summary, .. } => Item::Compaction(summary),
                _ => continue,
            });
        }
    }
    Ok(items)
}

/// Items as lines: texts whole; tool calls, results and reasoning folded to
/// one line each unless `unfolded`. Every piece of session text is escaped.
fn render(items: &[Item], unfolded: bool, search: &str) -> Vec<Line<'static>> {
    let words: Vec<String> = search.split_whitespace().map(str::to_lowercase).collect();
    let mut lines = Vec::new();
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let dim = Style::new().add_modifier(Modifier::DIM);
    let text_lines = |text: &str, lines: &mut Vec<Line<'static>>| {
        for l in text.lines() {
            lines.push(highlight(&format!("  {l}"), &words));
        }
    };
    for item in items {
        match item {
            Item::User(text) => {
                lines.push(Line::styled("user", bold));
                text_lines(text, &mut lines);
            }
            Item::Assistant(text) => {
                lines.push(Line::styled("assistant", bold));
                text_lines(text, &mut lines);
            }
            Item::System(text) => {
                lines.push(Line::styled("system", bold));
                text_lines(text, &mut lines);
            }
            Item::Compaction(text) => {
                lines.push(Line::styled("compaction summary", bold));
                text_lines(text, &mut lines);
            }
            Item::Reasoning(text) if unfolded => {
                lines.push(Line::styled("reasoning", dim));
                text_lines(text, &mut lines);
            }
            Item::Reasoning(text) => {
                lines.push(Line::styled(format!("▸ reasoning ({} lines, folded)", text.lines().count()), dim));
            }
            Item::Call { name, arguments } => {
                let shown = if unfolded { arguments.clone() } else { arguments.chars().take(80).collect() };
                lines.push(highlight(&format!("▸ {name}({shown})"), &words));
            }
            Item::Result { content, ok } => {
                let status = if *ok == Some(false) { "failed" } else { "result" };
                if unfolded {
                    lines.push(Line::styled(format!("◂ {status}"), dim));
                    text_lines(content, &mut lines);
                } else {
                    let first = content.lines().next().unwrap_or_default();
                    let more = content.lines().count().saturating_sub(1);
                    let tail = if more > 0 { format!(" (+{more} lines)") } else { String::new() };
                    lines.push(highlight(&format!("◂ {status}: {first}{tail}"), &words));
                }
            }
        }
    }
    lines
}

/// Sets the terminal's clipboard (OSC 52), which tmux and most terminals honour.
fn copy_to_clipboard(text: &str) {
    let encoded = trajhost::view::base64(text.as_bytes());
    let mut out = std::io::stdout();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}
