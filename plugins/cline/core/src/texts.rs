//! The texts Cline writes into the API history around what the person typed
//! and what tools returned (cline/cline `src/core/prompts/responses.ts`,
//! `src/core/task/index.ts`). A user message's text blocks are one of:
//!
//! | text                                                   | what it is                                   |
//! |--------------------------------------------------------|----------------------------------------------|
//! | `<task>\n…\n</task>` (+ mention contents)             | the task the person typed (+ injected files) |
//! | `[<tool> for '…'] Result:` (+ content, or content in the next blocks) | a tool result                 |
//! | `Tool [<name>] was not executed because …`             | a call the harness skipped                   |
//! | `<environment_details>…`                               | injected context                             |
//! | `# task_progress …`, `# TODO LIST …`                   | injected focus-chain reminder                |
//! | `[TASK RESUMPTION] …` (`<user_message>` inside: typed) | injected on resume                           |
//! | `[ERROR] …`                                            | injected harness error (e.g. no tool used)   |
//! | anything else                                          | typed by the person (older builds, feedback) |
//!
//! Inside a tool result, `<feedback>…</feedback>` and `<answer>…</answer>`
//! are what the person typed (denial/approval feedback, a follow-up answer);
//! inside a resumption notice, `<user_message>…</user_message>`.

/// What one user text block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserText<'a> {
    /// The task, and what Cline appended after `</task>` (the content of
    /// `@` mentions: `<file_content …>`, `<url_content …>`), if anything.
    Task(&'a str, Option<&'a str>),
    /// A tool result: the tool label inside the brackets and the content
    /// after `Result:` (empty when it comes in the following blocks).
    ToolResult {
        label: &'a str,
        content: &'a str,
    },
    Skipped,
    Injected(&'static str),
    Typed(&'a str),
}

pub fn classify(text: &str) -> UserText<'_> {
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<task>")
        && let Some(end) = rest.find("</task>")
    {
        let after = rest[end + "</task>".len()..].trim();
        return UserText::Task(trim_newlines(&rest[..end]), (!after.is_empty()).then_some(after));
    }
    if let Some((label, content)) = result_header(trimmed) {
        return UserText::ToolResult { label, content };
    }
    if trimmed.starts_with("Tool [") && trimmed.contains("] was not executed because") {
        return UserText::Skipped;
    }
    if trimmed.starts_with("<environment_details>") {
        return UserText::Injected("environment_details");
    }
    if trimmed.starts_with("# task_progress") || trimmed.starts_with("# TODO LIST") {
        return UserText::Injected("task_progress");
    }
    if trimmed.starts_with("[TASK RESUMPTION]") {
        return UserText::Injected("task_resumption");
    }
    if trimmed.starts_with("[ERROR]") {
        return UserText::Injected("harness_error");
    }
    UserText::Typed(text)
}

/// `[<label>] Result:` at the start of a text: the label and what follows.
/// Cline writes the label as `<tool>`, or `<tool> for '<parameter>'` (a
/// command, a path, a question, …), and a quoted parameter may hold `]` and
/// line breaks (`[execute_command for 'if [ -f a ]; then make; fi'] Result:`):
/// such a label runs to the first `'] Result:`.
fn result_header(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('[')?;
    // A one-line label without `]`.
    if let Some(close) = rest.find(']') {
        let label = &rest[..close];
        if !label.is_empty()
            && !label.contains('\n')
            && let Some(after) = rest[close + 1..].strip_prefix(" Result:")
        {
            return Some((label, after.strip_prefix('\n').unwrap_or(after)));
        }
    }
    // `<tool> for '<anything>'`.
    let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
    if name_end == 0 || !rest[name_end..].starts_with(" for '") {
        return None;
    }
    const CLOSE: &str = "'] Result:";
    let close = rest[name_end..].find(CLOSE)? + name_end;
    if close <= name_end + " for ".len() {
        return None;
    }
    let after = &rest[close + CLOSE.len()..];
    Some((&rest[..close + 1], after.strip_prefix('\n').unwrap_or(after)))
}

/// A text result's content after its `[…] Result:` header.
pub fn result_body(text: &str) -> &str {
    match result_header(text.trim_start()) {
        Some((_, body)) => body,
        None => text,
    }
}

/// The tool name of a result label (`read_file for 'x'` → `read_file`).
pub fn label_tool(label: &str) -> &str {
    label.split(" for ").next().unwrap_or(label).trim()
}

fn trim_newlines(s: &str) -> &str {
    let s = s.strip_prefix('\n').unwrap_or(s);
    s.strip_suffix('\n').unwrap_or(s)
}

/// Every `<tag>…</tag>` inside `text`, in order.
pub fn inner_all<'a>(text: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else { break };
        out.push(trim_newlines(&after[..end]));
        rest = &after[end + close.len()..];
    }
    out
}

/// What a person typed inside a tool result or resumption notice.
pub fn typed_inside(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = TYPED_TAGS.iter().flat_map(|tag| inner_all(text, tag)).collect();
    out.retain(|t| !t.trim().is_empty());
    out
}

/// `text` without its `<feedback>`, `<answer>` and `<user_message>` spans.
pub fn outside_typed(text: &str) -> String {
    let mut out = text.to_string();
    for tag in TYPED_TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        while let Some(start) = out.find(&open) {
            let Some(end) = out[start..].find(&close) else { break };
            out.replace_range(start..start + end + close.len(), "");
        }
    }
    out
}

/// The tags Cline wraps typed text in.
const TYPED_TAGS: [&str; 3] = ["feedback", "answer", "user_message"];

/// Whether a result's content is the harness's error wrapper
/// (`formatResponse.toolError`).
pub fn is_tool_error(content: &str) -> bool {
    content.trim_start().starts_with("The tool execution failed with the following error:")
}

/// The marker Cline appends to an assistant message it cut short
/// (`[Response interrupted by user]`, `… by API Error]`, `… by user
/// feedback]`, `… by a tool use result. Only one tool may be used at a time
/// …]`): the model's text and the marker.
pub fn split_interruption(text: &str) -> (&str, Option<&str>) {
    let trimmed = text.trim_end();
    if trimmed.ends_with(']')
        && let Some(at) = trimmed.rfind("[Response interrupted by ")
        && !trimmed[at..].contains('\n')
    {
        return (trimmed[..at].trim_end(), Some(&trimmed[at..]));
    }
    (text, None)
}

/// Tools of Cline's XML tool-use protocol (before native tool calling): the
/// model writes `<name><param>value</param>…</name>` in its text.
pub const XML_TOOLS: &[&str] = &[
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "ask_followup_question",
    "plan_mode_respond",
    "plan_mode_response",
    "attempt_completion",
    "new_task",
    "load_mcp_documentation",
    "web_fetch",
    "condense",
    "summarize_task",
    "report_bug",
    "new_rule",
];

/// Parameters whose values may contain tags themselves: their value runs to
/// the last closing tag in the tool block (as Cline's parser does).
const LONG_PARAMS: &[&str] = &["content", "diff"];

/// One XML tool use in assistant text.
#[derive(Debug, Clone, PartialEq)]
pub struct XmlToolUse {
    pub name: String,
    pub params: Vec<(String, String)>,
}

/// The XML tool uses in `text`, in order. Text inside a tool block is its
/// parameters; tags that are not known tools are text.
pub fn xml_tool_uses(text: &str) -> Vec<XmlToolUse> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let next = XML_TOOLS
            .iter()
            .filter_map(|name| rest.find(&format!("<{name}>")).map(|at| (at, *name)))
            .min_by_key(|(at, _)| *at);
        let Some((at, name)) = next else { break };
        let body_start = at + name.len() + 2;
        let close = format!("</{name}>");
        let (body, after) = match rest[body_start..].find(&close) {
            Some(end) => (&rest[body_start..body_start + end], &rest[body_start + end + close.len()..]),
            // A partial block (the stream ended): what is there.
            None => (&rest[body_start..], ""),
        };
        out.push(XmlToolUse { name: name.to_string(), params: params(body) });
        rest = after;
    }
    out
}

fn params(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(end) = after.find('>') else { break };
        let name = &after[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            rest = &after[end + 1..];
            continue;
        }
        let value_start = &after[end + 1..];
        let close = format!("</{name}>");
        let found = if LONG_PARAMS.contains(&name) { value_start.rfind(&close) } else { value_start.find(&close) };
        let Some(value_end) = found else {
            out.push((name.to_string(), trim_newlines(value_start).to_string()));
            break;
        };
        out.push((name.to_string(), trim_newlines(&value_start[..value_end]).to_string()));
        rest = &value_start[value_end + close.len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_user_texts() {
        assert_eq!(classify("<task>\nFix it — ✓\n</task>"), UserText::Task("Fix it — ✓", None));
        assert_eq!(
            classify("<task>\nsee @/a.rs\n</task>\n\n<file_content path=\"a.rs\">x</file_content>"),
            UserText::Task("see @/a.rs", Some("<file_content path=\"a.rs\">x</file_content>"))
        );
        assert_eq!(
            classify("[read_file for 'a.rs'] Result:\nfn main() {}"),
            UserText::ToolResult { label: "read_file for 'a.rs'", content: "fn main() {}" }
        );
        // A quoted parameter with brackets and line breaks.
        let multi = "[execute_command for 'if [ -f a ]; then\n  make\nfi'] Result:\nCommand executed.\nOutput:\nok";
        assert_eq!(
            classify(multi),
            UserText::ToolResult {
                label: "execute_command for 'if [ -f a ]; then\n  make\nfi'",
                content: "Command executed.\nOutput:\nok"
            }
        );
        assert_eq!(label_tool("execute_command for 'if [ -f a ]; then\n  make\nfi'"), "execute_command");
        assert_eq!(
            classify("[search_files for 'a]b' in '*.rs'] Result:\nFound 0 results."),
            UserText::ToolResult { label: "search_files for 'a]b' in '*.rs'", content: "Found 0 results." }
        );
        // Brackets in typed text are not a header.
        assert_eq!(classify("[a] b [c] Result: x"), UserText::Typed("[a] b [c] Result: x"));
        assert_eq!(
            classify("[attempt_completion] Result:"),
            UserText::ToolResult { label: "attempt_completion", content: "" }
        );
        assert_eq!(
            classify("Tool [read_file] was not executed because a tool has already been used"),
            UserText::Skipped
        );
        assert_eq!(
            classify("<environment_details>\n# x\n</environment_details>"),
            UserText::Injected("environment_details")
        );
        assert_eq!(classify("\n# task_progress RECOMMENDED\n"), UserText::Injected("task_progress"));
        assert_eq!(classify("[TASK RESUMPTION] This task was interrupted"), UserText::Injected("task_resumption"));
        assert_eq!(classify("Please add tests."), UserText::Typed("Please add tests."));
        assert_eq!(label_tool("read_file for 'a.rs'"), "read_file");
    }

    #[test]
    fn finds_what_was_typed_inside() {
        let t =
            "The user denied this operation and provided the following feedback:\n<feedback>\nuse tabs\n</feedback>";
        assert_eq!(typed_inside(t), ["use tabs"]);
        let r =
            "[TASK RESUMPTION] …\n\nNew instructions for task continuation:\n<user_message>\ngo on\n</user_message>";
        assert_eq!(typed_inside(r), ["go on"]);
        assert_eq!(outside_typed("<feedback>\nx\n</feedback>").trim(), "");
        assert_eq!(outside_typed("You seem stuck:\n<feedback>\nx\n</feedback>").trim(), "You seem stuck:");
        assert!(is_tool_error("The tool execution failed with the following error:\n<error>\nx\n</error>"));
    }

    #[test]
    fn splits_interruption_markers() {
        assert_eq!(
            split_interruption("\n\n[Response interrupted by user]"),
            ("", Some("[Response interrupted by user]"))
        );
        assert_eq!(split_interruption("Half a thought\n\n[Response interrupted by API Error]").0, "Half a thought");
        assert_eq!(split_interruption("All done."), ("All done.", None));
        let tool = "<read_file>\n<path>a</path>\n</read_file>\n\n[Response interrupted by a tool use result. Only one tool may be used at a time and should be placed at the end of the message.]";
        let (said, marker) = split_interruption(tool);
        assert_eq!(said, "<read_file>\n<path>a</path>\n</read_file>");
        assert!(marker.unwrap().starts_with("[Response interrupted by a tool use result."));
    }

    #[test]
    fn parses_xml_tool_uses() {
        let text = "I'll read it.\n\n<read_file>\n<path>src/a.rs</path>\n</read_file>";
        assert_eq!(
            xml_tool_uses(text),
            [XmlToolUse { name: "read_file".into(), params: vec![("path".into(), "src/a.rs".into())] }]
        );
        let write = "<write_to_file>\n<path>x.html</path>\n<content>\n<p>hi</p>\n</content>\n</write_to_file>";
        let uses = xml_tool_uses(write);
        assert_eq!(uses[0].params, [("path".into(), "x.html".into()), ("content".into(), "<p>hi</p>".into())]);
        assert!(xml_tool_uses("use <b>bold</b> text").is_empty());
    }
}
