//! Relative paths below a granted directory, as codecs build and check them
//! (the host refuses absolute paths and `..` anyway; checking first gives a
//! clear error naming the locator).

use crate::CodecError;

/// `dir/name`, or `name` when `dir` is empty.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

/// A relative path below the home: not empty, no leading `/`, no `.`, `..`
/// or empty segment.
pub fn is_relative_below(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.split('/').any(|c| c.is_empty() || c == "." || c == "..")
}

/// A locator the codec cannot place: `NotFound`, naming it and why.
pub fn bad_locator(locator: &str, why: &str) -> CodecError {
    CodecError::NotFound(format!("locator {locator:?}: {why}"))
}

/// What follows `root/` in `locator`; a locator that is not a relative path
/// below the home, or lies outside `root` (`outside` says so, "not under
/// .factory/sessions"), is refused.
pub fn below_root<'a>(locator: &'a str, root: &str, outside: &str) -> Result<&'a str, CodecError> {
    if !is_relative_below(locator) {
        return Err(bad_locator(locator, "not a relative path below the home"));
    }
    locator.strip_prefix(root).and_then(|r| r.strip_prefix('/')).ok_or_else(|| bad_locator(locator, outside))
}

/// The folder of a session kept as `<folder>/<file>` that `locator` names
/// (`what` names that file, "a Kimi CLI context.jsonl"); a locator that is
/// not a relative path below the home, or names another file, is refused.
pub fn folder_of<'a>(locator: &'a str, file: &str, what: &str) -> Result<&'a str, CodecError> {
    if !is_relative_below(locator) {
        return Err(bad_locator(locator, "not a relative path below the home"));
    }
    let folder = locator.strip_suffix(file).and_then(|d| d.strip_suffix('/'));
    folder.ok_or_else(|| bad_locator(locator, &format!("not {what}")))
}

/// A single file or directory name, safe to look up inside a known
/// directory: not empty, not `.` or `..`, no separator or NUL.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// The file name of `locator` without `suffix`: the id of a session whose
/// store names it nowhere else (a file that lost its header, a document
/// without its id).
pub fn file_stem<'a>(locator: &'a str, suffix: &str) -> &'a str {
    let name = locator.rsplit('/').next().unwrap_or(locator);
    name.strip_suffix(suffix).unwrap_or(name)
}

/// Whether `s` is a hyphenated UUID (`8-4-4-4-12` hex digits, either case).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A whole-document session's id: the id it names, else its file name
/// without `suffix`; `false` when the document names none (discover warns).
pub fn named_or_file_id(named: Option<&str>, locator: &str, suffix: &str) -> (String, bool) {
    match named.filter(|id| !id.is_empty()) {
        Some(id) => (id.to_string(), true),
        None => (file_stem(locator, suffix).to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_checks() {
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("a/b", "c"), "a/b/c");
        assert!(is_relative_below("a/b.jsonl"));
        for bad in ["", "/a", "a//b", "a/../b", "./a", "a/"] {
            assert!(!is_relative_below(bad), "{bad:?}");
        }
        assert!(plain_name("x.json"));
        for bad in ["", ".", "..", "a/b", "a\\b", "a\0"] {
            assert!(!plain_name(bad), "{bad:?}");
        }
        assert!(is_uuid("01a22aa5-cfcc-7311-a9b5-d6de00c468b2"));
        assert!(is_uuid("01A22AA5-CFCC-7311-A9B5-D6DE00C468B2"));
        assert!(!is_uuid("01a22aa5-cfcc-7311-a9b5-d6de00c468b"));
        assert!(!is_uuid("01a22aa5_cfcc-7311-a9b5-d6de00c468b2"));
        assert!(!is_uuid("compact-codex-001"));
    }
}
