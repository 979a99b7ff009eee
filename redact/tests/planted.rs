//! Every planted secret (src/planted.rs) is masked and counted under its rule: in free text,
//! inside tool arguments, in a `.env` dump in a tool result, and in a canonical JSON line.

use serde_json::json;
use trajhost_canonical::{Body, Record, SourceSpan};
use trajhost_redact::planted::{Planted, dotenv, planted};
use trajhost_redact::{Counts, Redactor, planted_secrets};

fn r() -> &'static Redactor {
    Redactor::builtin()
}

fn assert_masked(p: &Planted, out: &str, counts: &Counts, place: &str) {
    assert!(!out.contains(&p.secret), "{} leaked in {place}:\n{out}", p.rule);
    let tag = format!("[REDACTED:{}]", p.rule);
    assert!(out.contains(&tag), "{} not labelled {tag} in {place}:\n{out}", p.rule);
    assert!(counts.get(p.rule) >= 1, "{} not counted in {place}: {counts:?}", p.rule);
}

fn record(body: Body) -> Record {
    Record {
        id: "rec-7".into(),
        body,
        parent: Some("rec-6".into()),
        ts: Some("2026-01-02T03:04:05.678Z".into()),
        agent: None,
        src: Some(SourceSpan { file: "s.jsonl".into(), offset: 1234, len: 567 }),
    }
}

#[test]
fn the_corpus_covers_the_brief() {
    let rules: Vec<&str> = planted_secrets().iter().map(|(rule, _)| *rule).collect();
    for rule in [
        "aws-access-token",
        "aws-secret-access-key",
        "github-pat",
        "github-fine-grained-pat",
        "openai-api-key",
        "anthropic-api-key",
        "slack-bot-token",
        "slack-webhook-url",
        "stripe-access-token",
        "private-key",
        "jwt",
        "url-password",
        "gcp-service-account-key-id",
    ] {
        assert!(rules.contains(&rule), "no planted secret for {rule}");
    }
}

#[test]
fn masked_in_text() {
    for p in planted() {
        let mut counts = Counts::default();
        let text = format!("Here is what I found in the config:\n\n{}\n\nShall I rotate it?", p.text);
        let out = r().redact_text(&text, &mut counts);
        assert_masked(&p, &out, &counts, "text");
        assert!(out.starts_with("Here is what I found in the config:\n\n"));
        assert!(out.ends_with("\n\nShall I rotate it?"));
    }
}

#[test]
fn only_the_secret_group_is_masked() {
    let mut counts = Counts::default();
    let out = r().redact_text("password=hunter2-Xk29sQ7pLm", &mut counts);
    assert_eq!(out, "password=[REDACTED:generic-api-key]");
    let out = r().redact_text("psql postgres://app:Tr0ub4dor-9x@db.internal/prod -c 'select 1'", &mut counts);
    assert_eq!(out, "psql postgres://app:[REDACTED:url-password]@db.internal/prod -c 'select 1'");
    assert_eq!(counts.total(), 2);
}

#[test]
fn masked_in_tool_arguments() {
    for p in planted() {
        // As a command string.
        let mut counts = Counts::default();
        let mut args = json!({"command": p.text, "description": "check the deploy config", "timeout": 120000});
        r().redact_value(&mut args, &mut counts);
        let out = serde_json::to_string(&args).unwrap();
        assert_masked(&p, &out, &counts, "arguments.command");
        assert_eq!(args["timeout"], 120000);
        assert_eq!(args["description"], "check the deploy config");

        // As a file the tool writes.
        let mut counts = Counts::default();
        let mut args = json!({"file_path": "/home/user/project/.env", "content": format!("{}\n", p.text)});
        r().redact_value(&mut args, &mut counts);
        assert_masked(&p, &serde_json::to_string(&args).unwrap(), &counts, "arguments.content");
        assert_eq!(args["file_path"], "/home/user/project/.env");
    }
}

#[test]
fn masked_as_a_member_whose_key_names_it() {
    // {"env": {"NAME": "value"}}: the value alone has no keyword; its key is the context.
    for p in planted() {
        let Some((name, value)) = p.text.split_once('=') else { continue };
        if name.contains(' ') || value.contains('\n') {
            continue;
        }
        let value = value.trim_matches('"');
        let mut counts = Counts::default();
        let mut args = json!({"env": {name: value}, "cmd": ["deploy", "--prod"]});
        r().redact_value(&mut args, &mut counts);
        let out = serde_json::to_string(&args).unwrap();
        assert!(!out.contains(&p.secret), "{} leaked as a member: {out}", p.rule);
        assert!(args["env"].get(name).is_some(), "the key stays");
        assert_eq!(args["cmd"], json!(["deploy", "--prod"]));
    }
}

#[test]
fn masked_in_a_dotenv_dump_in_a_tool_result() {
    let env = dotenv();
    let mut rec = record(Body::ToolResult { call_id: "toolu_01".into(), content: env.clone(), ok: Some(true) });
    let mut counts = Counts::default();
    r().redact_record(&mut rec, &mut counts);
    let Body::ToolResult { content, call_id, ok } = &rec.body else { unreachable!() };
    assert_eq!(call_id, "toolu_01");
    assert_eq!(*ok, Some(true));
    let mut planted_lines = 0;
    for p in planted() {
        if env.contains(&p.secret) {
            planted_lines += 1;
            assert_masked(&p, content, &counts, ".env dump");
        }
    }
    assert!(planted_lines >= 10, "{planted_lines}");
    assert!(content.contains("NODE_ENV=production\nPORT=8080\n"), "{content}");
    assert_eq!(counts.total(), planted_lines, "{counts:?}");
}

#[test]
fn masked_in_json_lines() {
    for p in planted() {
        let bodies = [
            Body::User { text: p.text.clone(), attachments: vec![] },
            Body::ToolResult { call_id: "call_9".into(), content: p.text.clone(), ok: None },
            Body::ToolCall {
                call_id: "call_9".into(),
                name: "Bash".into(),
                arguments: json!({"command": format!("cat <<'EOF' > .env\n{}\nEOF", p.text)}),
            },
            Body::Compaction { summary: format!("The user shared {}", p.text), trigger: Some("auto".into()) },
        ];
        for body in bodies {
            let kind = body.kind();
            let rec = record(body);
            let line = serde_json::to_string(&rec).unwrap();
            let mut counts = Counts::default();
            let out = r().redact_line(&line, &mut counts);
            assert_masked(&p, &out, &counts, &format!("a {kind} line"));
            let back: Record = serde_json::from_str(&out).expect("still a record");
            assert_eq!((&back.id, &back.parent, &back.ts, &back.src), (&rec.id, &rec.parent, &rec.ts, &rec.src));
            assert_eq!(back.body.kind(), kind);

            // The typed path agrees with the line path.
            let mut typed = rec.clone();
            let mut typed_counts = Counts::default();
            r().redact_record(&mut typed, &mut typed_counts);
            assert_eq!(typed, back, "{kind} of {}", p.rule);
            assert_eq!(typed_counts, counts);
        }
    }
}

#[test]
fn private_key_with_escaped_newlines_inside_a_line() {
    // A PEM whose newlines are real in the text: the line holds `\n` escapes.
    let p = planted().into_iter().find(|p| p.rule == "private-key" && p.text.starts_with("-----BEGIN RSA")).unwrap();
    let line = serde_json::to_string(&record(Body::ToolResult {
        call_id: "c".into(),
        content: format!("$ cat id_rsa\n{}\n", p.text),
        ok: Some(true),
    }))
    .unwrap();
    assert!(line.contains("-----\\nMII"), "{line}");
    let mut counts = Counts::default();
    let out = r().redact_line(&line, &mut counts);
    assert!(!out.contains(&p.secret));
    assert!(out.contains(r#""content":"$ cat id_rsa\n[REDACTED:private-key]\n""#), "{out}");
    assert_eq!(counts.get("private-key"), 1);
}

#[test]
fn redacting_twice_changes_nothing_more() {
    for p in planted() {
        let mut counts = Counts::default();
        let once = r().redact_text(&p.text, &mut counts).into_owned();
        let mut again = Counts::default();
        let twice = r().redact_text(&once, &mut again);
        assert_eq!(twice, once, "{}", p.rule);
        assert!(again.is_empty(), "{}: {again:?}", p.rule);
    }
}

#[test]
fn deterministic() {
    let text: String = planted().iter().map(|p| p.text.clone() + "\n").collect();
    let mut a = Counts::default();
    let mut b = Counts::default();
    assert_eq!(r().redact_text(&text, &mut a), r().redact_text(&text, &mut b));
    assert_eq!(a, b);
}
