//! The CNCF wasm OCI artifact layout, and the manifests trajhost writes and
//! accepts.
//!
//! A codec artifact: manifest `application/vnd.oci.image.manifest.v1+json`,
//! config `application/vnd.wasm.config.v0+json` ([`WasmConfig`]), exactly
//! one layer `application/wasm` (the component), annotations on the
//! manifest. Accepted on pull: the same with the OCI empty config
//! (`application/vnd.oci.empty.v1+json`, as `oras push` writes by default).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{EMPTY_CONFIG_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, WASM_CONFIG_MEDIA_TYPE, WASM_LAYER_MEDIA_TYPE};

/// The config blob of the wasm artifact layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WasmConfig {
    /// RFC 3339.
    pub created: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Always `wasm`.
    pub architecture: String,
    /// `wasip2` for a component.
    pub os: String,
    /// The layers' digests, in order.
    pub layer_digests: Vec<String>,
    /// The component's top-level imports and exports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<ComponentInfo>,
}

/// `component` in [`WasmConfig`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentInfo {
    pub exports: Vec<String>,
    pub imports: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

impl WasmConfig {
    /// The config of `component` (its imports and exports read from its
    /// top-level sections).
    pub fn for_component(component: &[u8], created: &str) -> WasmConfig {
        let (imports, exports) = component_names(component);
        WasmConfig {
            created: created.to_string(),
            author: None,
            architecture: "wasm".into(),
            os: "wasip2".into(),
            layer_digests: vec![crate::sha256_digest(component)],
            component: Some(ComponentInfo { exports, imports, target: None }),
        }
    }
}

/// The names of a component's top-level imports and exports (nested
/// modules and components left out).
pub fn component_names(bytes: &[u8]) -> (Vec<String>, Vec<String>) {
    use wasmparser::{Parser, Payload};
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        let Ok(payload) = payload else { break };
        match payload {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) if depth > 0 => depth -= 1,
            Payload::ComponentImportSection(reader) if depth == 0 => {
                imports.extend(reader.into_iter().flatten().map(|i| i.name.name.to_string()));
            }
            Payload::ComponentExportSection(reader) if depth == 0 => {
                exports.extend(reader.into_iter().flatten().map(|e| e.name.name.to_string()));
            }
            _ => {}
        }
    }
    (imports, exports)
}

/// An OCI content descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
}

impl Descriptor {
    pub fn of(media_type: &str, bytes: &[u8]) -> Descriptor {
        Descriptor {
            media_type: media_type.to_string(),
            digest: crate::sha256_digest(bytes),
            size: bytes.len() as u64,
            artifact_type: None,
            annotations: None,
        }
    }
}

/// An OCI image manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Manifest {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<Descriptor>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Manifest {
    /// The manifest of a codec artifact.
    pub fn codec(config: &[u8], component: &[u8], annotations: BTreeMap<String, String>) -> Manifest {
        Manifest {
            schema_version: 2,
            media_type: Some(MANIFEST_MEDIA_TYPE.into()),
            artifact_type: None,
            config: Descriptor::of(WASM_CONFIG_MEDIA_TYPE, config),
            layers: vec![Descriptor::of(WASM_LAYER_MEDIA_TYPE, component)],
            subject: None,
            annotations,
        }
    }

    /// The component's layer, when this is a wasm component artifact;
    /// else why it is not.
    pub fn component_layer(&self) -> Result<&Descriptor, String> {
        if self.schema_version != 2 {
            return Err(format!("schemaVersion {}, not 2", self.schema_version));
        }
        if let Some(media_type) = &self.media_type
            && media_type != MANIFEST_MEDIA_TYPE
        {
            return Err(format!("a manifest of type {media_type}"));
        }
        let config = self.config.media_type.as_str();
        if config != WASM_CONFIG_MEDIA_TYPE && config != EMPTY_CONFIG_MEDIA_TYPE {
            return Err(format!("config of type {config}, not {WASM_CONFIG_MEDIA_TYPE}"));
        }
        match self.layers.as_slice() {
            [layer] if layer.media_type == WASM_LAYER_MEDIA_TYPE => Ok(layer),
            [layer] => Err(format!("a layer of type {}, not {WASM_LAYER_MEDIA_TYPE}", layer.media_type)),
            layers => Err(format!("{} layers; a component artifact has exactly one", layers.len())),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("manifests serialize")
    }
}

/// The OCI empty config blob, `{}`.
pub(crate) const EMPTY_CONFIG: &[u8] = b"{}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codec_manifest_is_in_the_wasm_layout_and_checks() {
        let component = b"\0asm\x0d\0\x01\0";
        let config = serde_json::to_vec(&WasmConfig::for_component(component, "2026-01-01T00:00:00Z")).unwrap();
        let manifest = Manifest::codec(&config, component, BTreeMap::new());
        let json: serde_json::Value = serde_json::from_slice(&manifest.to_bytes()).unwrap();
        assert_eq!(json["config"]["mediaType"], WASM_CONFIG_MEDIA_TYPE);
        assert_eq!(json["layers"][0]["mediaType"], WASM_LAYER_MEDIA_TYPE);
        assert_eq!(json["mediaType"], MANIFEST_MEDIA_TYPE);
        assert!(json.get("annotations").is_none());
        let config: serde_json::Value = serde_json::from_slice(&config).unwrap();
        assert_eq!(config["architecture"], "wasm");
        assert_eq!(config["os"], "wasip2");
        assert_eq!(config["layerDigests"][0], crate::sha256_digest(component));
        assert!(manifest.component_layer().is_ok());

        let mut two = manifest.clone();
        two.layers.push(two.layers[0].clone());
        assert!(two.component_layer().unwrap_err().contains("2 layers"));
        let mut image = manifest.clone();
        image.config.media_type = "application/vnd.oci.image.config.v1+json".into();
        assert!(image.component_layer().unwrap_err().contains("config of type"));
        let mut tar = manifest;
        tar.layers[0].media_type = "application/vnd.oci.image.layer.v1.tar+gzip".into();
        assert!(tar.component_layer().unwrap_err().contains("layer of type"));
    }
}
