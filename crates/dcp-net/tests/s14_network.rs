//! §8 (headers), §14 (network rules), §15 (server on the PC) against real
//! servers on 127.0.0.1, with fake DNS answers (feature `test-net`).

#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::*;
use dcp_net::{Client, Method, NetError, Policy, TestOverrides, DEFAULT_ACCEPT, USER_AGENT};

const MB2: usize = 2 * 1024 * 1024;

// ---------------------------------------------------------------- §8 headers

#[tokio::test]
async fn s8_get_sends_the_app_headers() {
    let server = https_server(|_| Reply::json(r#"{"ok":true}"#)).await;
    let client = client_for(&server, ZONE);
    let answer = client.send(get("https://api.example.com/v1/rates?base=USD"), &web_policy()).await.unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type.as_deref(), Some("application/json"));
    assert_eq!(answer.body, br#"{"ok":true}"#);
    assert_eq!(answer.final_url, "https://api.example.com/v1/rates?base=USD");
    let seen = &server.seen()[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(seen.target, "/v1/rates?base=USD");
    assert_eq!(seen.header("host"), Some("api.example.com"));
    assert_eq!(seen.header("user-agent"), Some(USER_AGENT));
    assert_eq!(seen.header("accept"), Some(DEFAULT_ACCEPT));
    assert_eq!(seen.header("cookie"), None);
    assert_eq!(seen.header("referer"), None);
    assert_eq!(seen.header("content-type"), None);
    assert_eq!(seen.header("authorization"), None);
    assert!(seen.body.is_empty());
}

#[tokio::test]
async fn s8_post_json_body_and_accept_override() {
    let server = https_server(|_| Reply::json("{}")).await;
    let client = client_for(&server, ZONE);
    let req = with(
        Method::Post,
        "https://api.example.com/cards",
        &[("Accept", "text/plain"), ("X-Api-Version", "2")],
        Some(r#"{"title":"x"}"#),
    );
    client.send(req, &web_policy()).await.unwrap();
    let seen = &server.seen()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.header("accept"), Some("text/plain"));
    assert_eq!(seen.count("accept"), 1);
    assert_eq!(seen.header("x-api-version"), Some("2"));
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.body, br#"{"title":"x"}"#);
}

#[tokio::test]
async fn s8_headers_the_app_owns_are_not_taken_from_the_plugin() {
    let server = https_server(|_| Reply::json("{}")).await;
    let client = client_for(&server, ZONE);
    let req = with(
        Method::Post,
        "https://api.example.com/x",
        &[
            ("User-Agent", "evil"),
            ("Cookie", "a=b"),
            ("Referer", "https://evil.example/"),
            ("Host", "evil.example"),
            ("Origin", "https://evil.example"),
            ("Proxy-Authorization", "Basic x"),
            ("Content-Type", "text/plain"),
        ],
        Some("{}"),
    );
    client.send(req, &web_policy()).await.unwrap();
    let seen = &server.seen()[0];
    assert_eq!(seen.header("user-agent"), Some(USER_AGENT));
    assert_eq!(seen.count("user-agent"), 1);
    assert_eq!(seen.header("cookie"), None);
    assert_eq!(seen.header("referer"), None);
    assert_eq!(seen.header("origin"), None);
    assert_eq!(seen.header("proxy-authorization"), None);
    assert_eq!(seen.header("host"), Some("api.example.com"));
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.count("content-type"), 1);
}

#[tokio::test]
async fn s8_invalid_header_is_bad_request() {
    let server = https_server(|_| Reply::json("{}")).await;
    let client = client_for(&server, ZONE);
    let req = with(Method::Get, "https://api.example.com/x", &[("X-Key", "a\nb")], None);
    assert_eq!(client.send(req, &web_policy()).await, Err(NetError::BadRequest));
    let req = with(Method::Get, "https://api.example.com/x", &[("Bad Name", "v")], None);
    assert_eq!(client.send(req, &web_policy()).await, Err(NetError::BadRequest));
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn s9_error_statuses_are_answers_not_net_errors() {
    let server = https_server(|_| Reply::Full { status: 503, headers: vec![], body: b"busy".to_vec() }).await;
    let answer = client_for(&server, ZONE).send(get("https://api.example.com/"), &web_policy()).await.unwrap();
    assert_eq!(answer.status, 503);
    assert_eq!(answer.body, b"busy");
    assert_eq!(answer.content_type, None);
}

// ------------------------------------------------------------- §14 SSRF table

#[tokio::test]
async fn s14_ssrf_url_table() {
    let server = https_server(|_| Reply::json("{}")).await;
    let client = client_for(&server, ZONE);
    use NetError::*;
    let table: &[(&str, NetError)] = &[
        ("https://2130706433/", HostNotAllowed),
        ("https://0x7f.1/", HostNotAllowed),
        ("https://0x7f000001/", HostNotAllowed),
        ("https://0177.0.0.1/", HostNotAllowed),
        ("https://127.1/", HostNotAllowed),
        ("https://127.0.0.1/", HostNotAllowed),
        ("https://169.254.169.254/latest/meta-data/", HostNotAllowed),
        ("https://10.0.0.7/", HostNotAllowed),
        ("https://[::1]/", HostNotAllowed),
        ("https://[::ffff:127.0.0.1]/", HostNotAllowed),
        ("https://[::ffff:7f00:1]/", HostNotAllowed),
        ("https://[64:ff9b::7f00:1]/", HostNotAllowed),
        ("https://[2002:7f00:1::1]/", HostNotAllowed),
        ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", HostNotAllowed),
        ("https://[fe80::1]/", HostNotAllowed),
        ("https://93.184.216.34/", HostNotAllowed),
        ("https://localhost/", HostNotAllowed),
        ("https://evil.example.com/", HostNotAllowed),
        ("https://api.example.com.evil.net/", HostNotAllowed),
        ("https://api.example.com./", BadUrl),
        ("https://user:pass@api.example.com/", BadUrl),
        ("https://user@api.example.com/", BadUrl),
        ("https://evil.net@api.example.com/", BadUrl),
        ("https://api.example.com@10.0.0.7/", BadUrl),
        ("https://api%2eexample.com/", BadUrl),
        ("https://api.example.com\\@10.0.0.7/", BadUrl),
        ("https:api.example.com/", BadUrl),
        ("not a url", BadUrl),
        ("http://api.example.com/", NotHttps),
        ("ftp://api.example.com/", NotHttps),
        ("https://api.example.com:8443/", BadPort),
        ("https://api.example.com:80/", BadPort),
        ("http://127.0.0.1:8420/", LocalPortNotAllowed),
    ];
    for (url, want) in table {
        assert_eq!(client.send(get(url), &web_policy()).await.as_ref().map(|_| ()), Err(want), "{url}");
    }
    assert_eq!(server.hits(), 0, "no refused URL may reach a server");
}

#[tokio::test]
async fn s14_private_answers_are_refused() {
    let server = https_server(|_| Reply::json("{}")).await;
    let cases = [
        "10.0.0.7",
        "93.184.216.35|10.0.0.7",
        "10.0.0.7|93.184.216.35",
        "127.0.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "172.16.0.1",
        "192.168.1.1",
        "0.0.0.0",
        "224.0.0.1",
        "255.255.255.255",
        "[::1]",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::ffff:10.0.0.7]",
        "[::7f00:1]",
        "[64:ff9b::7f00:1]",
        "[64:ff9b::a00:7]",
        "[64:ff9b:1::1]",
        "[2002:7f00:1::1]",
        "[2001::1]",
        "[2001:db8::1]",
        "[fd00::1]",
        "[fe80::1]",
        "[ff02::1]",
        "[2606:2800:220:1::1]|[fc00::1]",
    ];
    for answers in cases {
        let client = client_for(&server, &format!("private.example.com={answers}"));
        let policy = Policy { hosts: vec!["private.example.com".into()], ..Policy::default() };
        let got = client.send(get("https://private.example.com/"), &policy).await;
        assert_eq!(got, Err(NetError::PrivateAddress), "{answers}");
    }
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn s14_public_v6_and_nat64_answers_connect() {
    let server = https_server(|_| Reply::json("{}")).await;
    let client = client_for(&server, ZONE);
    let answer = client.send(get("https://v6.example.com/"), &web_policy()).await.unwrap();
    assert_eq!(answer.status, 200);
    // NAT64 of a public IPv4 (DNS64 networks) is allowed.
    let client = client_for(&server, "nat64.example.com=[64:ff9b::5db8:d822]");
    let policy = Policy { hosts: vec!["nat64.example.com".into()], ..Policy::default() };
    assert_eq!(client.send(get("https://nat64.example.com/"), &policy).await.unwrap().status, 200);
    assert_eq!(server.seen()[0].header("host"), Some("v6.example.com"));
}

#[tokio::test]
async fn s14_dns_failed() {
    let server = https_server(|_| Reply::json("{}")).await;
    // Declared, but no answer in the fake zone.
    let client = client_for(&server, ZONE);
    let policy = Policy { hosts: vec!["nowhere.example.com".into()], ..Policy::default() };
    let nowhere = NetError::DnsFailed { host: "nowhere.example.com".into() };
    assert_eq!(client.send(get("https://nowhere.example.com/"), &policy).await, Err(nowhere));
    // A name with an empty answer.
    let client = Client::with_test_overrides(TestOverrides {
        dns: vec![("api.example.com".into(), vec![])],
        ..TestOverrides::default()
    });
    let failed = client.send(get("https://api.example.com/"), &web_policy()).await.expect_err("no address");
    assert_eq!(failed, NetError::DnsFailed { host: "api.example.com".into() });
    assert_eq!(failed.code().as_str(), "DNS_FAILED");
    // §22 DNS_FAILED: the message names the domain and what the player can check.
    assert!(failed.to_string().contains("api.example.com") && failed.to_string().contains("offline"), "{failed}");
}

#[tokio::test]
async fn s14_tls_is_verified_for_the_declared_name() {
    let server = https_server(|_| Reply::json("{}")).await;
    // The certificate does not cover this name: the handshake fails.
    let client = client_for(&server, "wrong.example.org=93.184.216.34");
    let policy = Policy { hosts: vec!["wrong.example.org".into()], ..Policy::default() };
    assert_eq!(client.send(get("https://wrong.example.org/"), &policy).await, Err(NetError::Network { local: false }));
    // Without the test CA, the server's certificate is not trusted.
    let mut overrides =
        TestOverrides { dns: TestOverrides::parse_dns(ZONE).unwrap(), connect: Default::default(), ca_pem: None };
    overrides.connect.insert("93.184.216.34:443".parse().unwrap(), server.addr);
    let client = Client::with_test_overrides(overrides);
    assert_eq!(
        client.send(get("https://api.example.com/"), &web_policy()).await,
        Err(NetError::Network { local: false })
    );
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn s14_connection_refused_is_network() {
    let listener = bind_unreserved().await;
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut overrides = TestOverrides { dns: TestOverrides::parse_dns(ZONE).unwrap(), ..TestOverrides::default() };
    overrides.connect.insert("93.184.216.34:443".parse().unwrap(), addr);
    let client = Client::with_test_overrides(overrides);
    let err = client.send(get("https://api.example.com/"), &web_policy()).await.unwrap_err();
    assert_eq!(err, NetError::Network { local: false });
    assert!(err.retryable());
}

// ------------------------------------------------------------ §14 redirects

fn redirect_server_to(status: u16, location: &'static str) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |seen: &Seen| if seen.target == "/start" { Reply::redirect(status, location) } else { Reply::json("{}") }
}

#[tokio::test]
async fn s14_redirects_are_checked_like_the_first_request() {
    use NetError::*;
    let mut policy = web_policy();
    policy.hosts.push("private.example.com".into());
    policy.local_ports = vec![8420];
    policy.dev_mode = true;
    let cases: &[(&'static str, NetError)] = &[
        ("https://other.example.com/x", HostNotAllowed),
        ("https://evil.example.net/x", HostNotAllowed),
        ("https://127.0.0.1/x", HostNotAllowed),
        ("https://2130706433/x", HostNotAllowed),
        ("https://[::1]/x", HostNotAllowed),
        ("https://169.254.169.254/latest/meta-data/", HostNotAllowed),
        ("https://private.example.com/x", PrivateAddress),
        ("http://api.example.com/x", NotHttps),
        ("https://api.example.com:8443/x", BadPort),
        ("https://user:pw@api.example.com/x", BadUrl),
        ("https://api.example.com./x", BadUrl),
        ("//evil.example.net/x", HostNotAllowed),
        ("http://127.0.0.1:8421/x", LocalPortNotAllowed),
        ("http://127.0.0.1:5000/x", LocalPortNotAllowed),
    ];
    for (location, want) in cases {
        let server = https_server(redirect_server_to(302, location)).await;
        let client = client_for(&server, &format!("{ZONE},private.example.com=10.0.0.7"));
        let got = client.send(get("https://api.example.com/start"), &policy).await;
        assert_eq!(got, Err(want.clone()), "{location}");
        assert_eq!(server.hits(), 1, "{location}: only the first hop is sent");
    }
}

#[tokio::test]
async fn s14_relative_locations_and_final_url() {
    let server = https_server(|seen: &Seen| match seen.target.as_str() {
        "/a/start" => Reply::redirect(301, "next?x=1"),
        "/a/next?x=1" => Reply::redirect(302, "/b/final"),
        "/b/final" => Reply::redirect(307, "https://cdn.example.com/done"),
        _ => Reply::json(r#"{"done":true}"#),
    })
    .await;
    let answer = client_for(&server, ZONE).send(get("https://api.example.com/a/start"), &web_policy()).await.unwrap();
    assert_eq!(answer.body, br#"{"done":true}"#);
    assert_eq!(answer.final_url, "https://cdn.example.com/done");
    let targets: Vec<String> = server.seen().iter().map(|s| s.target.clone()).collect();
    assert_eq!(targets, ["/a/start", "/a/next?x=1", "/b/final", "/done"]);
    assert_eq!(server.seen()[3].header("host"), Some("cdn.example.com"));
}

#[tokio::test]
async fn s14_three_redirects_pass_the_fourth_fails() {
    let server = https_server(|seen: &Seen| {
        let n: u32 = seen.target.trim_start_matches("/r").parse().unwrap_or(99);
        if n < 99 {
            Reply::redirect(302, &format!("/r{}", n + 1))
        } else {
            Reply::json("{}")
        }
    })
    .await;
    let client = client_for(&server, ZONE);
    // /r96 → r97 → r98 → r99 (answer): 3 redirects.
    let answer = client.send(get("https://api.example.com/r96"), &web_policy()).await.unwrap();
    assert_eq!(answer.final_url, "https://api.example.com/r99");
    assert_eq!(server.hits(), 4);
    // /r95 → … → r99: 4 redirects.
    let got = client.send(get("https://api.example.com/r95"), &web_policy()).await;
    assert_eq!(got, Err(NetError::TooManyRedirects));
    assert_eq!(server.hits(), 8, "the 4th Location is not followed");
}

#[tokio::test]
async fn s14_redirect_loop_fails_cleanly() {
    let server = https_server(|_| Reply::redirect(302, "/loop")).await;
    let got = client_for(&server, ZONE).send(get("https://api.example.com/loop"), &web_policy()).await;
    assert_eq!(got, Err(NetError::TooManyRedirects));
    assert_eq!(server.hits(), 4);
}

#[tokio::test]
async fn s14_303_continues_as_get_without_body() {
    for (status, method) in
        [(303, Method::Post), (303, Method::Put), (302, Method::Post), (301, Method::Patch), (301, Method::Delete)]
    {
        let server = https_server(redirect_server_to(status, "/next")).await;
        let req = with(method, "https://api.example.com/start", &[("X-Api-Version", "2")], Some(r#"{"a":1}"#));
        client_for(&server, ZONE).send(req, &web_policy()).await.unwrap();
        let seen = server.seen();
        assert_ne!(seen[0].method, "GET");
        assert_eq!(seen[0].body, br#"{"a":1}"#);
        assert_eq!(seen[1].method, "GET", "{status} {method:?}");
        assert!(seen[1].body.is_empty());
        assert_eq!(seen[1].header("content-type"), None);
        assert_eq!(seen[1].header("content-length"), None);
        assert_eq!(seen[1].header("x-api-version"), Some("2"), "same origin keeps headers");
    }
}

#[tokio::test]
async fn s14_307_and_308_keep_method_and_body() {
    for status in [307, 308] {
        let server = https_server(redirect_server_to(status, "/next")).await;
        let req = with(Method::Post, "https://api.example.com/start", &[], Some(r#"{"keep":true}"#));
        client_for(&server, ZONE).send(req, &web_policy()).await.unwrap();
        let seen = server.seen();
        assert_eq!(seen[1].method, "POST");
        assert_eq!(seen[1].body, br#"{"keep":true}"#);
        assert_eq!(seen[1].header("content-type"), Some("application/json"));
    }
    // A GET stays a GET after a 302.
    let server = https_server(redirect_server_to(302, "/next")).await;
    client_for(&server, ZONE).send(get("https://api.example.com/start"), &web_policy()).await.unwrap();
    assert_eq!(server.seen()[1].method, "GET");
}

/// §12, §14, issue 32: a request the player confirmed goes only where it
/// was shown. A 307 or 308 (which would send its method and body again),
/// a redirect of a confirmed GET (sent again as it is), or a redirect to
/// another origin, even a declared one: BAD_URL, `Redirected` with where
/// it pointed, and the server saw the request once. The same redirects of
/// a request not confirmed are followed (the control: the server would
/// have seen a second request).
#[tokio::test]
async fn s12_s14_issue32_a_confirmed_request_is_not_sent_again_by_a_redirect() {
    let confirmed = Policy { confirmed: true, ..web_policy() };
    let post = || with(Method::Post, "https://api.example.com/start", &[], Some(r#"{"send":1}"#));
    let read = || get("https://api.example.com/start");
    let cases: [(u16, &str, Make); 5] = [
        (307, "/send_all?to=mallory", post),
        (308, "/send_all?to=mallory", post),
        (303, "https://cdn.example.com/done", post),
        (302, "/elsewhere", read),
        (303, "/again", read),
    ];
    for (status, location, request) in cases {
        let followed = https_server(redirect_server_to(status, location)).await;
        client_for(&followed, ZONE).send(request(), &web_policy()).await.unwrap();
        assert_eq!(followed.hits(), 2, "{status} {location}: control, followed when not confirmed");

        let server = https_server(redirect_server_to(status, location)).await;
        let got = client_for(&server, ZONE).send(request(), &confirmed).await;
        let to = api_or_cdn(location);
        assert_eq!(got, Err(NetError::Redirected { status, to }), "{status} {location}");
        assert_eq!(got.unwrap_err().code().as_str(), "BAD_URL");
        assert_eq!(server.hits(), 1, "{status} {location}: sent once, where it was shown");
    }
}

/// Makes a request to send.
type Make = fn() -> dcp_net::Outgoing;

/// The URL a test location points to from `https://api.example.com/start`.
fn api_or_cdn(location: &str) -> String {
    match location.strip_prefix('/') {
        Some(path) => format!("https://api.example.com/{path}"),
        None => location.to_owned(),
    }
}

/// §12, §14, issue 32: what a confirmed request may follow is a read of its
/// result: a GET without body to the origin shown (303, or 301/302 after a
/// non-GET, §14), and that GET's own redirects on the same origin.
#[tokio::test]
async fn s12_s14_issue32_a_confirmed_request_may_read_its_result_on_the_same_origin() {
    let confirmed = Policy { confirmed: true, ..web_policy() };
    for (status, method) in [(303, Method::Post), (302, Method::Delete), (301, Method::Put)] {
        let server = https_server(move |seen: &Seen| match seen.target.as_str() {
            "/start" => Reply::redirect(status, "/result"),
            "/result" => Reply::redirect(307, "/result/1"),
            _ => Reply::json(r#"{"sent":true}"#),
        })
        .await;
        let req = with(method, "https://api.example.com/start", &[], Some(r#"{"send":1}"#));
        let answer = client_for(&server, ZONE).send(req, &confirmed).await.unwrap();
        assert_eq!(answer.final_url, "https://api.example.com/result/1");
        let seen = server.seen();
        let sent: Vec<(&str, &str, usize)> =
            seen.iter().map(|s| (s.method.as_str(), s.target.as_str(), s.body.len())).collect();
        assert_eq!(sent, [(method_name(method), "/start", 10), ("GET", "/result", 0), ("GET", "/result/1", 0)]);
    }
}

fn method_name(method: Method) -> &'static str {
    match method {
        Method::Get => "GET",
        Method::Post => "POST",
        Method::Put => "PUT",
        Method::Patch => "PATCH",
        Method::Delete => "DELETE",
    }
}

#[tokio::test]
async fn s14_cross_host_redirect_drops_plugin_headers() {
    let server = https_server(redirect_server_to(307, "https://cdn.example.com/next")).await;
    let req =
        with(Method::Get, "https://api.example.com/start", &[("X-Api-Key", "secret"), ("Accept", "text/plain")], None);
    client_for(&server, ZONE).send(req, &web_policy()).await.unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].header("x-api-key"), Some("secret"));
    assert_eq!(seen[1].header("host"), Some("cdn.example.com"));
    assert_eq!(seen[1].header("x-api-key"), None);
    assert_eq!(seen[1].header("accept"), Some("text/plain"));
    assert_eq!(seen[1].header("user-agent"), Some(USER_AGENT));
}

#[tokio::test]
async fn s14_3xx_without_location_is_returned() {
    let server = https_server(|_| Reply::Full { status: 302, headers: vec![], body: b"moved".to_vec() }).await;
    let answer = client_for(&server, ZONE).send(get("https://api.example.com/"), &web_policy()).await.unwrap();
    assert_eq!(answer.status, 302);
    assert_eq!(answer.body, b"moved");
    let server = https_server(|_| Reply::redirect(300, "/elsewhere")).await;
    let answer = client_for(&server, ZONE).send(get("https://api.example.com/"), &web_policy()).await.unwrap();
    assert_eq!(answer.status, 300, "only 301, 302, 303, 307, 308 are followed");
    assert_eq!(server.hits(), 1);
}

// --------------------------------------------------------------- §14 size

#[tokio::test]
async fn s14_endless_answer_is_too_large_without_reading_it_all() {
    let cap = 64 * 1024 * 1024;
    let server = https_server(move |_| Reply::Endless { cap }).await;
    let started = Instant::now();
    let got = client_for(&server, ZONE).send(get("https://api.example.com/big"), &web_policy()).await;
    assert_eq!(got, Err(NetError::TooLarge));
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // The client has let go: the server's writes fail, and what it sent is all it could.
    server.ended(1).await;
    let sent = server.sent.load(Ordering::SeqCst);
    assert!(sent < 16 * 1024 * 1024, "the server could send {sent} bytes: the client kept reading");
}

#[tokio::test]
async fn s14_three_megabytes_with_length_is_too_large() {
    let server =
        https_server(|_| Reply::Full { status: 200, headers: vec![], body: vec![b'a'; 3 * 1024 * 1024] }).await;
    let got = client_for(&server, ZONE).send(get("https://api.example.com/"), &web_policy()).await;
    assert_eq!(got, Err(NetError::TooLarge));
}

#[tokio::test]
async fn s14_size_limit_boundary() {
    let server = https_server(|seen: &Seen| {
        let n = if seen.target == "/exact" { MB2 } else { MB2 + 1 };
        Reply::Full { status: 200, headers: vec![], body: vec![b'a'; n] }
    })
    .await;
    let client = client_for(&server, ZONE);
    let answer = client.send(get("https://api.example.com/exact"), &web_policy()).await.unwrap();
    assert_eq!(answer.body.len(), MB2);
    assert_eq!(client.send(get("https://api.example.com/over"), &web_policy()).await, Err(NetError::TooLarge));
    // Past 2 MB without Content-Length: counted while streaming.
    let server = https_server(|_| Reply::Endless { cap: MB2 + 16 * 1024 }).await;
    let got = client_for(&server, ZONE).send(get("https://api.example.com/"), &web_policy()).await;
    assert_eq!(got, Err(NetError::TooLarge));
}

// --------------------------------------------------------------- §14 time

#[tokio::test]
async fn s14_stalled_server_times_out_with_injected_deadline() {
    let server = https_server(|_| Reply::Stall(Duration::from_secs(5))).await;
    let client = client_for(&server, ZONE).with_deadline(Duration::from_millis(500));
    let started = Instant::now();
    let err = client.send(get("https://api.example.com/"), &web_policy()).await.unwrap_err();
    assert_eq!(err, NetError::Timeout);
    assert!(err.retryable());
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s14_one_deadline_covers_all_redirects() {
    // Each hop takes 300 ms; 3 hops exceed the 700 ms deadline although
    // none does alone.
    let server = https_server(|seen: &Seen| {
        std::thread::sleep(Duration::from_millis(300));
        if seen.target.len() < 5 {
            Reply::redirect(302, &format!("{}x", seen.target))
        } else {
            Reply::json("{}")
        }
    })
    .await;
    let client = client_for(&server, ZONE).with_deadline(Duration::from_millis(700));
    assert_eq!(client.send(get("https://api.example.com/"), &web_policy()).await, Err(NetError::Timeout));
}

#[tokio::test]
async fn s14_real_twenty_second_deadline() {
    let server = https_server(|_| Reply::Stall(Duration::from_secs(25))).await;
    let client = client_for(&server, ZONE);
    let started = Instant::now();
    assert_eq!(client.send(get("https://api.example.com/slow"), &web_policy()).await, Err(NetError::Timeout));
    let took = started.elapsed();
    // Under the server's 25 s stall, so the deadline (not the server) ended it, with room for a busy machine.
    assert!(took >= Duration::from_secs(20) && took < Duration::from_millis(24_500), "{took:?}");
}

// ------------------------------------------------------- §15 server on the PC

fn local_policy(port: u16) -> Policy {
    Policy { hosts: vec![], local_ports: vec![port], dev_mode: true, confirmed: false }
}

#[tokio::test]
async fn s15_local_server_on_a_declared_port() {
    let server = http_server(|_| Reply::json(r#"{"started":true}"#)).await;
    let client = Client::with_test_overrides(TestOverrides::default());
    let url = format!("http://127.0.0.1:{}/fishing/start", server.port());
    let req = with(Method::Post, &url, &[("Authorization", "Bearer t")], Some("{}"));
    let answer = client.send(req, &local_policy(server.port())).await.unwrap();
    assert_eq!(answer.body, br#"{"started":true}"#);
    let seen = &server.seen()[0];
    assert_eq!(seen.header("host"), Some(format!("127.0.0.1:{}", server.port()).as_str()));
    assert_eq!(seen.header("user-agent"), Some(USER_AGENT));
    assert_eq!(seen.header("authorization"), Some("Bearer t"));
    assert_eq!(seen.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn s15_localhost_connects_to_127_0_0_1() {
    // The server listens on 127.0.0.1 only; localhost is never resolved.
    let server = http_server(|_| Reply::json("{}")).await;
    let client = Client::with_test_overrides(TestOverrides::default());
    let url = format!("http://localhost:{}/x", server.port());
    let answer = client.send(get(&url), &local_policy(server.port())).await.unwrap();
    assert_eq!(answer.final_url, url);
    assert_eq!(server.seen()[0].header("host"), Some(format!("localhost:{}", server.port()).as_str()));
}

#[tokio::test]
async fn s15_port_rules() {
    let server = http_server(|_| Reply::json("{}")).await;
    let port = server.port();
    let client = Client::with_test_overrides(TestOverrides::default());
    let url = format!("http://127.0.0.1:{port}/x");
    // Undeclared port.
    let other = Policy { local_ports: vec![port.wrapping_add(1)], ..local_policy(port) };
    assert_eq!(client.send(get(&url), &other).await, Err(NetError::LocalPortNotAllowed));
    // Developer mode off.
    let off = Policy { dev_mode: false, ..local_policy(port) };
    assert_eq!(client.send(get(&url), &off).await, Err(NetError::LocalPortNotAllowed));
    // Reserved ports, even if declared.
    for reserved in [5000, 8440, 8766, 11434, 1234, 2375, 45123, 50021, 80] {
        let got = client.send(get(&format!("http://127.0.0.1:{reserved}/")), &local_policy(reserved)).await;
        assert_eq!(got, Err(NetError::LocalPortNotAllowed), "{reserved}");
    }
    // https to the PC is refused; so is any other loopback notation.
    assert_eq!(
        client.send(get(&format!("https://127.0.0.1:{port}/")), &local_policy(port)).await,
        Err(NetError::HostNotAllowed)
    );
    assert_eq!(
        client.send(get(&format!("http://127.0.0.2:{port}/")), &local_policy(port)).await,
        Err(NetError::NotHttps)
    );
    assert_eq!(client.send(get(&format!("http://[::1]:{port}/")), &local_policy(port)).await, Err(NetError::NotHttps));
    assert_eq!(
        client.send(get(&format!("http://2130706433:{port}/")), &local_policy(port)).await,
        Err(NetError::BadUrl)
    );
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn s15_nothing_listening_is_local_network_error() {
    let listener = bind_unreserved().await;
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let client = Client::with_test_overrides(TestOverrides::default());
    for host in ["127.0.0.1", "localhost"] {
        let err = client.send(get(&format!("http://{host}:{port}/x")), &local_policy(port)).await.unwrap_err();
        assert_eq!(err, NetError::Network { local: true });
        assert!(err.retryable());
    }
}

#[tokio::test]
async fn s15_local_redirects_stay_on_declared_ports() {
    let target = http_server(|_| Reply::json(r#"{"second":true}"#)).await;
    let tp = target.port();
    let first = http_server(move |seen: &Seen| match seen.target.as_str() {
        "/ok" => Reply::redirect(302, &format!("http://localhost:{tp}/done")),
        "/web" => Reply::redirect(302, "https://api.example.com/"),
        _ => Reply::redirect(302, &format!("http://127.0.0.1:{}/bad", tp.wrapping_add(1))),
    })
    .await;
    let client = Client::with_test_overrides(TestOverrides::default());
    let both = Policy { hosts: vec![], local_ports: vec![first.port(), tp], dev_mode: true, confirmed: false };
    let answer = client.send(get(&format!("http://127.0.0.1:{}/ok", first.port())), &both).await.unwrap();
    assert_eq!(answer.body, br#"{"second":true}"#);
    let got = client.send(get(&format!("http://127.0.0.1:{}/undeclared", first.port())), &both).await;
    assert_eq!(got, Err(NetError::LocalPortNotAllowed));
    let got = client.send(get(&format!("http://127.0.0.1:{}/web", first.port())), &both).await;
    assert_eq!(got, Err(NetError::HostNotAllowed));
    let only_first = Policy { local_ports: vec![first.port()], ..both };
    let got = client.send(get(&format!("http://127.0.0.1:{}/ok", first.port())), &only_first).await;
    assert_eq!(got, Err(NetError::LocalPortNotAllowed));
    assert_eq!(target.hits(), 1);
}

/// §12, §15: an R0 web tool (the Twitch chat may call it) whose server
/// answers 302 or 307 to the player's PC on a declared port must not reach
/// the PC: that hop would be R2 had it been the first request. The PC
/// server is reachable (the direct call proves the test would see a
/// request), yet the redirected calls never arrive there.
#[tokio::test]
async fn s15_web_redirect_to_the_pc_is_refused_and_never_sent() {
    let pc = http_server(|_| Reply::json(r#"{"secret":"from the PC"}"#)).await;
    let (pc_port, tp) = (pc.port(), pc.port());
    let web = https_server(move |seen: &Seen| {
        let status = if seen.target == "/r302" { 302 } else { 307 };
        Reply::redirect(status, &format!("http://127.0.0.1:{tp}/fishing/start"))
    })
    .await;
    let client = client_for(&web, ZONE);
    let policy = Policy { local_ports: vec![pc_port], dev_mode: true, ..web_policy() };
    let direct = client.send(get(&format!("http://127.0.0.1:{pc_port}/direct")), &policy).await.unwrap();
    assert_eq!(direct.status, 200);
    assert_eq!(pc.hits(), 1, "the PC server is reachable under this policy");
    for path in ["/r302", "/r307"] {
        let req = with(Method::Post, &format!("https://api.example.com{path}"), &[], Some(r#"{"from":"chat"}"#));
        assert_eq!(client.send(req, &policy).await, Err(NetError::HostNotAllowed), "{path}");
    }
    assert_eq!(web.hits(), 2, "each web request was sent");
    assert_eq!(pc.hits(), 1, "no redirected request reached the PC");
}

/// §15 the other way: a server on the PC may not send the app to the web,
/// even to a declared host; the web server receives nothing.
#[tokio::test]
async fn s15_pc_redirect_to_the_web_is_refused_and_never_sent() {
    let web = https_server(|_| Reply::json("{}")).await;
    let pc = http_server(|_| Reply::redirect(307, "https://api.example.com/x")).await;
    let client = client_for(&web, ZONE);
    let policy = Policy { local_ports: vec![pc.port()], dev_mode: true, ..web_policy() };
    assert_eq!(client.send(get("https://api.example.com/direct"), &policy).await.unwrap().status, 200);
    let got = client.send(get(&format!("http://127.0.0.1:{}/start", pc.port())), &policy).await;
    assert_eq!(got, Err(NetError::HostNotAllowed));
    assert_eq!((pc.hits(), web.hits()), (1, 1), "only the direct web call arrived");
}

#[tokio::test]
async fn s15_local_stall_times_out() {
    let server = http_server(|_| Reply::Stall(Duration::from_secs(5))).await;
    let client = Client::with_test_overrides(TestOverrides::default()).with_deadline(Duration::from_millis(300));
    let got = client.send(get(&format!("http://127.0.0.1:{}/", server.port())), &local_policy(server.port())).await;
    assert_eq!(got, Err(NetError::Timeout));
}
