//! The crate's API as the host uses it: counts, configuration, errors, field rules of records.

use std::borrow::Cow;

use serde_json::json;
use trajhost_canonical::{Assistant, Attachment, Body, Meta, Reasoning, Record, SourceSpan};
use trajhost_redact::planted::planted;
use trajhost_redact::{Counts, RedactConfig, RedactError, Redactor, UserRule};

fn ghp() -> String {
    planted().into_iter().find(|p| p.rule == "github-pat").unwrap().secret
}

#[test]
fn redactor_is_shared_across_threads() {
    fn send_sync<T: Send + Sync + Clone + 'static>() {}
    send_sync::<Redactor>();
    assert!(std::ptr::eq(Redactor::builtin(), Redactor::builtin()));
    let secret = ghp();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let r = Redactor::builtin().clone();
            let text = format!("token {secret}");
            std::thread::spawn(move || r.redact_text(&text, &mut Counts::default()).into_owned())
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), "token [REDACTED:github-pat]");
    }
}

#[test]
fn counts_add_merge_and_serialize_as_a_plain_map() {
    let mut a = Counts::default();
    assert!(a.is_empty());
    a.add("jwt", 2);
    a.add("github-pat", 1);
    a.add("jwt", 0);
    let mut b = Counts::default();
    b.add("jwt", 3);
    b.merge(&a);
    assert_eq!(b.total(), 6);
    assert_eq!(b.get("jwt"), 5);
    assert_eq!(b.get("none"), 0);
    assert_eq!(serde_json::to_string(&b).unwrap(), r#"{"github-pat":1,"jwt":5}"#);
    let back: Counts = serde_json::from_str(r#"{"jwt":5,"github-pat":1}"#).unwrap();
    assert_eq!(back, b);
}

#[test]
fn nothing_to_mask_is_borrowed() {
    let r = Redactor::builtin();
    let mut counts = Counts::default();
    assert!(matches!(r.redact_text("Build passed; 14 tests ran.", &mut counts), Cow::Borrowed(_)));
    let line = r#"{"id":"a","kind":"assistant","text":"All tests pass.","model":"m"}"#;
    assert!(matches!(r.redact_line(line, &mut counts), Cow::Borrowed(_)));
    assert!(counts.is_empty());
}

fn config(toml_text: &str) -> RedactConfig {
    #[derive(serde::Deserialize)]
    struct File {
        redact: RedactConfig,
    }
    toml::from_str::<File>(toml_text).unwrap().redact
}

#[test]
fn user_rules_and_allow_from_config_toml() {
    let cfg = config(
        r#"
        [redact]
        redact_evidence = true
        allow = ["^sk_live_EXAMPLE"]
        rules = [
          { id = "internal-token", regex = "itk_[0-9a-f]{32}", keywords = ["itk_"] },
          { id = "pin", regex = "pin code: ([0-9]{6})", secret_group = 1, entropy = 1.5 },
        ]
        "#,
    );
    assert!(cfg.redact_evidence);
    let r = Redactor::with_config(&cfg).unwrap();
    assert!(r.ruleset_version().starts_with("gitleaks 8.30.1 + trajhost 1 + user "), "{}", r.ruleset_version());
    assert_ne!(
        r.ruleset_version(),
        Redactor::with_config(&config("[redact]\nallow = [\"x\"]")).unwrap().ruleset_version()
    );
    let mut counts = Counts::default();
    let text = "token itk_0123456789abcdef0123456789abcdef and pin code: 482913, not pin code: 111111";
    assert_eq!(
        r.redact_text(text, &mut counts),
        "token [REDACTED:internal-token] and pin code: [REDACTED:pin], not pin code: 111111"
    );
    assert_eq!(counts.get("internal-token"), 1);
    assert_eq!(counts.get("pin"), 1, "111111 is under the entropy floor");
    // The allowlist keeps a matching secret; built-in rules still run.
    let stripe = format!("sk_live_EXAMPLE{}", "a1B2c3D4e5F6g7H8i9J0kLmN");
    assert_eq!(r.redact_text(&stripe, &mut counts), stripe);
    assert_eq!(r.redact_text(&ghp(), &mut counts), "[REDACTED:github-pat]");
    // No user rules: the built-in redactor itself.
    let plain = Redactor::with_config(&RedactConfig::default()).unwrap();
    assert_eq!(plain.ruleset_version(), Redactor::builtin().ruleset_version());
}

#[test]
fn user_rule_without_keywords_runs_on_every_text() {
    let rule = UserRule { id: "ticket".into(), regex: r"\bTCK-\d{5}\b".into(), ..Default::default() };
    let r = Redactor::with_config(&RedactConfig { rules: vec![rule], ..Default::default() }).unwrap();
    let mut counts = Counts::default();
    assert_eq!(r.redact_text("see TCK-12345", &mut counts), "see [REDACTED:ticket]");
    let line = r#"{"id":"1","kind":"user","text":"see TCK-12345"}"#;
    assert_eq!(r.redact_line(line, &mut counts), r#"{"id":"1","kind":"user","text":"see [REDACTED:ticket]"}"#);
}

#[test]
fn invalid_configs_are_refused_precisely() {
    let rule = |id: &str, regex: &str| UserRule { id: id.into(), regex: regex.into(), ..Default::default() };
    let with = |rules: Vec<UserRule>| Redactor::with_config(&RedactConfig { rules, ..Default::default() });

    let err = with(vec![rule("broken", "itk_[0-9")]).unwrap_err();
    assert!(matches!(&err, RedactError::InvalidRegex { id, .. } if id == "broken"), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("`broken`") && msg.contains("unclosed character class"), "{msg}");

    let err = with(vec![UserRule { secret_group: Some(2), ..rule("g", "a(b)") }]).unwrap_err();
    assert!(matches!(err, RedactError::InvalidSecretGroup { group: 2, groups: 1, .. }), "{err:?}");

    let err = with(vec![UserRule { entropy: Some(-1.0), ..rule("e", "x") }]).unwrap_err();
    assert!(matches!(err, RedactError::InvalidEntropy { .. }), "{err:?}");

    let err = with(vec![rule(" ", "x")]).unwrap_err();
    assert!(matches!(err, RedactError::EmptyRuleId { .. }), "{err:?}");

    let err = with(vec![rule("github-pat", "x")]).unwrap_err();
    assert!(matches!(&err, RedactError::DuplicateRuleId { id } if id == "github-pat"), "{err:?}");
    let err = with(vec![rule("mine", "x"), rule("mine", "y")]).unwrap_err();
    assert!(matches!(err, RedactError::DuplicateRuleId { .. }), "{err:?}");

    let err = Redactor::with_config(&RedactConfig { allow: vec!["(".into()], ..Default::default() }).unwrap_err();
    assert!(matches!(&err, RedactError::InvalidAllow { pattern, .. } if pattern == "("), "{err:?}");

    // A misspelt field is an error, not a silently ignored option.
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct File {
        redact: RedactConfig,
    }
    let err = toml::from_str::<File>("[redact]\nrules = [{ id = \"x\", regex = \"y\", secret_grop = 1 }]").unwrap_err();
    assert!(err.to_string().contains("secret_grop"), "{err}");
    // gitleaks' spelling is accepted.
    let cfg = config("[redact]\nrules = [{ id = \"x\", regex = \"a(b)\", secretGroup = 1 }]");
    assert_eq!(cfg.rules[0].secret_group, Some(1));
}

fn record(body: Body) -> Record {
    Record {
        id: "r-1".into(),
        body,
        parent: Some("r-0".into()),
        ts: Some("2026-01-02T03:04:05Z".into()),
        agent: Some("agent-7".into()),
        src: Some(SourceSpan { file: "a.jsonl".into(), offset: 9, len: 99 }),
    }
}

/// Every kind: the free-text fields are masked, the rest is kept, whatever it holds.
#[test]
fn record_fields_by_kind() {
    let r = Redactor::builtin();
    let s = ghp();
    let masked = "[REDACTED:github-pat]";
    let cases: Vec<(Body, Body)> = vec![
        (
            Body::Meta(Meta {
                schema: "trajhost.canonical/0.1".into(),
                harness: "claude-code".into(),
                native_id: s.clone(),
                cwd: Some(format!("/home/u/{s}")),
                title: Some(format!("rotate {s}")),
                git_branch: Some(s.clone()),
                ..Default::default()
            }),
            Body::Meta(Meta {
                schema: "trajhost.canonical/0.1".into(),
                harness: "claude-code".into(),
                native_id: s.clone(),
                cwd: Some(format!("/home/u/{s}")),
                title: Some(format!("rotate {masked}")),
                git_branch: Some(s.clone()),
                ..Default::default()
            }),
        ),
        (Body::System { text: s.clone() }, Body::System { text: masked.into() }),
        (
            Body::User {
                text: format!("use {s}"),
                attachments: vec![Attachment { kind: "image".into(), media_type: Some("image/png".into()) }],
            },
            Body::User {
                text: format!("use {masked}"),
                attachments: vec![Attachment { kind: "image".into(), media_type: Some("image/png".into()) }],
            },
        ),
        (
            Body::Assistant(Assistant {
                text: s.clone(),
                model: Some(s.clone()),
                message_id: Some(s.clone()),
                ..Default::default()
            }),
            Body::Assistant(Assistant {
                text: masked.into(),
                model: Some(s.clone()),
                message_id: Some(s.clone()),
                ..Default::default()
            }),
        ),
        (
            Body::Reasoning(Reasoning { text: Some(s.clone()), opaque: Some(s.clone()), encrypted: true }),
            Body::Reasoning(Reasoning { text: Some(masked.into()), opaque: Some(s.clone()), encrypted: true }),
        ),
        (
            Body::ToolCall { call_id: s.clone(), name: "Bash".into(), arguments: json!({"env": [s], "n": 1}) },
            Body::ToolCall { call_id: s.clone(), name: "Bash".into(), arguments: json!({"env": [masked], "n": 1}) },
        ),
        (
            Body::ToolCall { call_id: "c".into(), name: "Bash".into(), arguments: json!(format!("not json {s}")) },
            Body::ToolCall { call_id: "c".into(), name: "Bash".into(), arguments: json!(format!("not json {masked}")) },
        ),
        (
            Body::ToolResult { call_id: s.clone(), content: s.clone(), ok: Some(false) },
            Body::ToolResult { call_id: s.clone(), content: masked.into(), ok: Some(false) },
        ),
        (
            Body::Observation { subtype: "hook".into(), text: Some(s.clone()) },
            Body::Observation { subtype: "hook".into(), text: Some(masked.into()) },
        ),
        (
            Body::Compaction { summary: s.clone(), trigger: Some("auto".into()) },
            Body::Compaction { summary: masked.into(), trigger: Some("auto".into()) },
        ),
    ];
    for (body, want) in cases {
        let kind = body.kind();
        let mut rec = record(body);
        let mut counts = Counts::default();
        r.redact_record(&mut rec, &mut counts);
        assert_eq!(rec, record(want.clone()), "{kind}");
        assert_eq!(counts.total(), 1, "{kind}");
        // The line path agrees, byte for byte with the serialized typed result.
        let line = serde_json::to_string(&record(unmask(&want, &s))).unwrap();
        let mut line_counts = Counts::default();
        assert_eq!(r.redact_line(&line, &mut line_counts), serde_json::to_string(&rec).unwrap(), "{kind}");
        assert_eq!(line_counts, counts, "{kind}");
    }
}

/// `want` with the mask replaced by the secret again: the unredacted record.
fn unmask(want: &Body, secret: &str) -> Body {
    let text = serde_json::to_string(want).unwrap().replace("[REDACTED:github-pat]", secret);
    serde_json::from_str(&text).unwrap()
}

#[test]
fn array_items_take_the_key_of_their_array_as_context() {
    let r = Redactor::builtin();
    let secret = "Zq8rT2vX9mLp4Kw7";
    let mut args = json!({"api_keys": [secret, {"note": secret}], "cmd": [secret]});
    let mut counts = Counts::default();
    r.redact_value(&mut args, &mut counts);
    assert_eq!(args, json!({"api_keys": ["[REDACTED:generic-api-key]", {"note": secret}], "cmd": [secret]}));
    let rec = record(Body::ToolCall {
        call_id: "c".into(),
        name: "Deploy".into(),
        arguments: json!({"api_keys": [secret, {"note": secret}], "cmd": [secret]}),
    });
    let line = serde_json::to_string(&rec).unwrap();
    let mut line_counts = Counts::default();
    let out = r.redact_line(&line, &mut line_counts);
    assert_eq!(
        serde_json::from_str::<Record>(&out).unwrap().body,
        Body::ToolCall { call_id: "c".into(), name: "Deploy".into(), arguments: args }
    );
    assert_eq!(line_counts, counts);
}

#[test]
fn unknown_kinds_and_fields_are_redacted_and_survive() {
    let r = Redactor::builtin();
    let s = ghp();
    let line = format!(
        r#"{{"id":"{s}","kind":"hologram","call_id":"{s}","opaque":"{s}","payload":{{"note":"key {s}","n":1.50,"deep":[["{s}"]]}},"ts":"t","src":{{"file":"{s}","offset":1,"len":2}},"harness":"{s}"}}"#
    );
    let mut counts = Counts::default();
    let out = r.redact_line(&line, &mut counts);
    let want = line
        .replace(&format!(r#""note":"key {s}""#), r#""note":"key [REDACTED:github-pat]""#)
        .replace(&format!(r#"[["{s}"]]"#), r#"[["[REDACTED:github-pat]"]]"#);
    assert_eq!(out, want);
    assert_eq!(counts.get("github-pat"), 2);
    assert!(out.contains(r#""n":1.50"#), "numbers keep their spelling");
}

#[test]
fn attachments_keep_image_data_and_mask_other_fields() {
    let r = Redactor::builtin();
    let s = ghp();
    let line = format!(
        r#"{{"id":"u","kind":"user","text":"see","attachments":[{{"kind":"image","media_type":"image/png","data":"{s}","name":"{s}.png"}},{{"kind":"file","media_type":"text/plain","data":"{s}"}}]}}"#
    );
    let mut counts = Counts::default();
    let out = r.redact_line(&line, &mut counts);
    assert!(out.contains(&format!(r#""data":"{s}","name":"[REDACTED:github-pat].png""#)), "{out}");
    assert!(out.contains(r#""kind":"file","media_type":"text/plain","data":"[REDACTED:github-pat]""#), "{out}");
    assert_eq!(counts.get("github-pat"), 2);
}

#[test]
fn a_line_that_is_not_json_is_redacted_as_text() {
    let r = Redactor::builtin();
    let s = ghp();
    let mut counts = Counts::default();
    assert_eq!(r.redact_line(&format!("{{\"text\": \"{s}\""), &mut counts), "{\"text\": \"[REDACTED:github-pat]\"");
    assert_eq!(counts.total(), 1);
}

#[test]
fn odd_escapes_do_not_stop_redaction() {
    let r = Redactor::builtin();
    let s = ghp();
    // A lone surrogate (valid for the scanner, rejected by serde) next to a secret.
    let line = format!(r#"{{"id":"1","kind":"user","text":"\ud800 {s} \u0041"}}"#);
    let mut counts = Counts::default();
    let out = r.redact_line(&line, &mut counts);
    assert!(!out.contains(&s), "{out}");
    assert_eq!(counts.get("github-pat"), 1);
}

#[test]
fn find_reports_spans_without_changing_the_text() {
    let r = Redactor::builtin();
    let s = ghp();
    let text = format!("a {s} b password=hunter2-Xk29sQ7pLm");
    let mut counts = Counts::default();
    let spans = r.find(&text, &mut counts);
    assert_eq!(spans.len(), 2);
    assert_eq!(&text[spans[0].0.clone()], s);
    assert_eq!(spans[0].1, "github-pat");
    assert_eq!(&text[spans[1].0.clone()], "hunter2-Xk29sQ7pLm");
    assert_eq!(counts.total(), 2);
}

/// Odd lines (broken JSON, escapes everywhere, keywords across quotes) never panic; a line that
/// was JSON stays JSON.
#[test]
fn odd_lines_never_panic() {
    let quote_rule = UserRule {
        id: "quoted".into(),
        regex: r#"key":"([a-z]{8,})"#.into(),
        keywords: vec!["key\":\"".into(), "é".into()],
        secret_group: Some(1),
        entropy: None,
    };
    let r = Redactor::with_config(&RedactConfig { rules: vec![quote_rule], ..Default::default() }).unwrap();
    let s = ghp();
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "\\n",
        "\\u00",
        "\\ud83d",
        "41",
        "key",
        "password",
        "=",
        "é",
        "😀",
        " ",
        "\"kind\"",
        "\"user\"",
        "\"text\"",
        "\"attachments\"",
        "\"data\"",
        "\"image\"",
        "1",
        "null",
        "-----BEGIN",
    ];
    let mut x: u64 = 7;
    for i in 0..5000 {
        let mut line = String::from("{\"id\":\"a\",\"kind\":\"user\",\"text\":\"");
        for _ in 0..(i % 30) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            line.push_str(if x.is_multiple_of(11) { &s } else { PIECES[(x as usize / 11) % PIECES.len()] });
        }
        if i % 2 == 0 {
            line.push_str("\"}");
        }
        let mut counts = Counts::default();
        let out = r.redact_line(&line, &mut counts);
        if serde_json::from_str::<serde_json::Value>(&line).is_ok() {
            assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "{line}\n→ {out}");
        }
        let _ = r.redact_text(&line, &mut counts);
    }
}
