//! Where a codec's stdout and stderr go: a bounded in-memory buffer that
//! keeps the first bytes and silently counts the rest, so a chatty codec
//! neither fills memory nor fails (Rust's `println!` panics on a closed
//! stream).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

#[derive(Default)]
struct Buffer {
    kept: Vec<u8>,
    dropped: u64,
}

/// A bounded capture of one output stream.
#[derive(Clone)]
pub struct CapturedOutput {
    cap: usize,
    buffer: Arc<Mutex<Buffer>>,
}

impl CapturedOutput {
    pub fn new(cap: usize) -> CapturedOutput {
        CapturedOutput { cap, buffer: Arc::default() }
    }

    fn append(&self, bytes: &[u8]) {
        let mut buffer = self.buffer.lock().expect("output buffer lock");
        let room = self.cap.saturating_sub(buffer.kept.len());
        let keep = room.min(bytes.len());
        buffer.kept.extend_from_slice(&bytes[..keep]);
        buffer.dropped += (bytes.len() - keep) as u64;
    }

    /// What was kept, and how many bytes were not.
    pub fn contents(&self) -> (Vec<u8>, u64) {
        let buffer = self.buffer.lock().expect("output buffer lock");
        (buffer.kept.clone(), buffer.dropped)
    }
}

impl IsTerminal for CapturedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[async_trait::async_trait]
impl Pollable for CapturedOutput {
    async fn ready(&mut self) {}
}

impl OutputStream for CapturedOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.append(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(64 << 10)
    }
}

impl tokio::io::AsyncWrite for CapturedOutput {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.append(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
