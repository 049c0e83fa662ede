//! Test servers on 127.0.0.1 only: plain HTTP (a server on the PC) and
//! HTTPS with a certificate for the fake names, issued by a CA made at test
//! time. Tiny hand-written HTTP/1.1 so tests see the exact bytes sent and
//! can stall, trickle or send without end (bounded).

#![allow(dead_code, missing_docs, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use dcp_net::{Client, Method, Outgoing, Policy, TestOverrides};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Names the test certificate covers.
pub const CERT_NAMES: &[&str] = &[
    "api.example.com",
    "cdn.example.com",
    "other.example.com",
    "v6.example.com",
    "nat64.example.com",
    "private.example.com",
    "multi.example.com",
];

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub target: String,
    /// Header lines, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
    pub fn count(&self, name: &str) -> usize {
        self.headers.iter().filter(|(n, _)| n == name).count()
    }
}

/// What the server does with a request.
pub enum Reply {
    /// A full answer with Content-Length.
    Full { status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
    /// Headers, then no body and no end for this long.
    Stall(Duration),
    /// 200 without Content-Length, then bytes until the client goes away
    /// (at most `cap`), delimited by closing the connection.
    Endless { cap: usize },
}

impl Reply {
    pub fn json(body: &str) -> Reply {
        Reply::Full {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
        }
    }
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Full { status, headers: vec![("Location".into(), location.into())], body: Vec::new() }
    }
}

pub type Handler = Arc<dyn Fn(&Seen) -> Reply + Send + Sync>;

pub struct Server {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    /// Body bytes written by `Reply::Endless`.
    pub sent: Arc<AtomicUsize>,
    /// Connections served to their end: the reply written out, or cut off
    /// by the client.
    ended: watch::Receiver<usize>,
}

impl Server {
    pub fn port(&self) -> u16 {
        self.addr.port()
    }
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    pub fn hits(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
    /// Returns once `n` connections were served to their end (within 10 s).
    pub async fn ended(&self, n: usize) {
        let mut ended = self.ended.clone();
        let done = ended.wait_for(|e| *e >= n);
        tokio::time::timeout(Duration::from_secs(10), done).await.expect("the server still writes").unwrap();
    }
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A port of 127.0.0.1 that is free and not reserved by §15.
pub async fn bind_unreserved() -> TcpListener {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        if dcp_format::hosts::reserved_port(port).is_none() {
            return listener;
        }
    }
}

pub async fn http_server(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
    start(None, Arc::new(handler)).await
}

pub async fn https_server(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
    start(Some(pki().acceptor.clone()), Arc::new(handler)).await
}

async fn start(tls: Option<tokio_rustls::TlsAcceptor>, handler: Handler) -> Server {
    let listener = bind_unreserved().await;
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sent = Arc::new(AtomicUsize::new(0));
    let (seen2, sent2) = (seen.clone(), sent.clone());
    let (ends, ended) = watch::channel(0);
    let ends = Arc::new(ends);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { return };
            let (tls, handler, seen, sent) = (tls.clone(), handler.clone(), seen2.clone(), sent2.clone());
            let ends = ends.clone();
            tokio::spawn(async move {
                let io: Box<dyn Io> = match tls {
                    Some(acceptor) => match acceptor.accept(tcp).await {
                        Ok(stream) => Box::new(stream),
                        Err(_) => return,
                    },
                    None => Box::new(tcp),
                };
                let _ = serve(io, handler, seen, sent).await;
                ends.send_modify(|n| *n += 1);
            });
        }
    });
    Server { addr, seen, sent, ended }
}

async fn serve(
    mut io: Box<dyn Io>,
    handler: Handler,
    seen: Arc<Mutex<Vec<Seen>>>,
    sent: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = io.read(&mut chunk).await?;
        if n == 0 || buf.len() > 64 * 1024 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_owned();
    let target = first.next().unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = io.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let request = Seen { method, target, headers, body };
    seen.lock().unwrap().push(request.clone());
    match handler(&request) {
        Reply::Full { status, headers, body } => {
            let mut out = format!("HTTP/1.1 {status} Test\r\n");
            for (n, v) in headers {
                out.push_str(&format!("{n}: {v}\r\n"));
            }
            out.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
            io.write_all(out.as_bytes()).await?;
            io.write_all(&body).await?;
            io.flush().await?;
            let _ = io.shutdown().await;
        }
        Reply::Stall(time) => {
            io.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\n",
            )
            .await?;
            io.flush().await?;
            tokio::time::sleep(time).await;
        }
        Reply::Endless { cap } => {
            io.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n").await?;
            let block = vec![b'x'; 16 * 1024];
            while sent.load(Ordering::SeqCst) < cap {
                io.write_all(&block).await?;
                sent.fetch_add(block.len(), Ordering::SeqCst);
            }
            let _ = io.shutdown().await;
        }
    }
    Ok(())
}

pub struct Pki {
    pub ca_pem: String,
    pub acceptor: tokio_rustls::TlsAcceptor,
}

/// One test CA and one server certificate for [`CERT_NAMES`], per test binary.
pub fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(DnType::CommonName, "dcp-net test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let names: Vec<String> = CERT_NAMES.iter().map(|s| s.to_string()).collect();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(names).unwrap().signed_by(&leaf_key, &ca).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![leaf.der().clone(), ca.der().clone()], key)
            .unwrap();
        Pki { ca_pem: ca.pem(), acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)) }
    })
}

/// Fake public answers → `server`. `dns` is `name=ip|ip,…` as in
/// `DCPLUGIN_TEST_DNS`; every public-looking address in it is rewritten to
/// the server.
pub fn client_for(server: &Server, dns: &str) -> Client {
    let dns = TestOverrides::parse_dns(dns).unwrap();
    let mut connect = std::collections::HashMap::new();
    for (_, ips) in &dns {
        for ip in ips {
            connect.insert(SocketAddr::new(*ip, 443), server.addr);
        }
    }
    Client::with_test_overrides(TestOverrides { dns, connect, ca_pem: Some(pki().ca_pem.clone().into_bytes()) })
}

/// The usual fake zone: each test name has a public-looking answer.
pub const ZONE: &str = "api.example.com=93.184.216.34,cdn.example.com=93.184.216.35,other.example.com=93.184.216.36,v6.example.com=[2606:2800:220:1::1]";

pub fn web_policy() -> Policy {
    Policy {
        hosts: vec!["api.example.com".into(), "cdn.example.com".into(), "v6.example.com".into()],
        local_ports: Vec::new(),
        dev_mode: false,
        confirmed: false,
    }
}

pub fn get(url: &str) -> Outgoing {
    Outgoing { method: Method::Get, url: url.into(), headers: Vec::new(), body: None }
}

pub fn with(method: Method, url: &str, headers: &[(&str, &str)], body: Option<&str>) -> Outgoing {
    Outgoing {
        method,
        url: url.into(),
        headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        body: body.map(|b| b.as_bytes().to_vec()),
    }
}
