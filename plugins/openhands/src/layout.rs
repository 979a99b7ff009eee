//! Where the OpenHands CLI (software-agent-sdk "V1" conversations) keeps
//! conversations under a home directory.
//!
//! ```text
//! ~/.openhands/conversations/<uuid hex>/base_state.json        agent/LLM config, workspace, stats (main file)
//! ~/.openhands/conversations/<uuid hex>/events/event-<index>-<event id>.json   one event per file
//! ~/.openhands/conversations/<uuid hex>/events/.eventlog.lock, .eventlog-count-<n>.marker
//! ```
//! `<index>` is zero-padded to at least five digits. The legacy V0 server
//! layout (`~/.openhands/sessions/<sid>/events/<n>.json`) is not read.

use trajhost_codec_sdk::CodecError;

use trajhost_codec_sdk::paths::folder_of;
pub use trajhost_codec_sdk::paths::{join, plain_name};

pub const CONVERSATIONS: &str = ".openhands/conversations";
pub const BASE_STATE: &str = "base_state.json";
pub const EVENTS: &str = "events";

#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub locator: String,
    /// `.openhands/conversations/<hex>`.
    pub dir: String,
    /// The folder name (what `openhands --resume` takes).
    pub native_id: String,
}

impl SessionPaths {
    pub fn from_locator(locator: &str) -> Result<SessionPaths, CodecError> {
        let dir = folder_of(locator, BASE_STATE, "an OpenHands base_state.json")?;
        let native_id = dir.rsplit_once('/').map_or(dir, |(_, f)| f);
        Ok(SessionPaths { locator: locator.to_string(), dir: dir.to_string(), native_id: native_id.to_string() })
    }

    /// Settles the conversation id with `base_state.json`'s `id`: a folder
    /// named by 32 hex digits (as OpenHands names them) wins; any other
    /// name (a renamed copy) gives way to the id, hyphens dropped as in
    /// OpenHands' own folder names.
    pub fn identify(&mut self, state_id: Option<&str>) {
        let named = self.native_id.len() == 32 && self.native_id.bytes().all(|b| b.is_ascii_hexdigit());
        if let Some(id) = state_id.filter(|_| !named) {
            self.native_id = id.replace('-', "");
        }
    }

    pub fn events_dir(&self) -> String {
        join(&self.dir, EVENTS)
    }
}

/// `(index, event id)` of an event file `event-<index>-<id>.json`.
pub fn event_file(name: &str) -> Option<(u64, &str)> {
    let rest = name.strip_prefix("event-")?.strip_suffix(".json")?;
    let (index, id) = rest.split_once('-')?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) || id.is_empty() {
        return None;
    }
    Some((index.parse().ok()?, id))
}

#[cfg(test)]
mod tests {
    #[test]
    fn event_file_names() {
        assert_eq!(super::event_file("event-00002-8a56.json"), Some((2, "8a56")));
        assert_eq!(super::event_file("event-123456-ab-cd.json"), Some((123_456, "ab-cd")));
        assert_eq!(super::event_file(".eventlog.lock"), None);
        assert_eq!(super::event_file("event-x-1.json"), None);
    }
}
