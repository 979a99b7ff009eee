//! Deterministic trace and span ids: re-exporting a session gives the same ids.

use sha2::{Digest, Sha256};

/// The trace of one session: sha256 of its harness and native id, first 16 bytes.
pub fn trace_id(harness: &str, native_id: &str) -> [u8; 16] {
    let digest = Sha256::new()
        .chain_update(b"trajhost/trace\0")
        .chain_update(harness)
        .chain_update(b"\0")
        .chain_update(native_id)
        .finalize();
    let mut id = [0; 16];
    id.copy_from_slice(&digest[..16]);
    nonzero(&mut id);
    id
}

/// A span of that trace: sha256 of the trace id, the span's role and its key (a record id), first 8 bytes.
pub fn span_id(trace: &[u8; 16], role: &str, key: &str) -> [u8; 8] {
    let digest = Sha256::new().chain_update(trace).chain_update(role).chain_update(b"\0").chain_update(key).finalize();
    let mut id = [0; 8];
    id.copy_from_slice(&digest[..8]);
    nonzero(&mut id);
    id
}

/// An all-zero id is invalid in OTLP.
fn nonzero(id: &mut [u8]) {
    if id.iter().all(|b| *b == 0) {
        id[id.len() - 1] = 1;
    }
}
