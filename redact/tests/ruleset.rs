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
    // Parsed at load, built on first use: build them all now.
    let unbuilt = r.build_all();
    assert!(unbuilt.is_empty(), "{} rule(s) do not build: {unbuilt:?}", unbuilt.len());
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

fn sha256(data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(data))
}

/// gitleaks' file is kept as released (rules/README.md gives the same digest).
#[test]
fn gitleaks_data_is_the_release() {
    assert_eq!(
        sha256(include_bytes!("../rules/gitleaks.toml")),
        "e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf"
    );
    let readme = include_str!("../rules/README.md");
    assert!(readme.contains("e163e53b9e7e8a8511e77271e2b323ed057759542a6d988258afe3a1fa329caf"));
    assert!(readme.contains(GITLEAKS_VERSION));
}

/// trajhost's data files are versioned: a change to trajhost.toml or allowlist.toml must bump
/// `version` in trajhost.toml (it is part of `ruleset_version`) and update the digest here.
#[test]
fn trajhost_data_is_versioned() {
    let mut both = include_bytes!("../rules/trajhost.toml").to_vec();
    both.extend_from_slice(include_bytes!("../rules/allowlist.toml"));
    let pinned = [("1", "fafe35ef42bf42042b639d0d449773a3acec49482ade69cc93e8bd55bab9e16b")];
    let digest = sha256(&both);
    let version = Redactor::builtin().ruleset_version().rsplit(' ').next().unwrap().to_string();
    assert!(
        pinned.iter().any(|(v, d)| *v == version && *d == digest),
        "rules/trajhost.toml or rules/allowlist.toml changed: bump `version` in trajhost.toml (now {version}) and pin \
         (\"{version}\", \"{digest}\") here"
    );
}
