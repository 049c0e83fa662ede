//! The client: resolution, pinning, sending, redirects, the size limit and
//! the deadline of §14.
//!
//! One [`reqwest::Client`] is built per hop, because each hop is pinned to
//! the addresses checked for it (`resolve_to_addrs`) and reqwest fixes its
//! overrides at build time. The expensive part, the rustls configuration
//! (root store, crypto provider), is built once per [`Client`] and shared by
//! every hop. Connections are never pooled across hops or calls.
//!
//! [`Client::connect_tls`] opens the one long-lived connection of the app,
//! the Twitch chat's (issue 36): the same resolution, judging, test hooks
//! and roots, a TLS stream instead of HTTP.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use dcp_format::limits::{CALL_SECONDS, REDIRECTS, RESPONSE_BYTES};
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};
use rustls::{ClientConfig, RootCertStore};

use crate::address::is_public;
use crate::judge::{judge_redirect, judge_url, Target};
use crate::{Incoming, Method, NetError, Outgoing, Policy, DEFAULT_ACCEPT, USER_AGENT};

/// Sends plugin requests under a [`Policy`]. Cheap to share (`&self`);
/// holds no connection between calls.
#[derive(Clone)]
pub struct Client {
    tls: Arc<ClientConfig>,
    deadline: Duration,
    #[cfg(feature = "test-net")]
    test: TestOverrides,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("deadline", &self.deadline).finish_non_exhaustive()
    }
}

impl Default for Client {
    fn default() -> Self {
        Self::new()
    }
}

impl Client {
    /// A client trusting the bundled Mozilla roots (webpki-roots), with
    /// the 20 s deadline of §14. With the `test-net` feature, the
    /// `DCPLUGIN_TEST_*` variables are read here (see [`TestOverrides`]).
    pub fn new() -> Self {
        #[cfg(feature = "test-net")]
        {
            Self::with_test_overrides(TestOverrides::from_env())
        }
        #[cfg(not(feature = "test-net"))]
        {
            Client { tls: tls_config(&[]), deadline: Duration::from_secs(CALL_SECONDS) }
        }
    }

    /// Sends `req` under `policy`: checks the URL, resolves and judges the
    /// addresses, pins the connection, follows up to 3 redirects (each
    /// checked like the first), and reads at most 2 MB, all within one
    /// deadline. Any HTTP status is an [`Incoming`]; judging it is §9's job.
    pub async fn send(&self, req: Outgoing, policy: &Policy) -> Result<Incoming, NetError> {
        match tokio::time::timeout(self.deadline, self.follow(req, policy)).await {
            Ok(result) => result,
            Err(_) => Err(NetError::Timeout),
        }
    }

    /// TLS to `host:port` on the web: the name resolved and judged public
    /// ([`Client::resolve_public`], so the test-net hooks apply), the
    /// client's roots (+ the test CA under test-net), the connection and
    /// the handshake within the client's deadline. `host` must be a domain
    /// name (BAD_URL otherwise): the certificate is checked against it.
    pub async fn connect_tls(
        &self,
        host: &str,
        port: u16,
    ) -> Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>, NetError> {
        match tokio::time::timeout(self.deadline, self.open_tls(host, port)).await {
            Ok(result) => result,
            Err(_) => Err(NetError::Timeout),
        }
    }

    async fn open_tls(
        &self,
        host: &str,
        port: u16,
    ) -> Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>, NetError> {
        let name = match rustls::pki_types::ServerName::try_from(host.to_owned()) {
            Ok(name @ rustls::pki_types::ServerName::DnsName(_)) => name,
            _ => return Err(NetError::BadUrl),
        };
        let addrs = self.resolve_public(host, port).await?;
        let tcp = tokio::net::TcpStream::connect(&addrs[..]).await.map_err(|_| NetError::Network { local: false })?;
        tokio_rustls::TlsConnector::from(self.tls.clone()).connect(name, tcp).await.map_err(|_| NetError::Tls)
    }

    async fn follow(&self, req: Outgoing, policy: &Policy) -> Result<Incoming, NetError> {
        let Outgoing { mut method, url, mut headers, mut body } = req;
        let mut target = judge_url(&url, policy)?;
        let shown = target.url().origin();
        let mut redirects = 0;
        loop {
            let local = target.is_local();
            let http = self.hop_client(&target).await?;
            let request = build_request(&target, method, &headers, body.as_deref())?;
            let response = http.execute(request).await.map_err(|_| NetError::Network { local })?;
            let status = response.status().as_u16();
            let location = match status {
                301 | 302 | 303 | 307 | 308 => response.headers().get(LOCATION).cloned(),
                _ => None,
            };
            // A 3xx without Location (or 300, 304, …) is an answer like any
            // other: the caller judges its status (§9).
            let Some(location) = location else {
                return read_answer(response, &target).await;
            };
            if redirects == REDIRECTS {
                return Err(NetError::TooManyRedirects);
            }
            redirects += 1;
            let location = location.to_str().map_err(|_| NetError::BadUrl)?;
            if !location.bytes().all(|b| (0x21..=0x7e).contains(&b)) || location.contains('\\') {
                return Err(NetError::BadUrl);
            }
            let next_url = target.url().join(location).map_err(|_| NetError::BadUrl)?;
            let next = judge_redirect(&target, next_url.as_str(), policy)?;
            let before = method;
            if status == 303 || (matches!(status, 301 | 302) && method != Method::Get) {
                method = Method::Get;
                body = None;
            }
            if policy.confirmed && !confirmed_may_follow(redirects, before, method, &shown, next.url()) {
                return Err(NetError::Redirected { status, to: next.url().to_string() });
            }
            if next.url().origin() != target.url().origin() {
                // Plugin headers may carry its key (auth block): they only
                // go to the origin the request named.
                headers.retain(|(name, _)| name.eq_ignore_ascii_case("accept"));
            }
            drop(response);
            target = next;
        }
    }

    /// A reqwest client for one hop, able to reach only the checked
    /// addresses of `target`.
    async fn hop_client(&self, target: &Target) -> Result<reqwest::Client, NetError> {
        let builder = self.pinned_builder().user_agent(USER_AGENT).pool_max_idle_per_host(0);
        let builder = match target {
            Target::Web { host, .. } => {
                let addrs = self.resolve_public(host, 443).await?;
                builder.https_only(true).resolve_to_addrs(host, &addrs)
            }
            // http://127.0.0.1:<port> never resolves; http://localhost:<port>
            // is pinned to 127.0.0.1 (never ::1, never the system resolver).
            Target::Local { port, .. } => {
                builder.resolve_to_addrs("localhost", &[SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), *port)])
            }
        };
        builder.build().map_err(|_| NetError::Network { local: target.is_local() })
    }

    /// A reqwest builder with this client's TLS (the bundled roots, plus the
    /// test root under `test-net`), no proxy, no automatic redirect, no
    /// referer, HTTP/1.1, and a resolver that refuses every name: whoever
    /// builds on it pins each name it may reach (`resolve_to_addrs`). Shared
    /// with the companion's AI connection (dcp-ai), so both reach the
    /// network the same way.
    pub fn pinned_builder(&self) -> reqwest::ClientBuilder {
        reqwest::Client::builder()
            .use_preconfigured_tls((*self.tls).clone())
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .http1_only()
            .dns_resolver(Arc::new(RefuseEveryName))
    }

    /// Resolves `host`, judges every answer by [`is_public`] (any private
    /// answer refuses the name: PRIVATE_ADDRESS), and returns where to
    /// connect on `port`. Under `test-net` the fake answers and connection
    /// rewrites apply, after the check.
    pub async fn resolve_public(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, NetError> {
        let answers = self.lookup(host).await?;
        if answers.is_empty() {
            return Err(NetError::DnsFailed { host: host.to_owned() });
        }
        if answers.iter().any(|ip| !is_public(*ip)) {
            return Err(NetError::PrivateAddress);
        }
        let mut addrs: Vec<SocketAddr> = Vec::new();
        for ip in answers {
            let addr = SocketAddr::new(ip.to_canonical(), port);
            // test-net: where the checked address really goes. Applied
            // after the check, so the check runs on the (fake) answer.
            #[cfg(feature = "test-net")]
            let addr = match self.test.connect.get(&addr) {
                Some(real) => *real,
                // A fake answer without a rewrite would send test traffic
                // to a real public address: refuse instead.
                None if !self.test.dns.is_empty() => return Err(NetError::Network { local: false }),
                None => addr,
            };
            if !addrs.contains(&addr) {
                addrs.push(addr);
            }
        }
        Ok(addrs)
    }

    async fn lookup(&self, host: &str) -> Result<Vec<IpAddr>, NetError> {
        #[cfg(feature = "test-net")]
        if !self.test.dns.is_empty() {
            // With fake answers, a name without one fails: tests never
            // reach the system resolver.
            return self
                .test
                .dns
                .iter()
                .find(|(name, _)| name == host)
                .map(|(_, ips)| ips.clone())
                .ok_or_else(|| NetError::DnsFailed { host: host.to_owned() });
        }
        let found =
            tokio::net::lookup_host((host, 443)).await.map_err(|_| NetError::DnsFailed { host: host.to_owned() })?;
        Ok(found.map(|addr| addr.ip()).collect())
    }
}

fn build_request(
    target: &Target,
    method: Method,
    headers: &[(String, String)],
    body: Option<&[u8]>,
) -> Result<reqwest::Request, NetError> {
    let mut request = reqwest::Request::new(method.as_reqwest(), target.url().clone());
    let map = request.headers_mut();
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        // The app owns these (§8; the validator refuses them at import) and
        // sets Content-Type itself for a JSON body.
        if dcp_format::headers::is_forbidden(&lower) || lower == "content-type" {
            continue;
        }
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| NetError::BadRequest)?;
        let value = reqwest::header::HeaderValue::from_str(value).map_err(|_| NetError::BadRequest)?;
        map.append(name, value);
    }
    if !map.contains_key(ACCEPT) {
        map.insert(ACCEPT, reqwest::header::HeaderValue::from_static(DEFAULT_ACCEPT));
    }
    if let Some(body) = body {
        map.insert(CONTENT_TYPE, reqwest::header::HeaderValue::from_static("application/json"));
        *request.body_mut() = Some(body.to_vec().into());
    }
    Ok(request)
}

/// Reads the answer as a stream, counting bytes; stops as soon as the
/// count passes the limit, without reading the rest.
async fn read_answer(mut response: reqwest::Response, target: &Target) -> Result<Incoming, NetError> {
    let local = target.is_local();
    let limit = RESPONSE_BYTES as usize;
    if response.content_length().is_some_and(|claimed| claimed > RESPONSE_BYTES) {
        return Err(NetError::TooLarge);
    }
    let status = response.status().as_u16();
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|_| NetError::Network { local })? {
        if body.len() + chunk.len() > limit {
            return Err(NetError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Incoming { status, content_type, body, final_url: target.url().to_string() })
}

/// Whether a confirmed request (R3, §12) may follow its `hop`th redirect
/// (counted from 1), which turns `before` into `after` towards `next`.
/// The player saw one request: its method and body go once, to its URL.
/// So the confirmed request itself is never sent again, elsewhere or
/// there: a 307 or 308 (which keep both), or any redirect of a GET
/// (which stays a GET), is refused at the first hop. What may follow is a
/// read of its result: a GET without body (303, or 301/302 after a
/// non-GET, §14), then that GET's own redirects, and all of it only on the
/// origin the player was shown (scheme, host, port), never another
/// declared host.
fn confirmed_may_follow(hop: usize, before: Method, after: Method, shown: &url::Origin, next: &url::Url) -> bool {
    let read = after == Method::Get && (hop > 1 || before != Method::Get);
    read && next.origin() == *shown
}

/// The resolver reqwest falls back to when a name is not pinned: it
/// refuses every name, so nothing escapes to the system resolver.
struct RefuseEveryName;

impl reqwest::dns::Resolve for RefuseEveryName {
    fn resolve(&self, _name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async { Err("dcp-net: name not pinned to a checked address".into()) })
    }
}

/// The rustls configuration shared by every hop: ring provider, TLS 1.2
/// and 1.3, the bundled Mozilla roots plus `extra_roots` (test only).
fn tls_config(extra_roots: &[rustls::pki_types::CertificateDer<'static>]) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for cert in extra_roots {
        // A test root that does not parse simply is not trusted.
        let _ = roots.add(cert.clone());
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("the ring provider supports TLS 1.2 and 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

/// Test hooks (feature `test-net`, never in a release build).
///
/// * `dns`: fake answers per name, judged exactly like real ones. When
///   non-empty, a name without an entry fails with DNS_FAILED and the
///   system resolver is never asked.
/// * `connect`: where a connection to a checked address really goes,
///   applied after the address check. With fake answers, an address
///   without a rewrite fails with NETWORK: tests never leave loopback.
/// * `ca_pem`: an extra trusted root (PEM).
///
/// From the environment: `DCPLUGIN_TEST_DNS="a.example.com=93.184.216.34|10.0.0.7,v6.example.com=[2606:2800:220:1::1]"`,
/// `DCPLUGIN_TEST_CONNECT="93.184.216.34:443=127.0.0.1:8443"`,
/// `DCPLUGIN_TEST_CA=/path/ca.pem`.
#[cfg(feature = "test-net")]
#[derive(Debug, Clone, Default)]
pub struct TestOverrides {
    /// Fake DNS answers: (name, addresses).
    pub dns: Vec<(String, Vec<IpAddr>)>,
    /// Connection rewrites: checked address → real address.
    pub connect: std::collections::HashMap<SocketAddr, SocketAddr>,
    /// Extra trusted root certificates, PEM.
    pub ca_pem: Option<Vec<u8>>,
}

#[cfg(feature = "test-net")]
impl TestOverrides {
    /// Reads `DCPLUGIN_TEST_DNS`, `DCPLUGIN_TEST_CONNECT`, `DCPLUGIN_TEST_CA`.
    /// Panics on a malformed value or an unreadable CA file (test only).
    pub fn from_env() -> Self {
        let mut out = TestOverrides::default();
        if let Ok(dns) = std::env::var("DCPLUGIN_TEST_DNS") {
            out.dns = Self::parse_dns(&dns).expect("DCPLUGIN_TEST_DNS: name=ip|ip,…");
        }
        if let Ok(connect) = std::env::var("DCPLUGIN_TEST_CONNECT") {
            out.connect = Self::parse_connect(&connect).expect("DCPLUGIN_TEST_CONNECT: addr:port=addr:port,…");
        }
        if let Ok(path) = std::env::var("DCPLUGIN_TEST_CA") {
            out.ca_pem = Some(std::fs::read(&path).expect("DCPLUGIN_TEST_CA: a readable PEM file"));
        }
        out
    }

    /// Parses `name=ip|ip,name=[v6]`.
    pub fn parse_dns(text: &str) -> Result<Vec<(String, Vec<IpAddr>)>, String> {
        let mut out = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, ips) = entry.split_once('=').ok_or_else(|| format!("{entry}: no ="))?;
            let ips = ips
                .split('|')
                .map(|ip| {
                    let ip = ip.trim().trim_start_matches('[').trim_end_matches(']');
                    ip.parse::<IpAddr>().map_err(|e| format!("{ip}: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            out.push((name.trim().to_owned(), ips));
        }
        Ok(out)
    }

    /// Parses `ip:port=ip:port,[v6]:port=ip:port`.
    pub fn parse_connect(text: &str) -> Result<std::collections::HashMap<SocketAddr, SocketAddr>, String> {
        let mut out = std::collections::HashMap::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (from, to) = entry.split_once('=').ok_or_else(|| format!("{entry}: no ="))?;
            let from: SocketAddr = from.trim().parse().map_err(|e| format!("{from}: {e}"))?;
            let to: SocketAddr = to.trim().parse().map_err(|e| format!("{to}: {e}"))?;
            out.insert(from, to);
        }
        Ok(out)
    }
}

#[cfg(feature = "test-net")]
impl Client {
    /// A client with injected test hooks instead of the environment, so
    /// parallel tests do not race on variables. Test builds only.
    pub fn with_test_overrides(test: TestOverrides) -> Self {
        use rustls::pki_types::pem::PemObject;
        let roots: Vec<_> = match &test.ca_pem {
            Some(pem) => rustls::pki_types::CertificateDer::pem_slice_iter(pem).filter_map(Result::ok).collect(),
            None => Vec::new(),
        };
        Client { tls: tls_config(&roots), deadline: Duration::from_secs(CALL_SECONDS), test }
    }

    /// Replaces the 20 s deadline (tests only).
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }
}

#[cfg(all(test, feature = "test-net"))]
mod tests {
    use super::*;

    /// A hop's reqwest client reaches only the pinned name: any other name
    /// hits the refusing resolver, never the system resolver (which would
    /// answer `localhost` from the hosts file and reach the listener).
    #[tokio::test]
    async fn s14_unpinned_names_are_never_resolved() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let overrides = TestOverrides {
            dns: vec![("api.example.com".into(), vec!["93.184.216.34".parse().expect("ip")])],
            connect: [("93.184.216.34:443".parse().expect("addr"), SocketAddr::from(([127, 0, 0, 1], port)))].into(),
            ca_pem: None,
        };
        let client = Client::with_test_overrides(overrides);
        let policy = Policy { hosts: vec!["api.example.com".into()], ..Policy::default() };
        let target = judge_url("https://api.example.com/", &policy).expect("declared");
        let http = client.hop_client(&target).await.expect("client");
        let sent =
            tokio::time::timeout(Duration::from_secs(2), http.get(format!("https://localhost:{port}/")).send()).await;
        let err = sent.expect("refused at once, not a hanging connection").expect_err("must not connect");
        assert!(format!("{err:?}").contains("not pinned"), "{err:?}");
        let accepted = tokio::time::timeout(Duration::from_millis(200), listener.accept()).await;
        assert!(accepted.is_err(), "nothing may connect through an unpinned name");
    }

    #[tokio::test]
    async fn s14_refusing_resolver_refuses() {
        use reqwest::dns::Resolve;
        let name: reqwest::dns::Name = "localhost".parse().expect("name");
        assert!(RefuseEveryName.resolve(name).await.is_err());
    }

    #[test]
    fn test_net_parsers() {
        let dns = TestOverrides::parse_dns(
            "a.example.com=93.184.216.34,m.example.com=93.184.216.35|10.0.0.7,v6.example.com=[2606:2800:220:1::1]",
        )
        .expect("valid");
        assert_eq!(dns.len(), 3);
        assert_eq!(dns[1].1.len(), 2);
        assert_eq!(dns[2].1[0], "2606:2800:220:1::1".parse::<IpAddr>().expect("ip"));
        let connect =
            TestOverrides::parse_connect("93.184.216.34:443=127.0.0.1:8443,[2606:2800:220:1::1]:443=127.0.0.1:8444")
                .expect("valid");
        assert_eq!(connect.len(), 2);
        assert!(TestOverrides::parse_dns("a.example.com").is_err());
        assert!(TestOverrides::parse_dns("a.example.com=nope").is_err());
        assert!(TestOverrides::parse_connect("1.2.3.4=5.6.7.8").is_err());
    }
}
