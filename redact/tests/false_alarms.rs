//! What must come through byte-identical: identifiers, digests, image data, opaque reasoning
//! blobs, and code or prose that names secrets without holding one.

use std::borrow::Cow;

use serde_json::json;
use trajhost_canonical::{Body, Reasoning, Record};
use trajhost_redact::{Counts, Redactor};

/// A deterministic byte stream (splitmix64).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n).map(|_| b"0123456789abcdef"[(self.next() % 16) as usize] as char).collect()
    }
    fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!("{}-{}-4{}-a{}-{}", &h[..8], &h[8..12], &h[13..16], &h[17..20], &h[20..])
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn base64(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len() * 4 / 3 + 4);
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A PNG of `n` bytes: the signature, an IHDR chunk, then compressed-looking (random) data.
fn png(g: &mut Gen, n: usize) -> String {
    let mut data = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x04\0\0\0\x03\0\x08\x06\0\0\0".to_vec();
    data.extend(g.bytes(n.saturating_sub(data.len())));
    base64(&data)
}

/// Shannon entropy in bits per character (generic-api-key's `entropy = 3.5`).
fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    s.bytes().for_each(|b| counts[b as usize] += 1);
    let n = s.len() as f64;
    counts.iter().filter(|c| **c > 0).map(|&c| -(f64::from(c) / n) * (f64::from(c) / n).log2()).sum()
}

fn r() -> &'static Redactor {
    Redactor::builtin()
}

#[track_caller]
fn unchanged(text: &str) {
    let mut counts = Counts::default();
    let out = r().redact_text(text, &mut counts);
    assert!(matches!(out, Cow::Borrowed(_)), "changed:\n{text}\n→\n{out}\n{counts:?}");
    assert!(counts.is_empty());
}

#[track_caller]
fn line_unchanged(line: &str) {
    let mut counts = Counts::default();
    let out = r().redact_line(line, &mut counts);
    assert!(matches!(out, Cow::Borrowed(_)), "changed:\n{line}\n→\n{out}\n{counts:?}");
    assert!(counts.is_empty());
}

fn line(body: Body) -> String {
    serde_json::to_string(&Record { id: "r1".into(), body, parent: None, ts: None, agent: None, src: None }).unwrap()
}

#[test]
fn uuids() {
    let mut g = Gen(1);
    for _ in 0..50 {
        let u = g.uuid();
        for text in [
            format!("session_id={u}"),
            format!("\"sessionId\": \"{u}\""),
            format!("tool_use_id: {u}"),
            format!("x-request-id: {u}"),
            format!("Idempotency-Key: {u}"),
            format!("idempotency_key={u}"),
            format!("Resuming session {u} (api request {u})"),
            format!("rm ~/.claude/projects/-home-user/{u}.jsonl"),
            u.to_uppercase(),
        ] {
            unchanged(&text);
        }
    }
}

#[test]
fn hex_digests_and_commit_ids() {
    let mut g = Gen(2);
    for _ in 0..50 {
        let (sha256, sha1, sha512) = (g.hex(64), g.hex(40), g.hex(128));
        for text in [
            format!("{sha256}  target/release/trajhost\n{sha256}  Cargo.lock\n"),
            format!("\"sha256\": \"{sha256}\""),
            format!("Digest: sha256:{sha256}"),
            format!("Cache restored from key: Linux-cargo-{sha256}"),
            format!("cache key: {sha256}"),
            format!("checksum = \"{sha256}\""),
            format!("docker pull ghcr.io/acme/api@sha256:{sha256}"),
            format!("blob_key={sha256}"),
            format!("commit {sha1}\nAuthor: Jane Doe <jane@example.com>\nDate:   Mon Jan 5 10:00:00 2026\n"),
            format!("HEAD is now at {} fix the token refresh", &sha1[..7]),
            format!("Merge: {} {}", &sha1[..7], &sha256[..7]),
            format!("\"head_sha\": \"{sha1}\", \"key\": \"{sha1}\""),
            format!("git checkout {sha1}"),
            format!("resolved \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz#{sha1}\""),
            format!("revision_key: {sha1}"),
            format!("sha512 = {sha512}"),
        ] {
            unchanged(&text);
        }
    }
}

/// The digest and UUID allowlists stop at names that say "secret": these stay masked.
#[test]
fn hex_and_uuid_secrets_after_a_secret_name_are_still_masked() {
    let mut g = Gen(7);
    for _ in 0..20 {
        let (h64, h128, u) = (g.hex(64), g.hex(128), g.uuid());
        for (text, secret) in [
            (format!("SECRET_KEY={h64}"), &h64),
            (format!("JWT_SECRET=\"{h64}\""), &h64),
            (format!("ENCRYPTION_KEY: {h64}"), &h64),
            (format!("api_key = {h64}"), &h64),
            (format!("secret_key_base: {h128}"), &h128),
            (format!("api_token={u}"), &u),
            (format!("auth_session = \"{u}\""), &u),
        ] {
            if entropy(secret) <= 3.5 {
                continue; // under generic-api-key's threshold: gitleaks lets it through
            }
            let mut counts = Counts::default();
            let out = r().redact_text(&text, &mut counts);
            assert!(!out.contains(secret.as_str()), "{text} → {out}");
            assert_eq!(counts.total(), 1, "{text} → {out}");
        }
    }
}

#[test]
fn base64_png_in_an_attachment() {
    let mut g = Gen(3);
    for size in [3 * 1024, 1024 * 1024] {
        let data = png(&mut g, size);
        let line = format!(
            r#"{{"id":"u1","kind":"user","text":"What is wrong in this screenshot?","attachments":[{{"kind":"image","media_type":"image/png","data":"{data}"}}],"ts":"2026-01-02T03:04:05Z"}}"#
        );
        line_unchanged(&line);
        // Nested the way some harnesses carry it.
        let nested = format!(
            r#"{{"id":"u1","kind":"user","text":"and this one","attachments":[{{"kind":"image","source":{{"type":"base64","media_type":"image/png","data":"{data}"}}}}]}}"#
        );
        line_unchanged(&nested);
    }
}

#[test]
fn base64_png_as_plain_text_is_no_finding_either() {
    let mut g = Gen(4);
    for size in [3 * 1024, 1024 * 1024] {
        unchanged(&png(&mut g, size));
    }
}

#[test]
fn codex_encrypted_content_in_reasoning_opaque() {
    let mut g = Gen(5);
    let blob = format!("gAAAAAB{}", base64(&g.bytes(6000)).replace('+', "-").replace('/', "_"));
    let body = Body::Reasoning(Reasoning {
        text: Some("**Planning the fix**\n\nThe token refresh fails; check the api key loader.".into()),
        opaque: Some(blob.clone()),
        encrypted: true,
    });
    line_unchanged(&line(body.clone()));
    let mut rec = Record { id: "r".into(), body, parent: None, ts: None, agent: None, src: None };
    let before = rec.clone();
    let mut counts = Counts::default();
    r().redact_record(&mut rec, &mut counts);
    assert_eq!(rec, before);
    unchanged(&blob);
}

#[test]
fn claude_thinking_signature_in_reasoning_opaque() {
    let mut g = Gen(6);
    let signature = format!("EqQBCkgIBxABGAIqQ{}", base64(&g.bytes(1200)));
    let body = Body::Reasoning(Reasoning {
        text: Some("The user wants the password reset flow; the secret is read from Vault.".into()),
        opaque: Some(signature.clone()),
        encrypted: false,
    });
    line_unchanged(&line(body.clone()));
    let mut rec = Record { id: "r".into(), body, parent: None, ts: None, agent: None, src: None };
    let before = rec.clone();
    r().redact_record(&mut rec, &mut Counts::default());
    assert_eq!(rec, before);
    unchanged(&signature);
}

const CODE_AND_PROSE: &[&str] = &[
    r#"let api_key = std::env::var("OPENAI_API_KEY")?;"#,
    "pub password: Option<String>,",
    "def get_token(self):\n    return self._token",
    "const secret = process.env.SECRET;",
    r#"if (!token) throw new Error("missing token");"#,
    r#"api_key = os.environ["API_KEY"]"#,
    r#"headers = {"Authorization": f"Bearer {token}"}"#,
    r#"headers = {"Authorization": "Bearer " + access_token}"#,
    "Store the API key in the secret manager; never commit the password or the token.",
    "password = getpass.getpass()",
    r#"token = request.headers.get("X-Token")"#,
    "secretKeyRef:\n  name: db-secret\n  key: password",
    "echo \"$GHCR_TOKEN\" | docker login ghcr.io -u acme --password-stdin",
    "PASSWORD=$(cat /run/secrets/db_password)",
    "export API_KEY=${API_KEY}",
    r#"{"password": "<your password>", "api_key": "${OPENAI_API_KEY}"}"#,
    "auth_token: Optional[str] = None",
    r#"access_token = response.json()["access_token"]"#,
    r#"key = f"{prefix}:{user_id}""#,
    "fn redact_secret(token: &str, key: &Key) -> Result<String, AuthError> {",
    "The session token expires after an hour, so the client refreshes it with the refresh token.",
    "SECRET_KEY = os.environ.get('DJANGO_SECRET_KEY')",
    "git clone https://github.com/acme/api.git && cd api",
    "psql postgres://localhost:5432/app",
    "postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
    "archive = \"postgres://trajhost:PASSWORD@db.internal:5432/trajhost\"",
    "postgres://user:password@host:port/db?connect_timeout=5",
    "redis://:changeme@localhost:6379/0",
    "curl -fsSL https://example.com/install.sh | sh",
    "[REDACTED:generic-api-key]",
    "keyboard_layout = \"us\"; monkey_patch = True; turkey = 3",
    "The auth module reads credentials from ~/.aws/credentials (aws_access_key_id, aws_secret_access_key).",
    "for key, value in os.environ.items():\n    if 'TOKEN' in key or 'SECRET' in key:\n        print(key)",
];

#[test]
fn code_and_prose_about_secrets() {
    for text in CODE_AND_PROSE {
        unchanged(text);
    }
}

#[test]
fn structure_and_never_touched_fields() {
    // Fields on the skip list stay even when they look like secrets; unknown fields survive.
    let ghp = format!("{}{}", "ghp_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A");
    let line = json!({
        "id": ghp, "kind": "tool_call", "call_id": ghp, "name": "Bash",
        "arguments": {"command": "ls -la", "env": {"PATH": "/usr/bin"}, "n": 3, "ok": true, "x": null},
        "parent": ghp, "ts": "2026-01-02T03:04:05Z",
        "src": {"file": format!("{ghp}.jsonl"), "offset": 12, "len": 34},
        "future_field": {"nested": [1, 2.5e3, "plain words"]},
    })
    .to_string();
    line_unchanged(&line);
    let with_secret = line.replace("ls -la", &format!("echo {ghp}"));
    let mut counts = Counts::default();
    let out = r().redact_line(&with_secret, &mut counts);
    assert_eq!(counts.get("github-pat"), 1, "only the argument: {out}");
    assert_eq!(out, with_secret.replace(&format!("echo {ghp}"), "echo [REDACTED:github-pat]"));
}
