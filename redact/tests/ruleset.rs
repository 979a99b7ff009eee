//! The rule data: every built-in pattern compiles, the data files are the ones documented.

use trajhost_redact::{Counts, GITLEAKS_VERSION, Redactor};

/// Lists every built-in rule or allowlist pattern that `regex` cannot compile (they are skipped
/// at run time with a warning). The list is expected to be empty; a new gitleaks release whose
/// syntax we do not translate shows up here by name.
#[test]
fn every_builtin_pattern_compiles() {
    let r = Redactor::builtin();
    let issues: Vec<String> =
        r.compile_issues().iter().map(|i| format!("{:?} {}: {} ({})", i.origin, i.rule, i.pattern, i.error)).collect();
    assert!(issues.is_empty(), "{} pattern(s) do not compile:\n{}", issues.len(), issues.join("\n"));
}

#[test]
fn rules_that_need_a_file_path_are_reported_not_run() {
    let r = Redactor::builtin();
    let mut scoped = r.path_scoped_rules();
    scoped.sort();
    assert_eq!(
        scoped,
        [
            "freemius-secret-key",
            "hashicorp-tf-password",
            "kubernetes-secret-yaml",
            "nuget-config-password",
            "pkcs12-file"
        ]
    );
    assert_eq!(r.rule_ids().len(), 222 - 5 + 6, "gitleaks' 222 rules less 5 path-scoped, plus trajhost's 6");
}

#[test]
fn version_names_gitleaks_release() {
    assert_eq!(GITLEAKS_VERSION, "8.30.1");
    assert_eq!(Redactor::builtin().ruleset_version(), "gitleaks 8.30.1 + trajhost 1");
    let _ = Counts::default();
}
