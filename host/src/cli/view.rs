//! `trajhost view`: one session as a self-contained HTML page
//! (`trajhost::view` writes it; docs/view.md).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use trajhost::view::{self, ViewError};

use super::terminal::safe_text;
use super::{Context, exit};

#[derive(clap::Args)]
pub struct Args {
    /// A session file, or a session id (or unique prefix) under --home.
    target: String,
    #[command(flatten)]
    lookup: super::given::Lookup,
    #[command(flatten)]
    reading: super::given::ReadingCodec,
    /// Write the page here (`-`: stdout). Default: `<session id>.html` in the current directory.
    #[arg(long, value_name = "FILE.html")]
    out: Option<PathBuf>,
    /// Then open the page with $BROWSER, else xdg-open.
    #[arg(long)]
    open: bool,
    #[command(flatten)]
    redact: super::redact::RedactFlags,
}

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    let to_stdout = args.out.as_deref() == Some(Path::new("-"));
    if to_stdout && args.open {
        anyhow::bail!("--open opens a file: give --out FILE.html (or no --out) instead of --out -");
    }
    let catalog = ctx.catalog()?;
    let home = args.lookup.open_home(ctx, &catalog)?;
    let session = args.lookup.resolve(ctx, &catalog, &home, &args.target, &args.reading)?;
    let found = &session.found;
    let redactor = args.redact.redactor(&ctx.data_dir, trajhost::redaction::Sink::View)?;

    if to_stdout {
        let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let rendered = view::render(&catalog, found, args.reading.codec.as_deref(), redactor.as_ref(), out)
            .map_err(|e| error(e, "stdout"))?;
        report(&rendered);
        return Ok(exit::OK);
    }

    let path = args.out.clone().unwrap_or_else(|| PathBuf::from(default_file_name(&found.session.native_id)));
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // The page appears complete or not at all: written beside its place, then renamed.
    let temp = tempfile::Builder::new()
        .prefix(".trajhost-view-")
        .suffix(".html.tmp")
        // As `File::create` would: what the umask leaves of rw for everyone.
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(&dir)
        .with_context(|| format!("creating a file in {}", dir.display()))?;
    let out = std::io::BufWriter::with_capacity(1 << 16, temp.as_file());
    let rendered = view::render(&catalog, found, args.reading.codec.as_deref(), redactor.as_ref(), out)
        .map_err(|e| error(e, &path.display().to_string()))?;
    temp.as_file().sync_all().with_context(|| format!("writing {}", path.display()))?;
    temp.persist(&path).map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error))?;
    report(&rendered);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", safe_text(&path.display().to_string()))?;
    stdout.flush()?;
    if args.open {
        let absolute = std::fs::canonicalize(&path).unwrap_or(path);
        let browser = open_in_browser(&absolute)?;
        eprintln!("opened with {}", safe_text(&browser));
    }
    Ok(exit::OK)
}

/// A library error for the CLI: a codec's failure keeps its exit code, a
/// write names the output.
fn error(error: ViewError, output: &str) -> anyhow::Error {
    match error {
        ViewError::Read(host) => host.into(),
        ViewError::Write(io) => anyhow::Error::new(io).context(format!("writing {output}")),
        other => other.into(),
    }
}

fn report(rendered: &view::Rendered) {
    super::redact::report(&rendered.redactions);
    let diagnostics = rendered.diagnostics.len();
    eprintln!(
        "{} records in {} data blocks, {:.1} MiB (codec {}, ending {}{})",
        rendered.records,
        rendered.blocks,
        rendered.bytes as f64 / (1 << 20) as f64,
        rendered.codec,
        rendered.ending,
        match diagnostics {
            0 => String::new(),
            1 => ", 1 diagnostic shown at the top of the page".into(),
            n => format!(", {n} diagnostics shown at the top of the page"),
        }
    );
}

/// `<native id>.html`, with anything but letters, digits, `.`, `-` and `_`
/// replaced, so an id never names another directory.
fn default_file_name(native_id: &str) -> String {
    let mut name: String = native_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .take(120)
        .collect();
    name = name.trim_start_matches('.').to_string();
    if name.is_empty() {
        name = "session".into();
    }
    format!("{name}.html")
}

/// Opens `path` with each `$BROWSER` entry (`:`-separated; `%s` stands for
/// the file), else `xdg-open`. Returns the command that took it.
fn open_in_browser(path: &Path) -> anyhow::Result<String> {
    let file = path.display().to_string();
    let mut commands: Vec<(String, bool)> = std::env::var("BROWSER")
        .unwrap_or_default()
        .split(':')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| (c.to_string(), false))
        .collect();
    commands.push(("xdg-open".into(), true));
    let mut tried = Vec::new();
    for (command, wait) in commands {
        let mut words: Vec<String> = command.split_whitespace().map(String::from).collect();
        if words.iter().any(|w| w.contains("%s")) {
            words = words.into_iter().map(|w| w.replace("%s", &file)).collect();
        } else {
            words.push(file.clone());
        }
        let mut child = std::process::Command::new(&words[0]);
        child.args(&words[1..]).stdin(std::process::Stdio::null());
        match child.spawn() {
            Ok(mut running) => {
                if !wait {
                    return Ok(command);
                }
                // xdg-open hands the file over and exits: its status says whether it could.
                let status = running.wait().with_context(|| format!("waiting for {command}"))?;
                if status.success() {
                    return Ok(command);
                }
                anyhow::bail!("{command} could not open {file} ({status}); open it in a browser yourself");
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => tried.push(words[0].clone()),
            Err(e) => return Err(e).with_context(|| format!("starting {command}")),
        }
    }
    anyhow::bail!(
        "--open: no browser to start ({} not found); set $BROWSER or install xdg-utils, or open {file} yourself",
        tried.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::default_file_name;

    #[test]
    fn default_file_names_stay_in_the_directory() {
        assert_eq!(default_file_name("61ec73f4-b0bb"), "61ec73f4-b0bb.html");
        assert_eq!(default_file_name("../../etc/passwd"), "_.._etc_passwd.html");
        assert_eq!(default_file_name("store.db#ses_1"), "store.db_ses_1.html");
        assert_eq!(default_file_name("..."), "session.html");
    }
}
