//! `oci://REGISTRY/REPOSITORY[:TAG][@sha256:HEX]`: the registry is always
//! spelled out (no default registry is built in), the repository follows
//! the distribution spec's grammar.

use std::fmt;
use std::str::FromStr;

use crate::OciError;

/// The scheme every reference starts with.
pub const SCHEME: &str = "oci://";

/// A codec artifact (with a tag or a digest) or a repository (neither).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OciReference {
    /// `host[:port]`.
    pub registry: String,
    /// `name/space/repo`.
    pub repository: String,
    /// A tag, if given.
    pub tag: Option<String>,
    /// `sha256:<hex>`, if given (it wins over the tag).
    pub digest: Option<String>,
}

impl OciReference {
    /// Parses `oci://…`.
    pub fn parse(text: &str) -> Result<OciReference, OciError> {
        let bad = |reason: &str| OciError::InvalidReference { reference: text.to_string(), reason: reason.into() };
        let rest = text.strip_prefix(SCHEME).ok_or_else(|| bad("it does not start with oci://"))?;
        let (registry, path) = rest.split_once('/').ok_or_else(|| bad("no repository after the registry"))?;
        if registry.is_empty() || !registry.chars().all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c)) {
            return Err(bad("the registry must be a host name or address, with an optional :port"));
        }
        let (path, digest) = match path.split_once('@') {
            Some((path, digest)) => (path, Some(digest)),
            None => (path, None),
        };
        if let Some(digest) = digest {
            let hex = digest.strip_prefix("sha256:").ok_or_else(|| bad("a digest must be sha256:<64 hex digits>"))?;
            if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)) {
                return Err(bad("a digest must be sha256:<64 lowercase hex digits>"));
            }
        }
        // A tag follows the last ':' after the last '/'.
        let (repository, tag) = match path.rfind(':') {
            Some(i) if !path[i..].contains('/') => (&path[..i], Some(&path[i + 1..])),
            _ => (path, None),
        };
        if !valid_repository(repository) {
            return Err(bad(
                "the repository must be lowercase letters and digits, separated by '/', '.', '_' or '-' (e.g. trajhost/codex)",
            ));
        }
        if let Some(tag) = tag
            && !valid_tag(tag)
        {
            return Err(bad("a tag is at most 128 letters, digits, '_', '.' or '-', not starting with '.' or '-'"));
        }
        Ok(OciReference {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag: tag.map(str::to_string),
            digest: digest.map(str::to_string),
        })
    }

    /// The same repository with `tag` (and no digest).
    pub fn with_tag(&self, tag: &str) -> OciReference {
        OciReference { tag: Some(tag.to_string()), digest: None, ..self.clone() }
    }

    /// The same repository at `digest` (the tag kept for messages).
    pub fn with_digest(&self, digest: &str) -> OciReference {
        OciReference { digest: Some(digest.to_string()), ..self.clone() }
    }

    /// The repository alone: `oci://REGISTRY/REPOSITORY`.
    pub fn repository_reference(&self) -> OciReference {
        OciReference { tag: None, digest: None, ..self.clone() }
    }

    /// A repository below this one: `oci://REGISTRY/REPOSITORY/NAME`.
    pub fn join(&self, name: &str) -> Result<OciReference, OciError> {
        OciReference::parse(&format!("{SCHEME}{}/{}/{name}", self.registry, self.repository))
    }

    /// Whether the registry is on this machine (127.0.0.0/8, `localhost`,
    /// `[::1]`): such a registry is spoken to over plain HTTP, as Docker
    /// does.
    pub fn is_loopback(&self) -> bool {
        let host = match self.registry.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) && !host.ends_with(':') => host,
            _ => self.registry.as_str(),
        };
        host == "localhost" || host == "[::1]" || host.starts_with("127.")
    }

    pub(crate) fn to_client(&self) -> oci_client::Reference {
        match (&self.digest, &self.tag) {
            (Some(digest), _) => {
                oci_client::Reference::with_digest(self.registry.clone(), self.repository.clone(), digest.clone())
            }
            (None, tag) => oci_client::Reference::with_tag(
                self.registry.clone(),
                self.repository.clone(),
                tag.clone().unwrap_or_else(|| "latest".into()),
            ),
        }
    }
}

impl FromStr for OciReference {
    type Err = OciError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OciReference::parse(text)
    }
}

impl fmt::Display for OciReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

fn valid_repository(repository: &str) -> bool {
    !repository.is_empty()
        && repository.len() <= 255
        && repository.split('/').all(|component| {
            let bytes = component.as_bytes();
            !bytes.is_empty()
                && bytes.first().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && bytes.last().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(b))
        })
}

/// A tag as the distribution spec allows it.
pub fn valid_tag(tag: &str) -> bool {
    !tag.is_empty()
        && tag.len() <= 128
        && !tag.starts_with(['.', '-'])
        && tag.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// A codec version as a tag: semver's `+build` is not allowed in tags, so
/// it becomes `_` (as Helm does).
pub fn tag_for_version(version: &str) -> String {
    version.replace('+', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_and_print_back() {
        for text in [
            "oci://127.0.0.1:5000/trajhost/toy:1.0.0",
            "oci://ghcr.io/acme/codecs/acme:2.0.0-rc.1",
            "oci://localhost/x",
            &format!("oci://r.example/a/b@sha256:{}", "a".repeat(64)),
            &format!("oci://r.example:443/a:t@sha256:{}", "0".repeat(64)),
        ] {
            assert_eq!(OciReference::parse(text).unwrap().to_string(), text);
        }
        let r = OciReference::parse("oci://127.0.0.1:5000/trajhost/toy:1.0.0").unwrap();
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str(), r.tag.as_deref()),
            ("127.0.0.1:5000", "trajhost/toy", Some("1.0.0"))
        );
        assert!(r.is_loopback());
        assert!(!OciReference::parse("oci://ghcr.io/a").unwrap().is_loopback());
        assert!(OciReference::parse("oci://[::1]:5000/a").unwrap().is_loopback());
        assert_eq!(
            r.repository_reference().join("other").unwrap().to_string(),
            "oci://127.0.0.1:5000/trajhost/toy/other"
        );
    }

    #[test]
    fn bad_references_say_why() {
        for text in [
            "127.0.0.1:5000/a:1",
            "oci://host",
            "oci://host/Upper:1",
            "oci://host/a:-x",
            "oci://host/a@sha256:abc",
            "oci://host/a@md5:0000",
            "oci://ho st/a",
            "oci://host/a//b",
        ] {
            assert!(matches!(OciReference::parse(text), Err(OciError::InvalidReference { .. })), "{text}");
        }
        assert_eq!(tag_for_version("1.0.0+abc"), "1.0.0_abc");
    }
}
