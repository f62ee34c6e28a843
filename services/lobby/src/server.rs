//! The lobby's HTTP server (issue 34): hyper's HTTP/1.1 connections, under limits `axum::serve`
//! does not offer, optionally over TLS.
//!
//! - **Header-read timeout** ([`HttpSettings::header_read_timeout`], 10 s): a client that does
//!   not finish a request's head in that time is disconnected (hyper's `header_read_timeout`,
//!   on tokio's timer), a kept-alive connection waiting for its next request included; a TLS
//!   handshake gets the same time.
//! - **Connections** ([`HttpSettings::max_connections`], 10,000): a connection is accepted only
//!   with a free slot; beyond it new connections *wait* in the kernel's accept queue (not
//!   refused: a burst is served as slots free up, and a full queue makes the kernel refuse).
//! - **Sizes**: a request body at most [`HttpSettings::body_limit`] (64 KiB: the console's forms
//!   are small; the lobby reads no other body), a URI at most [`LONGEST_URI`] and a head at most
//!   [`LARGEST_HEAD`], answered 413, 414 and 431 in JSON by [`crate::layers`]. hyper answers
//!   itself, with an empty body, only a head beyond [`HYPER_HEAD_LIMIT`] or with more than
//!   [`HYPER_MOST_HEADERS`] fields (431), and what does not parse as HTTP (400).
//! - **TLS** ([`HttpSettings::tls`]): rustls with a certificate chain and key from PEM files;
//!   the console's cookie is then `Secure`.
//!
//! Each request carries its peer address ([`axum::extract::ConnectInfo`]), which the console's
//! sign-in guard keys on. On shutdown the server stops accepting, every connection finishes its
//! request in flight (the live feeds end on the same signal), and idle ones are closed.

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The longest URI (path and query) the lobby reads; longer is 414 in JSON.
pub const LONGEST_URI: usize = 16 * 1024;

/// The largest request head (request line and header fields) the lobby reads; larger is 431 in
/// JSON.
pub const LARGEST_HEAD: usize = 32 * 1024;

/// Beyond this head size hyper stops reading and answers 431 itself (an empty body): what a
/// connection may make the server buffer.
pub const HYPER_HEAD_LIMIT: usize = 64 * 1024;

/// Beyond this many header fields hyper answers 431 itself; up to it the lobby's own limit
/// ([`MOST_HEADERS`]) answers in JSON.
pub const HYPER_MOST_HEADERS: usize = 200;

/// The most header fields the lobby reads; more is 431 in JSON.
pub const MOST_HEADERS: usize = 100;

/// Certificate chain and private key, PEM files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// How the lobby serves HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    /// A client must send a request's whole head (and finish a TLS handshake) within this.
    pub header_read_timeout: Duration,
    /// Connections served at once; more wait to be accepted.
    pub max_connections: usize,
    /// The largest request body read.
    pub body_limit: usize,
    /// Reverse proxies whose `X-Forwarded-For` names the client (the console's sign-in guard
    /// keys on its last address); empty: the peer is the client.
    pub trusted_proxies: Vec<IpAddr>,
    /// Serve HTTPS with these; `None`: plain HTTP.
    pub tls: Option<TlsFiles>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 10_000,
            body_limit: 64 * 1024,
            trusted_proxies: Vec::new(),
            tls: None,
        }
    }
}

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("{0}: {1}")]
    Read(PathBuf, std::io::Error),
    /// A file holds no certificate or no key in PEM.
    #[error("{0}: {1}")]
    Pem(PathBuf, String),
    /// rustls refused the pair.
    #[error("the certificate and key do not make a TLS configuration: {0}")]
    Config(#[from] tokio_rustls::rustls::Error),
}

/// The TLS acceptor for `files`: TLS 1.2 and 1.3, HTTP/1.1 by ALPN.
///
/// # Errors
/// See [`TlsError`].
pub fn tls_acceptor(files: &TlsFiles) -> Result<tokio_rustls::TlsAcceptor, TlsError> {
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let read = |path: &PathBuf| std::fs::read(path).map_err(|e| TlsError::Read(path.clone(), e));
    let pem = read(&files.cert)?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Pem(files.cert.clone(), e.to_string()))?;
    if chain.is_empty() {
        return Err(TlsError::Pem(files.cert.clone(), "no certificate".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(&read(&files.key)?).map_err(|e| TlsError::Pem(files.key.clone(), e.to_string()))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Serves `app` on `listener` under `settings`' limits (TLS with `tls`) until `shutdown`, then
/// waits for the connections to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    settings: &HttpSettings,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shutdown: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(settings.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout)
        .max_header_size(HYPER_HEAD_LIMIT)
        .max_headers(HYPER_MOST_HEADERS);
    let handshake = settings.header_read_timeout;
    loop {
        // The slot first: with none free, the next connection stays in the accept queue.
        let slot = tokio::select! {
            _ = shutdown.cancelled() => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, say: back off a moment instead of spinning.
                    tracing::warn!(error = %e, "lobby: a connection could not be accepted");
                    tokio::select! {
                        _ = shutdown.cancelled() => break,
                        _ = tokio::time::sleep(Duration::from_millis(50)) => continue,
                    }
                }
            },
        };
        // A live feed writes one small event at a time: without TCP_NODELAY, Nagle's algorithm
        // holds an event until the client acknowledges the one before.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "lobby: TCP_NODELAY not set on a connection");
        }
        let (app, http, watcher, tls, shutdown) = (app.clone(), http.clone(), graceful.watcher(), tls.clone(), shutdown.clone());
        tokio::spawn(async move {
            let _slot = slot;
            match tls {
                None => connection(stream, peer, app, &http, watcher).await,
                Some(tls) => {
                    let accepted = tokio::select! {
                        _ = shutdown.cancelled() => return,
                        accepted = tokio::time::timeout(handshake, tls.accept(stream)) => accepted,
                    };
                    match accepted {
                        Ok(Ok(stream)) => connection(stream, peer, app, &http, watcher).await,
                        Ok(Err(e)) => tracing::debug!(error = %e, %peer, "lobby: a TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "lobby: a TLS handshake timed out"),
                    }
                }
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Serves one connection: each request gets the peer's address, then goes to `app`.
async fn connection<I>(
    io: I,
    peer: SocketAddr,
    app: Router,
    http: &hyper::server::conn::http1::Builder,
    watcher: hyper_util::server::graceful::Watcher,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        // A router is always ready: no poll_ready needed.
        tower_service::Service::call(&mut app.clone(), request)
    });
    if let Err(e) = watcher.watch(http.serve_connection(TokioIo::new(io), service)).await {
        // A client that went away or timed out reading its head: nothing to tell anyone.
        tracing::debug!(error = %e, %peer, "lobby: a connection ended with an error");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

    /// A self-signed certificate for `localhost` and 127.0.0.1 (P-256, valid until 2126) and
    /// its key, made with `openssl req -x509` for these tests.
    fn fixtures() -> TlsFiles {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        TlsFiles { cert: dir.join("localhost.crt"), key: dir.join("localhost.key") }
    }

    /// A TLS client that trusts only the fixture's certificate.
    fn connector() -> tokio_rustls::TlsConnector {
        let mut roots = tokio_rustls::rustls::RootCertStore::empty();
        let pem = std::fs::read(fixtures().cert).unwrap();
        roots.add(CertificateDer::from_pem_slice(&pem).unwrap()).unwrap();
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        tokio_rustls::TlsConnector::from(Arc::new(config))
    }

    #[tokio::test]
    async fn over_tls_a_request_is_served_with_its_peer_and_plain_http_is_not() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().route("/", get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move { format!("peer {}", peer.ip()) }));
        let (shutdown, acceptor) = (CancellationToken::new(), tls_acceptor(&fixtures()).expect("the fixture loads"));
        let server = tokio::spawn({
            let shutdown = shutdown.clone();
            async move { serve(listener, app, &HttpSettings::default(), Some(acceptor), shutdown).await }
        });

        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut tls = connector().connect(ServerName::try_from("localhost").unwrap(), tcp).await.expect("a TLS handshake");
        tls.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.unwrap();
        let mut answer = Vec::new();
        let _ = tls.read_to_end(&mut answer).await;
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 200") && answer.ends_with("peer 127.0.0.1"), "{answer}");

        let mut plain = tokio::net::TcpStream::connect(addr).await.unwrap();
        plain.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.unwrap();
        let mut refused = Vec::new();
        let _ = plain.read_to_end(&mut refused).await;
        assert!(!refused.starts_with(b"HTTP/"), "plain HTTP is not served on the TLS port: {:?}", String::from_utf8_lossy(&refused));

        shutdown.cancel();
        server.await.expect("the server stops");
    }

    #[test]
    fn a_missing_file_or_one_without_pem_is_an_error_naming_it() {
        let files = fixtures();
        let missing = TlsFiles { cert: files.cert.with_extension("nope"), ..files.clone() };
        assert!(matches!(tls_acceptor(&missing), Err(TlsError::Read(path, _)) if path == missing.cert));
        let swapped = TlsFiles { cert: files.key.clone(), key: files.cert.clone() };
        assert!(matches!(tls_acceptor(&swapped), Err(TlsError::Pem(..))), "a key is no certificate");
    }
}
