//! `trajhost export`: sessions as OpenTelemetry GenAI spans (OTLP protobuf or
//! JSON, to a file, stdout or an OTLP/HTTP endpoint) or as ATIF-v1.7
//! trajectories (trajhost-export does the mapping; docs/export.md).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use trajhost::canonical::Record;
use trajhost::inventory::{self, FoundSession, SessionQuery};
use trajhost_export::otlp::{self, EncodedSession, RequestWriter, SessionEncoder};
use trajhost_export::{atif, send};

use super::terminal::safe_text;
use super::{Context, exit, host_exit_code};

#[derive(clap::Args)]
pub struct Args {
    /// Session files, or session ids (or unique prefixes) under --home.
    #[arg(required_unless_present = "all")]
    targets: Vec<String>,
    /// Every session found under --home (discovery as in `trajhost sessions`).
    #[arg(long, conflicts_with = "targets")]
    all: bool,
    #[command(flatten)]
    lookup: super::given::Lookup,
    #[command(flatten)]
    reading: super::given::ReadingCodec,
    /// Output format (default: otlp-proto to an endpoint, otlp-json otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE", conflicts_with = "otlp_endpoint")]
    out: Option<PathBuf>,
    /// POST each session to this OTLP/HTTP collector (`/v1/traces` is appended when the URL has no path).
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Include message content (prompts, responses, tool arguments and results) in the spans.
    #[arg(long)]
    content: bool,
    /// ATIF: check each trajectory against the ATIF rules before writing it; exit 1 naming what is wrong.
    #[arg(long)]
    validate: bool,
    #[command(flatten)]
    redact: super::redact::RedactFlags,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// OTLP JSON (`{"resourceSpans":[…]}`).
    #[value(name = "otlp-json")]
    OtlpJson,
    /// OTLP protobuf (an ExportTraceServiceRequest).
    #[value(name = "otlp-proto")]
    OtlpProto,
    /// Harbor's ATIF-v1.7 (one trajectory per session, one per line).
    Atif,
}

enum Sink {
    Request(RequestWriter<Box<dyn Write>>),
    Endpoint(send::Sender),
    Atif(Box<dyn Write>),
}

pub fn run(ctx: &Context, args: &Args) -> anyhow::Result<u8> {
    let format = args.format.unwrap_or(if args.otlp_endpoint.is_some() { Format::OtlpProto } else { Format::OtlpJson });
    if format == Format::Atif && args.otlp_endpoint.is_some() {
        anyhow::bail!("--otlp-endpoint sends OTLP: use --format otlp-proto or otlp-json, or --out for ATIF");
    }
    if args.validate && format != Format::Atif {
        anyhow::bail!("--validate checks ATIF trajectories: use it with --format atif");
    }
    if format == Format::OtlpProto
        && args.out.is_none()
        && args.otlp_endpoint.is_none()
        && std::io::stdout().is_terminal()
    {
        anyhow::bail!("otlp-proto is binary: give --out FILE, or pipe stdout");
    }
    let catalog = ctx.catalog()?;
    let home = args.lookup.open_home(ctx, &catalog)?;
    let mut kept = Vec::new();
    let mut sessions = Vec::new();
    let mut code = exit::OK;
    if args.all {
        let query = SessionQuery { home: home.dir.clone(), harness: args.lookup.harness.clone(), cwd: None };
        let found = match &home.packed {
            Some(p) => trajhost::packed::discover(&catalog, p, args.lookup.harness.as_deref(), None)?,
            None => inventory::discover(&catalog, &query)?,
        };
        for (harness, error) in &found.failures {
            eprintln!("error: {harness}: discovery failed: {}", safe_text(&error.to_string()));
            code = code.max(host_exit_code(error));
        }
        sessions = found.sessions;
    } else {
        for given in &args.targets {
            let session = args.lookup.resolve(ctx, &catalog, &home, given, &args.reading)?;
            sessions.push(session.found.clone());
            // Keeps an unpacked archive or a restored home until the sessions are read.
            kept.push(session);
        }
    }

    let out: Box<dyn Write> = match &args.out {
        Some(path) => Box::new(std::io::BufWriter::with_capacity(
            1 << 16,
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock())),
    };
    let otlp_format = match format {
        Format::OtlpProto => otlp::Format::Proto,
        _ => otlp::Format::Json,
    };
    let mut sink = match (&args.otlp_endpoint, format) {
        (Some(url), _) => {
            drop(out);
            Sink::Endpoint(send::Sender::new(url, otlp_format)?)
        }
        (None, Format::Atif) => Sink::Atif(out),
        (None, _) => Sink::Request(RequestWriter::new(otlp_format, out)?),
    };
    let options = otlp::Options { content: args.content };
    let redactor = args.redact.redactor(&ctx.data_dir, trajhost::redaction::Sink::Export)?;
    let mut redactions = trajhost::redaction::Counts::default();
    let mut exported = 0;
    for found in &sessions {
        let redaction = redactor.as_ref().map(|r| (r, &mut redactions));
        let result = export_one(&catalog, found, args, otlp_format, options, redaction, &mut sink);
        match result {
            Ok(()) => exported += 1,
            Err(error) if args.all => {
                eprintln!(
                    "error: {} {}: {}",
                    found.harness,
                    safe_text(&found.session.native_id),
                    safe_text(&format!("{error:#}"))
                );
                code = code.max(super::exit_code(&error));
            }
            Err(error) => return Err(error),
        }
    }
    match sink {
        Sink::Request(writer) => {
            writer.finish().with_context(|| output_name(args))?;
        }
        Sink::Atif(mut out) => out.flush().with_context(|| output_name(args))?,
        Sink::Endpoint(_) => {}
    }
    if args.all {
        eprintln!("exported {exported} of {} sessions", sessions.len());
    }
    super::redact::report(&redactions);
    Ok(code)
}

fn output_name(args: &Args) -> String {
    match &args.out {
        Some(path) => format!("writing {}", path.display()),
        None => "writing stdout".into(),
    }
}

fn export_one(
    catalog: &trajhost::catalog::Catalog<'_>,
    found: &FoundSession,
    args: &Args,
    otlp_format: otlp::Format,
    options: otlp::Options,
    mut redaction: Option<(&trajhost::redaction::Redactor, &mut trajhost::redaction::Counts)>,
    sink: &mut Sink,
) -> anyhow::Result<()> {
    let (codec, mut stream) =
        inventory::open(catalog, found, args.reading.codec.as_deref(), inventory::default_read_options())?;
    tracing::info!(codec = %codec.id(), session = %found.session.native_id, "exporting");
    enum Target {
        Spans(SessionEncoder),
        Atif(atif::AtifWriter<Vec<u8>>),
        AtifStreamed(atif::AtifWriter<Box<dyn Write>>),
    }
    let mut target: Option<Target> = None;
    // ATIF streams straight into the output unless it is to be validated first.
    let mut streamed_out: Option<Box<dyn Write>> = None;
    if let Sink::Atif(out) = sink
        && !args.validate
    {
        streamed_out = Some(std::mem::replace(out, Box::new(std::io::sink())));
    }
    let restore = |sink: &mut Sink, w: Box<dyn Write>| {
        if let Sink::Atif(out) = sink {
            *out = w;
        }
    };
    while let Some(batch) = stream.next_batch()? {
        for line in batch.records.lines() {
            let mut record: Record = serde_json::from_str(line)
                .with_context(|| format!("codec {} returned a record that is not canonical JSON", codec.id()))?;
            if let Some((redactor, counts)) = &mut redaction {
                redactor.redact_record(&mut record, counts);
            }
            match &mut target {
                None => {
                    target = Some(match sink {
                        Sink::Atif(_) => match streamed_out.take() {
                            Some(out) => Target::AtifStreamed(atif::AtifWriter::new(&record, out)?),
                            None => Target::Atif(atif::AtifWriter::new(&record, Vec::new())?),
                        },
                        _ => Target::Spans(SessionEncoder::new(&record, otlp_format, options)?),
                    })
                }
                Some(Target::Spans(encoder)) => encoder.push(&record),
                Some(Target::Atif(writer)) => writer.push(&record)?,
                Some(Target::AtifStreamed(writer)) => writer.push(&record).with_context(|| output_name(args))?,
            }
        }
    }
    match (target, sink) {
        (None, sink) => {
            if let Some(out) = streamed_out {
                restore(sink, out);
            }
            anyhow::bail!("codec {} returned no records for {}", codec.id(), found.session.native_id)
        }
        (Some(Target::AtifStreamed(writer)), sink) => {
            let out = writer.finish().with_context(|| output_name(args))?;
            restore(sink, out);
        }
        (Some(Target::Atif(writer)), Sink::Atif(out)) => {
            let bytes = writer.finish()?;
            let value: serde_json::Value = serde_json::from_slice(&bytes)?;
            let errors = atif::validate(&value);
            if !errors.is_empty() {
                for error in &errors {
                    eprintln!("FAIL {}", safe_text(error));
                }
                anyhow::bail!(
                    "the ATIF trajectory of {} breaks {} rule(s)",
                    safe_text(&found.session.native_id),
                    errors.len()
                );
            }
            out.write_all(&bytes).with_context(|| output_name(args))?;
        }
        (Some(Target::Spans(encoder)), Sink::Request(writer)) => {
            writer.add(&encoder.finish()).with_context(|| output_name(args))?;
        }
        (Some(Target::Spans(encoder)), Sink::Endpoint(sender)) => {
            let session: EncodedSession = encoder.finish();
            let sent = sender.send(&otlp::request_body(&session))?;
            eprintln!(
                "sent {} spans of {} {} to {} ({} attempt{}; status {})",
                session.count,
                found.harness,
                safe_text(&found.session.native_id),
                sender.url(),
                sent.attempts,
                if sent.attempts == 1 { "" } else { "s" },
                sent.status
            );
            if sent.rejected_spans > 0 {
                eprintln!(
                    "warning: the collector rejected {} spans: {}",
                    sent.rejected_spans,
                    safe_text(&sent.error_message)
                );
            }
        }
        _ => unreachable!("the target follows the sink"),
    }
    Ok(())
}
