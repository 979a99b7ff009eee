//! The tables of native types a codec knows. Every native record type is
//! mapped to canonical records or reported in an `unmapped-record-type`
//! diagnostic; a type that is in no table is `unknown-record-type`. The
//! tables are public so tests can check fixtures against them: a harness
//! release that writes a new type fails a test first.

/// What a codec does with one native type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Mapped to canonical records (or fields of them), as described.
    Mapped(&'static str),
    /// Known, carries nothing a canonical record holds (or only a copy of
    /// what another record carries); counted in `unmapped-record-type`.
    Reported,
}

/// The code of the info diagnostic that counts a [`Handling::Reported`] type.
pub const UNMAPPED_RECORD_TYPE: &str = "unmapped-record-type";
/// The code of the warning for a type in no table.
pub const UNKNOWN_RECORD_TYPE: &str = "unknown-record-type";

/// How `kind` is handled in `table`; `None` for a type never seen.
pub fn lookup(table: &[(&str, Handling)], kind: &str) -> Option<Handling> {
    table.iter().find(|(k, _)| *k == kind).map(|(_, h)| *h)
}

/// Reports a native type left out: [`UNMAPPED_RECORD_TYPE`] (info) when the
/// codec knows it (`handling` is `Some`), else [`UNKNOWN_RECORD_TYPE`] (a
/// warning); `detail` names the type.
pub fn report_unmapped(
    diags: &mut crate::diag::Diagnostics,
    handling: Option<Handling>,
    detail: &str,
    file: &str,
    offset: u64,
) {
    match handling {
        Some(_) => diags.add(UNMAPPED_RECORD_TYPE, crate::Severity::Info, detail, Some(file), Some(offset)),
        None => diags.add(UNKNOWN_RECORD_TYPE, crate::Severity::Warning, detail, Some(file), Some(offset)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_by_native_spelling() {
        const TABLE: &[(&str, Handling)] = &[("user", Handling::Mapped("user")), ("progress", Handling::Reported)];
        assert_eq!(lookup(TABLE, "user"), Some(Handling::Mapped("user")));
        assert_eq!(lookup(TABLE, "progress"), Some(Handling::Reported));
        assert_eq!(lookup(TABLE, "User"), None);
    }
}
