//! POSTing an export to an OTLP/HTTP collector (`URL/v1/traces`), with
//! retries as the OTLP specification asks: on 429, 502, 503 and 504 and on
//! connection errors, with exponential backoff, honoring `Retry-After`.

use std::time::Duration;

use prost::Message;

use crate::otlp::Format;

#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("{url}: not an http:// URL (OTLP/HTTP without TLS; put a collector or sidecar on loopback)")]
    BadUrl { url: String },
    #[error("{url} answered {status}{}: {body}", if *.attempts > 1 { format!(" after {} attempts", .attempts) } else { String::new() })]
    Status { url: String, status: u16, attempts: u32, body: String },
    #[error("{url}: {error} (after {attempts} attempts)")]
    Transport { url: String, attempts: u32, error: String },
}

/// The collector answered 2xx; `rejected_spans` from its partial success.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub attempts: u32,
    pub status: u16,
    pub rejected_spans: i64,
    pub error_message: String,
}

/// `http://host:4318` → `http://host:4318/v1/traces`; a URL with a path is kept as given.
pub fn traces_url(endpoint: &str) -> Result<String, SendError> {
    let Some(rest) = endpoint.strip_prefix("http://") else { return Err(SendError::BadUrl { url: endpoint.into() }) };
    if rest.is_empty() || rest.starts_with('/') {
        return Err(SendError::BadUrl { url: endpoint.into() });
    }
    Ok(match rest.find('/') {
        None => format!("{endpoint}/v1/traces"),
        Some(i) if rest[i..] == *"/" => format!("{}v1/traces", endpoint),
        Some(_) => endpoint.to_string(),
    })
}

pub struct Sender {
    agent: ureq::Agent,
    url: String,
    format: Format,
    /// Attempts in all (first try included).
    pub max_attempts: u32,
    /// The first backoff; doubled per retry, capped by `max_delay`.
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Sender {
    pub fn new(endpoint: &str, format: Format) -> Result<Sender, SendError> {
        let url = traces_url(endpoint)?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .new_agent();
        Ok(Sender {
            agent,
            url,
            format,
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// POSTs one request body, retrying what may pass later.
    pub fn send(&self, body: &[u8]) -> Result<Sent, SendError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = self.agent.post(&self.url).header("Content-Type", self.format.content_type()).send(body);
            let wait = match result {
                Ok(mut response) => {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    let bytes = response.body_mut().with_config().limit(1 << 20).read_to_vec().unwrap_or_default();
                    if (200..300).contains(&status) {
                        let (rejected_spans, error_message) = self.partial_success(&bytes);
                        if rejected_spans > 0 || !error_message.is_empty() {
                            tracing::warn!(url = %self.url, rejected_spans, %error_message, "collector rejected part of the export");
                        }
                        return Ok(Sent { attempts: attempt, status, rejected_spans, error_message });
                    }
                    let retryable = matches!(status, 429 | 502 | 503 | 504);
                    if !retryable || attempt >= self.max_attempts {
                        let body = String::from_utf8_lossy(&bytes[..bytes.len().min(500)]).into_owned();
                        return Err(SendError::Status { url: self.url.clone(), status, attempts: attempt, body });
                    }
                    tracing::info!(url = %self.url, status, attempt, "collector asks to retry");
                    retry_after.map(|d| d.min(self.max_delay))
                }
                Err(error) => {
                    let transient = matches!(
                        error,
                        ureq::Error::Io(_)
                            | ureq::Error::ConnectionFailed
                            | ureq::Error::Timeout(_)
                            | ureq::Error::HostNotFound
                    );
                    if !transient || attempt >= self.max_attempts {
                        return Err(SendError::Transport {
                            url: self.url.clone(),
                            attempts: attempt,
                            error: error.to_string(),
                        });
                    }
                    tracing::info!(url = %self.url, %error, attempt, "sending failed; retrying");
                    None
                }
            };
            let backoff = self.base_delay.saturating_mul(1 << (attempt - 1).min(16)).min(self.max_delay);
            std::thread::sleep(wait.unwrap_or(backoff));
        }
    }

    fn partial_success(&self, bytes: &[u8]) -> (i64, String) {
        match self.format {
            Format::Proto => crate::proto::ExportTraceServiceResponse::decode(bytes)
                .ok()
                .and_then(|r| r.partial_success)
                .map_or((0, String::new()), |p| (p.rejected_spans, p.error_message)),
            Format::Json => {
                let value: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
                let p = &value["partialSuccess"];
                let rejected = match &p["rejectedSpans"] {
                    serde_json::Value::String(s) => s.parse().unwrap_or(0),
                    other => other.as_i64().unwrap_or(0),
                };
                (rejected, p["errorMessage"].as_str().unwrap_or_default().to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};

    #[test]
    fn the_traces_path_is_appended_only_when_missing() {
        assert_eq!(traces_url("http://127.0.0.1:4318").unwrap(), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(traces_url("http://127.0.0.1:4318/").unwrap(), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(traces_url("http://c:4318/otlp/v1/traces").unwrap(), "http://c:4318/otlp/v1/traces");
        assert!(traces_url("https://c:4318").is_err());
        assert!(traces_url("c:4318").is_err());
    }

    /// A real HTTP server on loopback: 503 with Retry-After first, then 200.
    fn serve(answers: Vec<&'static str>) -> (String, std::thread::JoinHandle<Vec<Vec<u8>>>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let mut bodies = Vec::new();
            for answer in answers {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if line == "\r\n" || line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                bodies.push(body);
                let mut stream = stream;
                stream.write_all(answer.as_bytes()).unwrap();
            }
            bodies
        });
        (url, handle)
    }

    #[test]
    fn a_503_is_retried_after_its_retry_after_and_a_400_is_not() {
        let (url, server) = serve(vec![
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\nContent-Length: 7\r\nConnection: close\r\n\r\nbad otl",
        ]);
        let sender = Sender::new(&url, Format::Proto).unwrap();
        let started = std::time::Instant::now();
        let sent = sender.send(b"abc").unwrap();
        assert_eq!((sent.attempts, sent.status), (2, 200));
        assert!(started.elapsed() >= Duration::from_millis(900), "Retry-After honored");
        let error = sender.send(b"def").unwrap_err().to_string();
        assert!(error.contains("/v1/traces answered 400") && error.contains("bad otl"), "{error}");
        assert_eq!(server.join().unwrap(), [b"abc".to_vec(), b"abc".to_vec(), b"def".to_vec()]);
    }

    #[test]
    fn a_refused_connection_names_the_endpoint_after_the_retries() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut sender = Sender::new(&format!("http://127.0.0.1:{port}"), Format::Json).unwrap();
        sender.base_delay = Duration::from_millis(10);
        sender.max_attempts = 3;
        let error = sender.send(b"{}").unwrap_err().to_string();
        assert!(
            error.contains(&format!("http://127.0.0.1:{port}/v1/traces")) && error.contains("after 3 attempts"),
            "{error}"
        );
    }
}
