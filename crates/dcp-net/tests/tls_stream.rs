//! `Client::connect_tls`, the Twitch chat's connection (issue 36), against
//! a TLS server on 127.0.0.1 with fake DNS answers (feature `test-net`):
//! the same judging, pinning, roots and deadline as a plugin request.

#![allow(missing_docs, clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use dcp_net::{Client, NetError, TestOverrides};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

const PORT: u16 = 6697;

/// A client whose fake zone sends `api.example.com:6697` to `to`, trusting
/// the test CA when `trust` is true.
fn client_to(to: SocketAddr, zone: &str, trust: bool) -> Client {
    let dns = TestOverrides::parse_dns(zone).unwrap();
    let connect = dns.iter().flat_map(|(_, ips)| ips.iter().map(|ip| (SocketAddr::new(*ip, PORT), to))).collect();
    let ca_pem = trust.then(|| pki().ca_pem.clone().into_bytes());
    Client::with_test_overrides(TestOverrides { dns, connect, ca_pem })
}

/// A TLS server that answers each line it reads with `echo ` and the line.
async fn echo_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let Ok(tls) = pki().acceptor.accept(tcp).await else { return };
                let (read, mut write) = tokio::io::split(tls);
                let mut lines = BufReader::new(read).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let _ = write.write_all(format!("echo {line}\r\n").as_bytes()).await;
                }
            });
        }
    });
    addr
}

#[tokio::test]
async fn issue36_connect_tls_reaches_the_pinned_server_with_the_name_checked() {
    let server = echo_server().await;
    let client = client_to(server, "api.example.com=93.184.216.34", true);
    let tls = client.connect_tls("api.example.com", PORT).await.unwrap();
    let (read, mut write) = tokio::io::split(tls);
    write.write_all(b"PING :tmi\r\n").await.unwrap();
    let line = BufReader::new(read).lines().next_line().await.unwrap();
    assert_eq!(line.as_deref(), Some("echo PING :tmi"));
}

#[tokio::test]
async fn issue36_connect_tls_refuses_an_untrusted_certificate_or_another_name() {
    let server = echo_server().await;
    let untrusted = client_to(server, "api.example.com=93.184.216.34", false);
    assert_eq!(untrusted.connect_tls("api.example.com", PORT).await.err(), Some(NetError::Tls));
    let not_in_the_certificate = client_to(server, "irc.chat.twitch.tv=93.184.216.34", true);
    assert_eq!(not_in_the_certificate.connect_tls("irc.chat.twitch.tv", PORT).await.err(), Some(NetError::Tls));
}

#[tokio::test]
async fn issue36_connect_tls_judges_the_name_like_a_plugin_request() {
    let server = echo_server().await;
    let client = client_to(server, "api.example.com=93.184.216.34,private.example.com=10.0.0.7", true);
    assert_eq!(client.connect_tls("private.example.com", PORT).await.err(), Some(NetError::PrivateAddress));
    assert_eq!(
        client.connect_tls("nowhere.example.com", PORT).await.err(),
        Some(NetError::DnsFailed { host: "nowhere.example.com".into() })
    );
    assert_eq!(client.connect_tls("93.184.216.34", PORT).await.err(), Some(NetError::BadUrl), "a name, not an IP");
    // The address is rewritten for port 6697 only: 443 goes nowhere.
    assert_eq!(client.connect_tls("api.example.com", 443).await.err(), Some(NetError::Network { local: false }));
}

#[tokio::test]
async fn issue36_connect_tls_gives_up_on_a_stalled_handshake_at_the_deadline() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = listener.local_addr().unwrap();
    // Accepts and never answers the handshake.
    let held = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((tcp, _)) = listener.accept().await {
            held.push(tcp);
        }
    });
    let client = client_to(server, "api.example.com=93.184.216.34", true).with_deadline(Duration::from_millis(300));
    assert_eq!(client.connect_tls("api.example.com", PORT).await.err(), Some(NetError::Timeout));
    held.abort();
}
