//! Synthetic secrets, realistic in shape, for tests that plant them in sessions and check that
//! none survives redaction (this crate's tests and the host's).
//!
//! The secrets are generated from a fixed seed (the same on every call and every machine) and
//! are never written out whole in the source, so no repository scanner mistakes this file for a
//! leak. None is a real credential.

/// One planted secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    /// The rule expected to mask it (the id in `[REDACTED:<id>]` and in `Counts`).
    pub rule: &'static str,
    /// What to plant: the secret in the context that identifies it (`aws_secret_access_key = …`,
    /// a whole PEM block, a URL, a service-account key file). Plant it whole.
    pub text: String,
    /// The part that must not appear anywhere in redacted output.
    pub secret: String,
}

/// `(expected rule id, text to plant)` for every planted secret; see [`planted`] for the part of
/// each text that must not survive.
pub fn planted_secrets() -> Vec<(&'static str, String)> {
    planted().into_iter().map(|p| (p.rule, p.text)).collect()
}

/// Every planted secret, with its context and the part that must not leak.
pub fn planted() -> Vec<Planted> {
    let mut g = Gen(0x7472_616a_686f_7374);
    let mut out = Vec::new();
    let mut add = |rule: &'static str, text: String, secret: String| {
        debug_assert!(text.contains(&secret), "{rule}");
        out.push(Planted { rule, text, secret });
    };

    let key_id = format!("{}{}", "AKIA", g.pick(16, UPPER_B32));
    add("aws-access-token", format!("aws_access_key_id = {key_id}"), key_id);

    let aws_secret = g.pick(40, BASE64);
    add("aws-secret-access-key", format!("aws_secret_access_key = {aws_secret}"), aws_secret.clone());
    let aws_secret2 = g.pick(40, BASE64);
    add(
        "aws-secret-access-key",
        format!("aws configure set aws_secret_access_key {aws_secret2} --profile deploy"),
        aws_secret2,
    );

    let ghp = format!("{}{}", "ghp_", g.pick(36, ALNUM));
    add("github-pat", format!("export GITHUB_TOKEN={ghp}"), ghp);

    let fine = format!("{}{}_{}", "github_pat_", g.pick(22, ALNUM), g.pick(59, ALNUM));
    add("github-fine-grained-pat", format!("GH_TOKEN={fine} gh pr list"), fine);

    // Ends in an alphanumeric: gitleaks' rule ends with `\b` (a key ending in `-` is left to
    // trajhost's openai-project-key).
    let openai =
        format!("{}{}{}FJ{}{}", "sk-proj-", g.pick(74, B64URL), "T3Blbk", g.pick(73, B64URL), g.pick(1, ALNUM));
    add("openai-api-key", format!("OPENAI_API_KEY={openai}"), openai);

    let openai2 = format!("{}{}", "sk-proj-", g.pick(120, B64URL));
    add("openai-project-key", format!("client = OpenAI(api_key=\"{openai2}\")"), openai2);

    let anthropic = format!("{}{}{}", "sk-ant-api03-", g.pick(93, B64URL), "AA");
    add("anthropic-api-key", format!("ANTHROPIC_API_KEY={anthropic}"), anthropic);

    let oauth = format!("{}{}{}", "sk-ant-oat01-", g.pick(93, B64URL), "AA");
    add("anthropic-key", format!("CLAUDE_CODE_OAUTH_TOKEN={oauth}"), oauth);

    let xoxb = format!("{}{}-{}-{}", "xoxb-", g.pick(12, DIGITS), g.pick(13, DIGITS), g.pick(24, ALNUM));
    add("slack-bot-token", format!("SLACK_BOT_TOKEN={xoxb}"), xoxb);

    let hook = format!(
        "https://{}/services/T{}/B{}/{}",
        "hooks.slack.com",
        g.pick(8, UPPER_ALNUM),
        g.pick(10, UPPER_ALNUM),
        g.pick(24, ALNUM)
    );
    add(
        "slack-webhook-url",
        format!("curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deployed\"}}' {hook}"),
        hook,
    );

    let stripe = format!("{}{}", "sk_live_", g.pick(99, ALNUM));
    add("stripe-access-token", format!("STRIPE_SECRET_KEY={stripe}"), stripe);

    let (pem, body_line) = g.pem("RSA PRIVATE KEY", "\n");
    add("private-key", pem, body_line);
    // The same with JSON-escaped newlines, as a key file's JSON shows it in a tool's output.
    let (pem, body_line) = g.pem("PRIVATE KEY", "\\n");
    add("private-key", format!("{{\"key\": \"{pem}\"}}"), body_line);

    let header = b64url(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload =
        b64url(format!(r#"{{"sub":"user-{}","iat":1767225600,"exp":1767312000}}"#, g.pick(12, HEX)).as_bytes());
    let jwt = format!("{header}.{payload}.{}", g.pick(43, B64URL));
    add("jwt", format!("JWT=\"{jwt}\""), jwt);

    let password = g.pick(20, ALNUM);
    let url = format!("postgres://app_user:{password}@db.internal:5432/prod");
    add("url-password", format!("DATABASE_URL={url}"), password);

    let generic = format!("{}{}", g.pick(12, ALNUM), g.pick(4, DIGITS));
    add("generic-api-key", format!("DB_PASSWORD={generic}"), generic);

    let gcp_id = g.pick(40, HEX);
    let (gcp_pem, gcp_line) = g.pem("PRIVATE KEY", "\\n");
    let gcp = format!(
        concat!(
            "{{\n",
            "  \"type\": \"service_account\",\n",
            "  \"project_id\": \"acme-prod-4821\",\n",
            "  \"private_key_id\": \"{id}\",\n",
            "  \"private_key\": \"{pem}\\n\",\n",
            "  \"client_email\": \"deployer@acme-prod-4821.iam.gserviceaccount.com\",\n",
            "  \"client_id\": \"{client}\",\n",
            "  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n",
            "}}"
        ),
        id = gcp_id,
        pem = gcp_pem,
        client = g.pick(21, DIGITS)
    );
    add("gcp-service-account-key-id", gcp.clone(), gcp_id);
    add("private-key", gcp, gcp_line);
    out
}

/// The planted secrets as a `.env` file, one `NAME=value` line each (those that are one line).
pub fn dotenv() -> String {
    let mut s = String::from("# .env\nNODE_ENV=production\nPORT=8080\n");
    for p in planted() {
        if !p.text.contains('\n') && !p.text.starts_with("curl ") && !p.text.starts_with("aws ") {
            let line = p.text.strip_prefix("export ").unwrap_or(&p.text);
            s.push_str(line);
            s.push('\n');
        }
    }
    s
}

const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const UPPER_B32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const UPPER_ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// splitmix64: deterministic, no dependency.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` characters of `alphabet`.
    fn pick(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n).map(|_| alphabet[(self.next() % alphabet.len() as u64) as usize] as char).collect()
    }

    /// A PEM private key block whose lines are joined by `newline`; and one of its body lines.
    fn pem(&mut self, label: &str, newline: &str) -> (String, String) {
        let mut lines = vec![format!("-----BEGIN {label}-----")];
        let mut first = format!("MIIEv{}", self.pick(59, BASE64));
        first.truncate(64);
        lines.push(first);
        for _ in 0..12 {
            lines.push(self.pick(64, BASE64));
        }
        lines.push(format!("{}==", self.pick(30, BASE64)));
        lines.push(format!("-----END {label}-----"));
        let body = lines[3].clone();
        (lines.join(newline), body)
    }
}

fn b64url(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(B64URL[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_distinct() {
        let a = planted();
        assert_eq!(a, planted());
        let mut secrets: Vec<&str> = a.iter().map(|p| p.secret.as_str()).collect();
        secrets.sort();
        secrets.dedup();
        assert_eq!(secrets.len(), a.len());
    }

    #[test]
    fn jwt_header_is_standard() {
        assert_eq!(b64url(br#"{"alg":"HS256","typ":"JWT"}"#), "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
    }
}
