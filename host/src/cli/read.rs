//! `trajhost read`

use std::io::Write;

use trajhost::inventory;

use super::terminal::{SafeWriter, safe_text};
use super::transcript::Transcript;
use super::{Context, diagnostic_json, exit, severity_name};

#[derive(clap::Args)]
pub struct Args {
    /// A session file, or a session id (or unique prefix) under --home.
    target: String,
    #[command(flatten)]
    lookup: super::given::Lookup,
    #[command(flatten)]
    reading: super::given::ReadingCodec,
    /// Canonical records as JSON lines (then one `summary` line);
    /// the same as `--format canonical`.
    #[arg(long)]
    json: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Transcript)]
    format: Format,
    /// Also check the records against the conformance rules (meta first,
    /// src on every record, unique ids, tool results after their calls);
    /// exit 1 naming each rule broken.
    #[arg(long)]
    strict: bool,
    /// Read the whole conversation the session belongs to: the sessions it continues and those that continue
    /// it (a resume the harness kept as a new session), oldest first, each record once.
    #[arg(long)]
    follow: bool,
    /// Mask secrets as [REDACTED:<rule>] (docs/redaction.md), e.g. before piping the records on.
    #[arg(long)]
    redact: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A readable transcript.
    Transcript,
    /// Canonical records as JSON lines.
    Canonical,
    /// letta-ai/trajectory `trajectory-v1` records as JSON lines.
    #[value(name = "trajectory-v1")]
    TrajectoryV1,
}

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    let catalog = ctx.catalog()?;
    let home = args.lookup.open_home(ctx, &catalog)?;
    let session = args.lookup.resolve(ctx, &catalog, &home, &args.target, &args.reading)?;
    let found = session.found.clone();
    let sessions = if args.follow { inventory::conversation(&catalog, &found)? } else { vec![found.clone()] };
    if sessions.len() > 1 {
        let ids: Vec<&str> = sessions.iter().map(|s| s.session.native_id.as_str()).collect();
        eprintln!("following the conversation through {} sessions: {}", ids.len(), safe_text(&ids.join(" → ")));
    }

    let format = if args.json { Format::Canonical } else { args.format };
    let buffered = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // The transcript is text from the session: escaped for the terminal. JSON stays exact.
    let mut out: Box<dyn Write> = match format {
        Format::Transcript => Box::new(SafeWriter::new(buffered)),
        Format::Canonical | Format::TrajectoryV1 => Box::new(buffered),
    };
    let mut diagnostics = Vec::new();
    let mut codecs = Vec::new();
    let mut transcript = None;
    let mut collected = Vec::new();
    let mut digest = trajhost::digest::SessionDigest::new();
    let mut strict = args.strict.then(|| trajhost::conformance::StreamChecks::new(found.session.locator.clone()));
    // With --follow, a record a later session copied (same id) is given once, and only the first `meta`.
    let mut seen = std::collections::HashSet::new();
    let redactor = super::redact::RedactFlags { redact: args.redact, no_redact: false }
        .redactor(&ctx.data_dir, trajhost::redaction::Sink::Read)?;
    let mut redactions = trajhost::redaction::Counts::default();
    for (index, found) in sessions.iter().enumerate() {
        let (codec, stream) =
            inventory::open(&catalog, found, args.reading.codec.as_deref(), inventory::default_read_options())?;
        // The codec parses the next batch while this thread writes and digests this one (and
        // with --redact, a third masks the one in between).
        let mut stream = Batches::new(stream.prefetched(), redactor.clone());
        tracing::info!(codec = %codec.id(), session = %found.session.native_id, "reading");
        let transcript = transcript.get_or_insert_with(|| Transcript::new(found, &codec));
        loop {
            let batch = match stream.next_batch() {
                Ok(Some(batch)) => batch,
                Ok(None) => break,
                Err(error) => {
                    out.flush()?;
                    let log = stream.finish(&mut redactions).map(|s| s.plugin_log()).unwrap_or_default();
                    if !log.is_empty() {
                        eprintln!("codec log:\n{}", safe_text(&log));
                    }
                    return Err(error.into());
                }
            };
            diagnostics.extend(batch.diagnostics);
            let records = batch.records;
            if format == Format::Canonical && !args.follow {
                out.write_all(records.as_bytes())?;
            }
            for line in records.lines() {
                if args.follow {
                    let record: trajhost::canonical::Record = serde_json::from_str(line)
                        .map_err(|e| anyhow::anyhow!("codec {} returned a record that is {e}", codec.id()))?;
                    let repeated = matches!(record.body, trajhost::canonical::Body::Meta(_)) && index > 0;
                    if repeated || !seen.insert(record.id.clone()) {
                        continue;
                    }
                    if format == Format::Canonical {
                        writeln!(out, "{line}")?;
                    }
                }
                let record = digest
                    .push_line(line)
                    .map_err(|e| anyhow::anyhow!("codec {} returned a record that is {e}", codec.id()))?;
                if let Some(checks) = &mut strict {
                    checks.push(&record);
                }
                match format {
                    Format::Transcript => transcript.write(&mut out, &record)?,
                    Format::TrajectoryV1 => collected.push(record),
                    Format::Canonical => {}
                }
            }
        }
        stream.finish(&mut redactions);
        codecs.push(codec);
    }
    let codec = codecs.into_iter().next().expect("one session at least");
    let transcript = transcript.expect("one session at least");
    if format == Format::TrajectoryV1 {
        let projected = trajhost::trajectory::project(&collected);
        for record in &projected.records {
            serde_json::to_writer(&mut out, record)?;
            writeln!(out)?;
        }
        for (reason, count) in &projected.dropped {
            eprintln!("trajectory-v1: {reason} ×{count}");
        }
    } else if format == Format::Canonical {
        let items: Vec<serde_json::Value> = diagnostics.iter().map(diagnostic_json).collect();
        serde_json::to_writer(
            &mut out,
            &serde_json::json!({
                "kind": "summary", "codec": codec.id(), "records": digest.records(),
                "snapshot_id": digest.snapshot_id(), "ending": digest.ending(), "diagnostics": items,
                "redactions": redactor.as_ref().map(|_| &redactions),
            }),
        )?;
        writeln!(out)?;
    } else {
        transcript.finish(&mut out)?;
        writeln!(out, "ending {}, snapshot {}", digest.ending(), digest.snapshot_id())?;
    }
    // The transcript is complete on stdout before the diagnostics follow on
    // stderr, so a terminal shows them after it, each on its own line.
    out.flush()?;
    drop(out);
    super::redact::report(&redactions);
    if format == Format::Transcript {
        for d in &diagnostics {
            eprintln!("{}", safe_text(&describe_diagnostic(d)));
        }
    }
    if let Some(checks) = strict {
        let failures = checks.finish();
        for failure in &failures {
            eprintln!("FAIL {}", safe_text(&failure.to_string()));
        }
        if !failures.is_empty() {
            let names: Vec<&str> = failures.iter().map(|f| f.check.name()).collect();
            anyhow::bail!("codec {} fails conformance checks: {}", codec.id(), names.join(", "));
        }
    }
    Ok(exit::OK)
}

/// A session's batches; with `--redact`, masked on a thread of their own.
enum Batches {
    Plain(Box<trajhost::runtime::Prefetched>),
    Redacting(trajhost::redaction::Redacting),
}

impl Batches {
    fn new(stream: trajhost::runtime::Prefetched, redactor: Option<trajhost::redaction::Redactor>) -> Batches {
        match redactor {
            Some(redactor) => Batches::Redacting(trajhost::redaction::Redacting::spawn(stream, redactor)),
            None => Batches::Plain(Box::new(stream)),
        }
    }

    fn next_batch(&mut self) -> Result<Option<trajhost::runtime::Batch>, trajhost::HostError> {
        match self {
            Batches::Plain(stream) => stream.next_batch(),
            Batches::Redacting(stream) => stream.next_batch(),
        }
    }

    /// Stops reading; the codec's stream (for its log), with what was masked added to `counts`.
    fn finish(self, counts: &mut trajhost::redaction::Counts) -> Option<trajhost::runtime::SessionStream> {
        let stream = match self {
            Batches::Plain(stream) => *stream,
            Batches::Redacting(redacting) => {
                let (stream, masked) = redacting.finish();
                counts.merge(&masked);
                stream?
            }
        };
        stream.finish().ok()
    }
}

/// `warning: bad-line line ×2 (first in toy/a.jsonl at byte 40)`.
pub fn describe_diagnostic(d: &trajhost::wit::latest::types::Diagnostic) -> String {
    let place = match (&d.file, d.offset) {
        (Some(file), Some(offset)) => format!(" (first in {file} at byte {offset})"),
        (Some(file), None) => format!(" (first in {file})"),
        (None, _) => String::new(),
    };
    format!("{}: {} {} ×{}{place}", severity_name(d.severity), d.code, d.detail, d.count)
}
