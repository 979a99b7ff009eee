//! A deterministic generator of large, realistic native sessions.
//!
//! Same seed, same bytes. Claude Code transcripts get user prompts,
//! assistant responses split over several lines that share `message.id`
//! (thinking, text, tool_use), tool results with `toolUseResult`, and
//! bookkeeping lines; Codex rollouts get `session_meta`, `turn_context`,
//! messages, reasoning, function calls and outputs, and token counts. Text
//! mixes ASCII with multibyte UTF-8 (accents, CJK, emoji), JSON-escaped. A
//! few tool results are single very long lines (`max_line_bytes`, up to
//! 64 MiB): the first at half the target size, then one every 64 MiB.
//!
//! Nothing is kept in memory beyond one line, so a 1 GB session is written
//! in seconds with a few MB of RSS.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Which native format to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    ClaudeCode,
    Codex,
}

impl Format {
    pub fn harness(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
        }
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    pub format: Format,
    /// The file grows until it has at least this many bytes.
    pub target_bytes: u64,
    pub seed: u64,
    /// The size of the long single lines (capped at 64 MiB).
    pub max_line_bytes: usize,
}

/// Largest single line the generator writes.
pub const MAX_LINE_CAP: usize = 64 << 20;
/// Distance between long lines after the first.
const LONG_LINE_EVERY: u64 = 64 << 20;

impl Spec {
    pub fn new(format: Format, target_bytes: u64) -> Spec {
        Spec { format, target_bytes, seed: 0x7261_6a68_6f73_7400, max_line_bytes: 4 << 20 }
    }
}

/// A generated session.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Generated {
    pub format: Format,
    /// The HOME the session lives under.
    pub home: PathBuf,
    /// Path relative to `home`.
    pub locator: String,
    pub path: PathBuf,
    pub native_id: String,
    pub bytes: u64,
    pub lines: u64,
    /// Longest line, terminator included.
    pub longest_line: u64,
}

/// Native versions written (covered by the built-in codecs).
pub const CLAUDE_CODE_VERSION: &str = "2.1.197";
pub const CODEX_VERSION: &str = "0.171.0";

/// Writes one session under `home` (created if needed).
pub fn generate(home: &Path, spec: &Spec) -> io::Result<Generated> {
    let mut rng = Rng::new(spec.seed ^ spec.target_bytes.rotate_left(17) ^ spec.format as u64);
    let native_id = rng.uuid();
    let locator = match spec.format {
        Format::ClaudeCode => format!(".claude/projects/-home-user-project/{native_id}.jsonl"),
        Format::Codex => format!(".codex/sessions/2026/11/30/rollout-2026-11-30T04-10-39-{native_id}.jsonl"),
    };
    let path = home.join(&locator);
    std::fs::create_dir_all(path.parent().expect("locators have a parent"))?;
    let file = std::fs::File::create(&path)?;
    let mut out =
        Counter { inner: BufWriter::with_capacity(1 << 20, file), bytes: 0, lines: 0, longest: 0, line_start: 0 };
    let max_line = spec.max_line_bytes.clamp(1024, MAX_LINE_CAP);
    let mut g = Gen { rng, native_id: native_id.clone(), clock: 1_796_011_550_000, turn: 0, parent: None };
    let mut next_long = spec.target_bytes / 2;
    let long_size = |target: u64| (max_line as u64).min((target / 8).max(1024)) as usize;
    match spec.format {
        Format::ClaudeCode => {
            g.claude_preamble(&mut out)?;
            while out.bytes < spec.target_bytes {
                let long = (out.bytes >= next_long).then(|| {
                    next_long += LONG_LINE_EVERY;
                    long_size(spec.target_bytes)
                });
                g.claude_turn(&mut out, long)?;
            }
        }
        Format::Codex => {
            g.codex_preamble(&mut out)?;
            while out.bytes < spec.target_bytes {
                let long = (out.bytes >= next_long).then(|| {
                    next_long += LONG_LINE_EVERY;
                    long_size(spec.target_bytes)
                });
                g.codex_turn(&mut out, long)?;
            }
        }
    }
    out.inner.flush()?;
    Ok(Generated {
        format: spec.format,
        home: home.to_path_buf(),
        locator,
        path,
        native_id,
        bytes: out.bytes,
        lines: out.lines,
        longest_line: out.longest,
    })
}

/// Counts bytes, lines and the longest line.
struct Counter<W: Write> {
    inner: W,
    bytes: u64,
    lines: u64,
    longest: u64,
    line_start: u64,
}

impl<W: Write> Counter<W> {
    fn put(&mut self, s: &str) -> io::Result<()> {
        self.inner.write_all(s.as_bytes())?;
        self.bytes += s.len() as u64;
        Ok(())
    }

    fn end_line(&mut self) -> io::Result<()> {
        self.put("\n")?;
        self.lines += 1;
        self.longest = self.longest.max(self.bytes - self.line_start);
        self.line_start = self.bytes;
        Ok(())
    }
}

/// splitmix64: small, fast, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next_u64() as usize % items.len()]
    }

    fn hex(&mut self, digits: usize) -> String {
        let mut s = String::with_capacity(digits);
        while s.len() < digits {
            s.push_str(&format!("{:016x}", self.next_u64()));
        }
        s.truncate(digits);
        s
    }

    pub fn uuid(&mut self) -> String {
        let h = self.hex(32);
        format!("{}-{}-4{}-a{}-{}", &h[..8], &h[8..12], &h[13..16], &h[17..20], &h[20..32])
    }
}

const WORDS: &[&str] = &[
    "the",
    "function",
    "returns",
    "a",
    "value",
    "when",
    "called",
    "with",
    "error",
    "handler",
    "config",
    "file",
    "module",
    "test",
    "passes",
    "fails",
    "because",
    "index",
    "buffer",
    "stream",
    "parse",
    "record",
    "session",
    "naïve",
    "café",
    "résumé",
    "Ünïcödé",
    "Straße",
    "日本語",
    "テキスト",
    "中文字符",
    "한국어",
    "русский",
    "ελληνικά",
    "🚀",
    "✅",
    "⚠️",
    "→",
    "λ",
    "∑",
    "emoji👍",
    "quoted\"word\"",
    "back\\slash",
    "tab\there",
    "{braces}",
    "<tag>",
];

const TOOLS: &[&str] = &["Bash", "Read", "Edit", "Grep", "Write", "Glob"];

/// Session state while generating.
struct Gen {
    rng: Rng,
    native_id: String,
    /// Milliseconds since the epoch.
    clock: u64,
    turn: u64,
    parent: Option<String>,
}

impl Gen {
    /// Random prose of about `bytes` bytes (UTF-8, unescaped).
    fn prose(&mut self, bytes: usize) -> String {
        let mut s = String::with_capacity(bytes + 16);
        let mut words_on_line = 0;
        while s.len() < bytes {
            s.push_str(self.rng.pick(WORDS));
            words_on_line += 1;
            if words_on_line > 12 && self.rng.chance(15) {
                s.push('\n');
                words_on_line = 0;
            } else {
                s.push(' ');
            }
        }
        s
    }

    /// A tool's output of about `bytes` bytes: numbered source-like lines.
    fn output(&mut self, bytes: usize) -> String {
        let mut s = String::with_capacity(bytes + 128);
        let mut n = 1;
        while s.len() < bytes {
            let width = self.rng.range(3, 10);
            s.push_str(&format!("{n:>6}\t"));
            for _ in 0..width {
                s.push_str(self.rng.pick(WORDS));
                s.push(' ');
            }
            s.push('\n');
            n += 1;
        }
        s
    }

    fn tick(&mut self) -> String {
        self.clock += self.rng.range(5, 4000) as u64;
        millis(self.clock)
    }

    fn output_size(&mut self) -> usize {
        // Mostly small, sometimes large: tool outputs in real sessions.
        match self.rng.range(0, 99) {
            0..=59 => self.rng.range(80, 2_000),
            60..=89 => self.rng.range(2_000, 20_000),
            _ => self.rng.range(20_000, 120_000),
        }
    }

    // ---- Claude Code ----

    fn claude_envelope(&mut self, kind: &str, uuid: &str) -> String {
        let parent = match &self.parent {
            Some(p) => format!("\"{p}\""),
            None => "null".into(),
        };
        let ts = self.tick();
        format!(
            "\"parentUuid\":{parent},\"isSidechain\":false,\"type\":\"{kind}\",\"uuid\":\"{uuid}\",\"timestamp\":\"{ts}\",\"userType\":\"external\",\"entrypoint\":\"cli\",\"cwd\":\"/home/user/project\",\"sessionId\":\"{}\",\"version\":\"{CLAUDE_CODE_VERSION}\",\"gitBranch\":\"main\"",
            self.native_id
        )
    }

    fn claude_preamble<W: Write>(&mut self, out: &mut Counter<W>) -> io::Result<()> {
        let ts = self.tick();
        out.put(&format!(
            "{{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"timestamp\":\"{ts}\",\"sessionId\":\"{}\",\"content\":\"start\"}}",
            self.native_id
        ))?;
        out.end_line()
    }

    fn claude_turn<W: Write>(&mut self, out: &mut Counter<W>, long: Option<usize>) -> io::Result<()> {
        self.turn += 1;
        // The user's prompt.
        let uuid = self.rng.uuid();
        let size = self.rng.range(20, 600);
        let prompt = json(&self.prose(size));
        let env = self.claude_envelope("user", &uuid);
        out.put(&format!("{{{env},\"promptId\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":{prompt}}},\"permissionMode\":\"default\"}}", self.rng.uuid()))?;
        out.end_line()?;
        self.parent = Some(uuid);

        let steps = self.rng.range(1, 6);
        for step in 0..steps {
            let last = step + 1 == steps;
            let message_id = format!("msg_{}", self.rng.hex(24));
            let usage = format!(
                "{{\"input_tokens\":{},\"cache_creation_input_tokens\":{},\"cache_read_input_tokens\":{},\"output_tokens\":{},\"service_tier\":\"standard\"}}",
                self.rng.range(10, 5000),
                self.rng.range(0, 2000),
                self.rng.range(0, 90000),
                self.rng.range(1, 3000)
            );
            let mut blocks: Vec<String> = Vec::new();
            if self.rng.chance(40) {
                let size = self.rng.range(100, 3000);
                blocks.push(format!(
                    "{{\"type\":\"thinking\",\"thinking\":{},\"signature\":\"{}\"}}",
                    json(&self.prose(size)),
                    self.rng.hex(120)
                ));
            }
            let size = self.rng.range(30, 2500);
            blocks.push(format!("{{\"type\":\"text\",\"text\":{}}}", json(&self.prose(size))));
            let tool = (!last).then(|| (format!("toolu_{}", self.rng.hex(24)), self.rng.pick(TOOLS)));
            if let Some((id, name)) = &tool {
                let size = self.rng.range(10, 400);
                let input = match *name {
                    "Bash" => format!("{{\"command\":{},\"description\":\"run it\"}}", json(&self.prose(size))),
                    "Edit" => format!(
                        "{{\"file_path\":\"/home/user/project/src/lib.rs\",\"old_string\":{},\"new_string\":{}}}",
                        json(&self.prose(size)),
                        json(&self.prose(size))
                    ),
                    _ => format!(
                        "{{\"file_path\":\"/home/user/project/src/{}.rs\",\"pattern\":{}}}",
                        self.rng.hex(6),
                        json(&self.prose(size.min(60)))
                    ),
                };
                blocks.push(format!("{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"{name}\",\"input\":{input}}}"));
            }
            let stop = if tool.is_some() { "\"tool_use\"" } else { "\"end_turn\"" };
            let n = blocks.len();
            // One line per content block, sharing message.id (as Claude Code streams them).
            for (i, block) in blocks.into_iter().enumerate() {
                let uuid = self.rng.uuid();
                let env = self.claude_envelope("assistant", &uuid);
                let stop_reason = if i + 1 == n { stop } else { "null" };
                out.put(&format!(
                    "{{{env},\"requestId\":\"req_{}\",\"message\":{{\"id\":\"{message_id}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{block}],\"stop_reason\":{stop_reason},\"stop_sequence\":null,\"usage\":{usage}}}}}",
                    self.rng.hex(20)
                ))?;
                out.end_line()?;
                self.parent = Some(uuid);
            }
            if let Some((id, _)) = tool {
                let size = match long {
                    Some(size) if step == 0 => size,
                    _ => self.output_size(),
                };
                let content = json(&self.output(size.saturating_sub(600)));
                let ok = !self.rng.chance(8);
                let uuid = self.rng.uuid();
                let assistant = self.parent.clone().unwrap_or_default();
                let env = self.claude_envelope("user", &uuid);
                // Claude Code repeats the output in `toolUseResult`; the long lines carry it once.
                let extra = if size > 200_000 {
                    "{\"interrupted\":false}".to_string()
                } else {
                    format!("{{\"stdout\":{content},\"stderr\":\"\",\"interrupted\":false}}")
                };
                out.put(&format!(
                    "{{{env},\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"{id}\",\"type\":\"tool_result\",\"content\":{content},\"is_error\":{}}}]}},\"toolUseResult\":{extra},\"sourceToolAssistantUUID\":\"{assistant}\"}}",
                    !ok
                ))?;
                out.end_line()?;
                self.parent = Some(uuid);
            }
        }
        if self.turn.is_multiple_of(7) {
            out.put(&format!(
                "{{\"type\":\"last-prompt\",\"lastPrompt\":\"turn {}\",\"leafUuid\":\"{}\",\"sessionId\":\"{}\"}}",
                self.turn,
                self.parent.clone().unwrap_or_default(),
                self.native_id
            ))?;
            out.end_line()?;
        }
        Ok(())
    }

    // ---- Codex ----

    fn codex_line<W: Write>(&mut self, out: &mut Counter<W>, kind: &str, payload: &str) -> io::Result<()> {
        let ts = self.tick();
        out.put(&format!("{{\"timestamp\":\"{ts}\",\"type\":\"{kind}\",\"payload\":{payload}}}"))?;
        out.end_line()
    }

    fn codex_preamble<W: Write>(&mut self, out: &mut Counter<W>) -> io::Result<()> {
        let ts = millis(self.clock);
        let instructions = json(&self.prose(4000));
        let payload = format!(
            "{{\"id\":\"{id}\",\"session_id\":\"{id}\",\"timestamp\":\"{ts}\",\"cwd\":\"/home/user/project\",\"originator\":\"codex_exec\",\"cli_version\":\"{CODEX_VERSION}\",\"source\":\"exec\",\"model_provider\":\"openai\",\"base_instructions\":{{\"text\":{instructions}}}}}",
            id = self.native_id
        );
        self.codex_line(out, "session_meta", &payload)
    }

    fn codex_turn<W: Write>(&mut self, out: &mut Counter<W>, long: Option<usize>) -> io::Result<()> {
        self.turn += 1;
        let turn_id = self.rng.uuid();
        self.codex_line(
            out,
            "turn_context",
            &format!("{{\"turn_id\":\"{turn_id}\",\"cwd\":\"/home/user/project\",\"approval_policy\":\"never\",\"model\":\"gpt-5-codex\",\"summary\":\"auto\"}}"),
        )?;
        let size = self.rng.range(20, 600);
        let prompt = json(&self.prose(size));
        self.codex_line(
            out,
            "response_item",
            &format!(
                "{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":{prompt}}}]}}"
            ),
        )?;
        self.codex_line(
            out,
            "event_msg",
            &format!("{{\"type\":\"user_message\",\"message\":{prompt},\"images\":[]}}"),
        )?;
        let steps = self.rng.range(1, 6);
        for step in 0..steps {
            let last = step + 1 == steps;
            if self.rng.chance(40) {
                let size = self.rng.range(100, 2000);
                let summary = json(&self.prose(size));
                let enc = self.rng.hex(400);
                self.codex_line(
                    out,
                    "response_item",
                    &format!("{{\"type\":\"reasoning\",\"summary\":[{{\"type\":\"summary_text\",\"text\":{summary}}}],\"content\":null,\"encrypted_content\":\"{enc}\"}}"),
                )?;
            }
            if last {
                let size = self.rng.range(30, 2500);
                let text = json(&self.prose(size));
                self.codex_line(
                    out,
                    "response_item",
                    &format!("{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":{text}}}]}}"),
                )?;
            } else {
                let call_id = format!("call_{}", self.rng.hex(24));
                let size = self.rng.range(10, 300);
                let args = json(&format!("{{\"cmd\": {}}}", json(&self.prose(size))));
                self.codex_line(
                    out,
                    "response_item",
                    &format!("{{\"type\":\"function_call\",\"name\":\"exec_command\",\"arguments\":{args},\"call_id\":\"{call_id}\"}}"),
                )?;
                let size = match long {
                    Some(size) if step == 0 => size,
                    _ => self.output_size(),
                };
                let output = json(&self.output(size.saturating_sub(300)));
                self.codex_line(
                    out,
                    "response_item",
                    &format!("{{\"type\":\"function_call_output\",\"call_id\":\"{call_id}\",\"output\":{output}}}"),
                )?;
            }
            let (i, o) = (self.rng.range(100, 90000), self.rng.range(1, 3000));
            self.codex_line(
                out,
                "event_msg",
                &format!("{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{{\"input_tokens\":{i},\"cached_input_tokens\":0,\"output_tokens\":{o},\"reasoning_output_tokens\":0,\"total_tokens\":{}}},\"last_token_usage\":{{\"input_tokens\":{i},\"cached_input_tokens\":0,\"output_tokens\":{o},\"reasoning_output_tokens\":0,\"total_tokens\":{}}},\"model_context_window\":258400}}}}", i + o, i + o),
            )?;
        }
        Ok(())
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn millis(ms: u64) -> String {
    let secs = trajhost::time::rfc3339_from_unix((ms / 1000) as i64);
    format!("{}.{:03}Z", &secs[..secs.len() - 1], ms % 1000)
}

/// `s` as a JSON string literal.
fn json(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// Appends one user turn to a Claude Code session, a copy of its last user
/// line with a new uuid (what a live session gains); returns the bytes
/// appended. Reads only the file's tail.
pub fn append_user_turn(path: &Path) -> io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new().read(true).append(true).open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(8 << 20);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let tail = String::from_utf8_lossy(&bytes);
    // The first line of a tail may be cut.
    let whole = if start > 0 { tail.split_once('\n').map_or("", |(_, rest)| rest) } else { &tail };
    let line = whole
        .lines()
        .rfind(|l| l.contains(r#""type":"user""#))
        .ok_or_else(|| io::Error::other("no user line in the session's last 8 MiB"))?;
    let mut record: serde_json::Value = serde_json::from_str(line).map_err(io::Error::other)?;
    record["uuid"] = "0b0b0b0b-0000-4000-8000-00000000beef".into();
    let appended = format!("{record}\n");
    file.write_all(appended.as_bytes())?;
    Ok(appended.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_valid_json() {
        for format in [Format::ClaudeCode, Format::Codex] {
            let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let mut spec = Spec::new(format, 300_000);
            spec.max_line_bytes = 64 * 1024;
            let ga = generate(a.path(), &spec).unwrap();
            let gb = generate(b.path(), &spec).unwrap();
            let (ba, bb) = (std::fs::read(&ga.path).unwrap(), std::fs::read(&gb.path).unwrap());
            assert_eq!(ba, bb);
            assert!(ga.bytes >= 300_000 && ga.bytes == ba.len() as u64);
            assert!(ga.longest_line >= 30_000, "{format:?}: longest {}", ga.longest_line);
            for line in ba.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                serde_json::from_slice::<serde_json::Value>(line).unwrap();
            }
            assert!(String::from_utf8(ba).unwrap().contains("日本語"));
        }
    }
}
