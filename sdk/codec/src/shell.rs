//! Resume commands are printed for a person to paste into a POSIX shell:
//! every value in them (a cwd, a home, a model name) is quoted here.

/// `s` as one shell word: bare when it holds only characters no shell
/// treats specially, else single-quoted (a `'` inside becomes `'\''`).
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(shell_quote("/home/u/p"), "/home/u/p");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$(rm -rf ~)"), "'$(rm -rf ~)'");
        assert_eq!(shell_quote("a=b"), "'a=b'");
    }
}
