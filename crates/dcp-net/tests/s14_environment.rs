//! Process-wide environment: proxy variables are ignored (§14 "no other way
//! out"), and the `DCPLUGIN_TEST_*` variables of the `test-net` feature are
//! read by `Client::new()`. One test, alone in its binary, because it sets
//! environment variables.

#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use dcp_net::{Client, Policy};

#[tokio::test]
async fn s14_proxy_variables_are_ignored_and_test_variables_are_read() {
    // A "proxy" on loopback that counts connections and answers nothing.
    let proxy = bind_unreserved().await;
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = connections.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = proxy.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });

    let web = https_server(|_| Reply::json(r#"{"web":true}"#)).await;
    let local = http_server(|_| Reply::json(r#"{"local":true}"#)).await;
    let ca_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(ca_file.path(), &pki().ca_pem).unwrap();

    for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"] {
        std::env::set_var(name, &proxy_url);
    }
    std::env::remove_var("NO_PROXY");
    std::env::remove_var("no_proxy");
    std::env::set_var(
        "DCPLUGIN_TEST_DNS",
        "api.example.com=93.184.216.34,multi.example.com=93.184.216.35|10.0.0.7,v6.example.com=[2606:2800:220:1::1]",
    );
    std::env::set_var("DCPLUGIN_TEST_CONNECT", format!("93.184.216.34:443={0},[2606:2800:220:1::1]:443={0}", web.addr));
    std::env::set_var("DCPLUGIN_TEST_CA", ca_file.path());

    // Control: a default reqwest client would use the proxy.
    // (reqwest is built without a crypto provider; the control needs one.)
    let _ = rustls::crypto::ring::default_provider().install_default();
    let naive = reqwest::Client::new();
    let _ = naive.get(format!("http://127.0.0.1:{}/", local.port())).send().await;
    assert_eq!(connections.load(Ordering::SeqCst), 1, "control: reqwest reads the proxy variables");
    assert_eq!(local.hits(), 0);

    let client = Client::new();
    let policy = Policy {
        hosts: vec!["api.example.com".into(), "v6.example.com".into(), "multi.example.com".into()],
        local_ports: vec![local.port()],
        dev_mode: true,
        confirmed: false,
    };
    let answer = client.send(get("https://api.example.com/x"), &policy).await.unwrap();
    assert_eq!(answer.body, br#"{"web":true}"#);
    let answer = client.send(get("https://v6.example.com/x"), &policy).await.unwrap();
    assert_eq!(answer.body, br#"{"web":true}"#);
    assert_eq!(client.send(get("https://multi.example.com/"), &policy).await, Err(dcp_net::NetError::PrivateAddress));
    let answer = client.send(get(&format!("http://localhost:{}/x", local.port())), &policy).await.unwrap();
    assert_eq!(answer.body, br#"{"local":true}"#);

    assert_eq!(connections.load(Ordering::SeqCst), 1, "the filter never uses a proxy");
    assert_eq!(web.hits(), 2);
    assert_eq!(local.hits(), 1);
}
