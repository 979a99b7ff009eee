//! `trajhost plugin new`: a codec crate that builds on its own, wherever it
//! lies, and passes `trajhost plugin test` unchanged. The files are the
//! templates under `templates/`, with the codec's name and the SDK
//! dependency filled in.

use std::path::{Path, PathBuf};

/// Where the new crate gets the SDK from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdkSource {
    /// A checkout's `sdk/codec` directory.
    Path(PathBuf),
    /// A git repository holding the SDK (cargo finds the package by name).
    Git { url: String },
}

impl SdkSource {
    /// The SDK of the checkout this trajhost was built from, if it is still
    /// there.
    pub fn this_checkout() -> Option<SdkSource> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2)?.join("sdk").join("codec");
        let path = std::fs::canonicalize(path).ok()?;
        path.join("Cargo.toml").is_file().then_some(SdkSource::Path(path))
    }

    /// The dependency's value in Cargo.toml.
    fn dependency(&self) -> String {
        match self {
            SdkSource::Path(path) => format!("{{ path = {} }}", toml_string(&path.display().to_string())),
            SdkSource::Git { url } => format!("{{ git = {} }}", toml_string(url)),
        }
    }

    /// The testkit's (the conformance suite's) dependency: beside the SDK
    /// in a checkout (`sdk/testkit`), or in the same git repository.
    fn testkit_dependency(&self) -> String {
        match self {
            SdkSource::Path(path) => {
                let testkit = path.parent().map(|sdk| sdk.join("testkit")).unwrap_or_else(|| PathBuf::from("testkit"));
                format!("{{ path = {} }}", toml_string(&testkit.display().to_string()))
            }
            SdkSource::Git { url } => format!("{{ git = {} }}", toml_string(url)),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            SdkSource::Path(path) => format!("path {}", path.display()),
            SdkSource::Git { url } => format!("git {url}"),
        }
    }
}

fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// Why a scaffold was not written.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    #[error("{name:?} is not a usable codec name: {reason}")]
    InvalidName { name: String, reason: &'static str },
    #[error("{dir} already exists and is not empty; choose another --dir")]
    NotEmpty { dir: PathBuf },
    #[error(
        "no trajhost SDK at {path} (a path dependency needs a directory with the SDK's Cargo.toml); pass --sdk-path DIR or --sdk-git URL"
    )]
    NoSdk { path: PathBuf },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

/// What to create.
#[derive(Debug, Clone)]
pub struct Options {
    /// The harness id, e.g. `acme`; the crate is `acme-codec`.
    pub name: String,
    /// The crate's directory: created, or an empty one.
    pub dir: PathBuf,
    pub sdk: SdkSource,
}

/// What was created.
#[derive(Debug, Clone)]
pub struct Scaffolded {
    pub dir: PathBuf,
    pub crate_name: String,
    /// Paths relative to `dir`.
    pub files: Vec<PathBuf>,
    /// The component `cargo build --target wasm32-wasip2 --release` makes,
    /// relative to the cargo target directory.
    pub wasm: PathBuf,
    /// The fixture home, relative to `dir`.
    pub fixture: PathBuf,
    /// The fixture session's native id.
    pub session_id: &'static str,
}

/// The files of a new crate: (path, template). `{{…}}` placeholders are
/// filled in by [`create`].
const TEMPLATES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("templates/Cargo.toml.tmpl")),
    ("rust-toolchain.toml", include_str!("templates/rust-toolchain.toml")),
    (".cargo/config.toml", include_str!("templates/cargo-config.toml")),
    ("clippy.toml", include_str!("templates/clippy.toml")),
    (".gitignore", include_str!("templates/gitignore")),
    ("README.md", include_str!("templates/README.md.tmpl")),
    ("src/lib.rs", include_str!("templates/lib.rs.tmpl")),
    ("src/write.rs", include_str!("templates/write.rs.tmpl")),
    ("tests/codec.rs", include_str!("templates/codec_test.rs.tmpl")),
    ("tests/conformance.rs", include_str!("templates/conformance.rs.tmpl")),
    ("tests/conformance.json", include_str!("templates/conformance.json.tmpl")),
    ("expect.toml", include_str!("templates/expect.toml")),
    ("fixtures/simple/.{{name}}/sessions/s-0001.jsonl", include_str!("templates/fixture/session.jsonl")),
];

/// Checks `name` can be a harness id and part of a crate name.
pub fn validate_name(name: &str) -> Result<(), ScaffoldError> {
    let invalid = |reason| Err(ScaffoldError::InvalidName { name: name.to_string(), reason });
    if name.is_empty() || name.len() > 48 {
        return invalid("use 1 to 48 characters");
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return invalid("start with a lowercase letter");
    }
    if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
        return invalid("use lowercase letters, digits and `-` only");
    }
    if name.ends_with('-') || name.contains("--") {
        return invalid("no `-` at the end and no `--`");
    }
    Ok(())
}

/// `acme-cli` → `AcmeCli`.
fn type_name(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// Writes a new codec crate into `options.dir`. Refuses a directory that
/// has anything in it; creates every file new, and removes what it created
/// if a later file fails.
pub fn create(options: &Options) -> Result<Scaffolded, ScaffoldError> {
    validate_name(&options.name)?;
    if let SdkSource::Path(path) = &options.sdk
        && !path.join("Cargo.toml").is_file()
    {
        return Err(ScaffoldError::NoSdk { path: path.clone() });
    }
    let dir = &options.dir;
    let io = |path: &Path, e: std::io::Error| ScaffoldError::Io { path: path.to_path_buf(), message: e.to_string() };
    let existed = dir.exists();
    if existed {
        let mut entries = std::fs::read_dir(dir).map_err(|e| io(dir, e))?;
        if entries.next().is_some() {
            return Err(ScaffoldError::NotEmpty { dir: dir.clone() });
        }
    } else {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }

    let crate_name = format!("{}-codec", options.name);
    let crate_ident = crate_name.replace('-', "_");
    let sdk_comment = match &options.sdk {
        SdkSource::Path(_) => {
            "# The trajhost codec SDK, from a local checkout; a git dependency works too:\n# trajhost-codec-sdk = { git = \"https://…/trajhost\" }"
        }
        SdkSource::Git { .. } => {
            "# The trajhost codec SDK, from git; a checkout's sdk/codec works too:\n# trajhost-codec-sdk = { path = \"…/trajhost/sdk/codec\" }"
        }
    };
    let fill = |text: &str| {
        text.replace("{{sdk_comment}}", sdk_comment)
            .replace("{{sdk_dependency}}", &options.sdk.dependency())
            .replace("{{testkit_dependency}}", &options.sdk.testkit_dependency())
            .replace("{{sdk_description}}", &options.sdk.describe())
            .replace("{{crate_ident}}", &crate_ident)
            .replace("{{crate}}", &crate_name)
            .replace("{{type_name}}", &type_name(&options.name))
            .replace("{{name}}", &options.name)
    };

    let mut created: Vec<PathBuf> = Vec::new();
    let result = (|| {
        for (path, template) in TEMPLATES {
            let relative = PathBuf::from(fill(path));
            let target = dir.join(&relative);
            if let Some(parent) = target.parent() {
                for ancestor in
                    parent.ancestors().take_while(|a| *a != dir.as_path()).collect::<Vec<_>>().into_iter().rev()
                {
                    if !ancestor.exists() {
                        std::fs::create_dir(ancestor).map_err(|e| io(ancestor, e))?;
                        created.push(ancestor.to_path_buf());
                    }
                }
            }
            let mut file =
                std::fs::OpenOptions::new().write(true).create_new(true).open(&target).map_err(|e| io(&target, e))?;
            created.push(target.clone());
            std::io::Write::write_all(&mut file, fill(template).as_bytes()).map_err(|e| io(&target, e))?;
        }
        Ok(())
    })();
    if let Err(error) = result {
        // Only what this call created; the directory itself if it made it.
        for path in created.iter().rev() {
            let _ = if path.is_dir() { std::fs::remove_dir(path) } else { std::fs::remove_file(path) };
        }
        if !existed {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(error);
    }
    Ok(Scaffolded {
        dir: dir.clone(),
        files: TEMPLATES.iter().map(|(path, _)| PathBuf::from(fill(path))).collect(),
        wasm: PathBuf::from("wasm32-wasip2/release").join(format!("{crate_ident}.wasm")),
        fixture: PathBuf::from("fixtures/simple"),
        session_id: "s-0001",
        crate_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_harness_crate_and_type_names() {
        assert!(validate_name("acme").is_ok() && validate_name("acme-cli2").is_ok());
        for bad in ["", "Acme", "1acme", "ac_me", "acme-", "a--b", "../x"] {
            assert!(validate_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(type_name("acme-cli"), "AcmeCli");
    }

    #[test]
    fn fills_every_placeholder_and_refuses_a_non_empty_directory() {
        let root = tempfile::tempdir().unwrap();
        let sdk = root.path().join("sdk");
        std::fs::create_dir(&sdk).unwrap();
        std::fs::write(sdk.join("Cargo.toml"), "").unwrap();
        let options =
            Options { name: "acme-cli".into(), dir: root.path().join("acme"), sdk: SdkSource::Path(sdk.clone()) };
        let made = create(&options).unwrap();
        assert_eq!(made.crate_name, "acme-cli-codec");
        for file in &made.files {
            let text = std::fs::read_to_string(made.dir.join(file)).unwrap();
            assert!(!text.contains("{{"), "{} keeps a placeholder", file.display());
        }
        let manifest = std::fs::read_to_string(made.dir.join("Cargo.toml")).unwrap();
        let parsed: toml::Table = toml::from_str(&manifest).unwrap();
        assert_eq!(parsed["dependencies"]["trajhost-codec-sdk"]["path"].as_str(), Some(sdk.to_str().unwrap()));
        assert!(made.dir.join("fixtures/simple/.acme-cli/sessions/s-0001.jsonl").is_file());
        let testkit = sdk.parent().unwrap().join("testkit");
        assert_eq!(
            parsed["dev-dependencies"]["trajhost-codec-testkit"]["path"].as_str(),
            Some(testkit.to_str().unwrap())
        );
        let lib = std::fs::read_to_string(made.dir.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub struct AcmeCli;") && lib.contains("export_codec!(AcmeCli)"));

        let before = std::fs::read_to_string(made.dir.join("src/lib.rs")).unwrap();
        assert!(matches!(create(&options), Err(ScaffoldError::NotEmpty { .. })));
        assert_eq!(std::fs::read_to_string(made.dir.join("src/lib.rs")).unwrap(), before, "nothing is overwritten");
        let missing =
            Options { dir: root.path().join("other"), sdk: SdkSource::Path(root.path().join("nowhere")), ..options };
        assert!(matches!(create(&missing), Err(ScaffoldError::NoSdk { .. })));
        assert!(!root.path().join("other").exists());
    }
}
