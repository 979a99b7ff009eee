//! `sniff`: a loose `CURRENT` file of a Vibe session folder: a JSON object
//! naming the store format `mistral.vibe.unified-session-store/v1`, its
//! `session_id` and `generation`.

use trajhost_codec_sdk::Sniffed;

use crate::store;

pub fn sniff(_path: &str, head: &[u8]) -> Option<Sniffed> {
    let current = store::parse_current(head).ok()?;
    current.store_format.as_ref()?;
    Some(Sniffed { native_version: None, native_id: Some(current.session_id) })
}
