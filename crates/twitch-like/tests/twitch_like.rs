//! The Twitch-like server through a real TLS client trusting its test CA:
//! the greeting and the JOIN as Twitch answers them, what the test drives
//! (a viewer's message, a deletion, a ban, a timeout, a clear, PING,
//! RECONNECT, a dropped connection) read back with the app's own parser
//! (`dcp_twitch::parse`), the record of what was received, and the binary
//! driven over its standard input.

use std::sync::Arc;
use std::time::Duration;

use dcp_twitch::{parse, Message};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, Lines, ReadHalf, WriteHalf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use twitch_like::TwitchLike;

/// How long a read waits before the test fails (the server answers at once; this only stops a hang).
const READ_LIMIT: Duration = Duration::from_secs(10);

/// A client as the app's: TLS to `irc.chat.twitch.tv` trusting only the test CA.
struct Client {
    lines: Lines<BufReader<ReadHalf<TlsStream<TcpStream>>>>,
    writer: WriteHalf<TlsStream<TcpStream>>,
}

impl Client {
    async fn connect(port: u16, ca_pem: &str) -> Client {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, ServerName};
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(cert.expect("a PEM certificate")).expect("a CA certificate");
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        let tcp = TcpStream::connect(("127.0.0.1", port)).await.expect("connects");
        let name = ServerName::try_from(twitch_like::HOST).expect("a DNS name");
        let tls = tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp).await.expect("TLS handshake");
        let (reader, writer) = tokio::io::split(tls);
        Client { lines: BufReader::new(reader).lines(), writer }
    }

    async fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).await.expect("writes");
        self.writer.flush().await.expect("flushes");
    }

    /// The next line, or `None` once the server closed the connection.
    async fn line(&mut self) -> Option<String> {
        let read = tokio::time::timeout(READ_LIMIT, self.lines.next_line()).await.expect("a line within 10 s");
        read.ok().flatten()
    }

    async fn expect_line(&mut self) -> String {
        self.line().await.expect("a line before the connection ended")
    }

    /// Connects, sends the app's hello for `channel`, reads up to the JOIN's ROOMSTATE; returns the lines read.
    async fn joined(port: u16, ca_pem: &str, channel: &str) -> (Client, Vec<String>) {
        let mut client = Client::connect(port, ca_pem).await;
        client.send(&dcp_twitch::hello(channel).expect("a channel name")).await;
        let mut greeting = Vec::new();
        while !greeting.last().is_some_and(|line: &String| line.contains(" ROOMSTATE ")) {
            greeting.push(client.expect_line().await);
        }
        (client, greeting)
    }
}

#[tokio::test]
async fn a_client_is_greeted_and_joined_as_twitch_does() {
    let twitch = TwitchLike::start().await.expect("starts");
    let (_client, greeting) = Client::joined(twitch.port(), twitch.ca_pem(), "#Streamer").await;
    twitch.joined("streamer").await;

    let commands: Vec<&str> = greeting
        .iter()
        .map(|line| line.split(' ').find(|word| !word.starts_with(['@', ':'])).unwrap_or_default())
        .collect();
    assert_eq!(commands, ["CAP", "001", "002", "003", "004", "375", "372", "376", "JOIN", "353", "366", "ROOMSTATE"]);
    assert_eq!(greeting[0], ":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands");
    assert_eq!(greeting[1], ":tmi.twitch.tv 001 justinfan12345 :Welcome, GLHF!");
    assert_eq!(greeting[8], ":justinfan12345!justinfan12345@justinfan12345.tmi.twitch.tv JOIN #streamer");
    assert!(greeting[11].starts_with("@emote-only=0;followers-only=-1;r9k=0;room-id="), "{}", greeting[11]);
    assert!(greeting.iter().all(|line| parse(line.as_bytes()).is_ok()), "{greeting:?}");

    let received = twitch.received();
    assert_eq!(received, ["CAP REQ :twitch.tv/tags twitch.tv/commands", "NICK justinfan12345", "JOIN #streamer"]);
    assert_eq!((twitch.connections(), twitch.joins()), (1, 1));
}

#[tokio::test]
async fn its_env_sends_the_apps_connection_to_twitchs_real_name_and_port_here() {
    let twitch = TwitchLike::start().await.expect("starts");
    let env: std::collections::HashMap<String, String> = twitch.env().into_iter().collect();
    let overrides = dcp_net::TestOverrides {
        dns: dcp_net::TestOverrides::parse_dns(&env["DCPLUGIN_TEST_DNS"]).expect("DNS hook"),
        connect: dcp_net::TestOverrides::parse_connect(&env["DCPLUGIN_TEST_CONNECT"]).expect("connect hook"),
        ca_pem: Some(std::fs::read(&env["DCPLUGIN_TEST_CA"]).expect("the CA file")),
    };
    let client = dcp_net::Client::with_test_overrides(overrides);
    let tls = client.connect_tls("irc.chat.twitch.tv", 6697).await.expect("reaches the server");
    let (reader, mut writer) = tokio::io::split(tls);
    writer.write_all(dcp_twitch::hello("streamer").expect("a channel").as_bytes()).await.expect("writes");
    twitch.joined("streamer").await;
    let first = BufReader::new(reader).lines().next_line().await.expect("reads");
    assert_eq!(first.as_deref(), Some(":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands"));
}

#[tokio::test]
async fn what_the_test_drives_reaches_the_client_as_twitch_sends_it() {
    let twitch = TwitchLike::start().await.expect("starts");
    let (mut client, _) = Client::joined(twitch.port(), twitch.ca_pem(), "streamer").await;

    // A display name and a text with the characters IRCv3 escapes in tags: the app reads them back whole.
    let id = twitch.say("streamer", "viewer_1", "Vïewer; One", "!ask what's 20 euros in yen; \\ ok");
    let line = client.expect_line().await;
    let keys: Vec<&str> =
        line[1..line.find(' ').unwrap_or(1)].split(';').map(|t| t.split('=').next().unwrap_or_default()).collect();
    assert_eq!(
        keys,
        [
            "badge-info",
            "badges",
            "color",
            "display-name",
            "emotes",
            "first-msg",
            "flags",
            "id",
            "mod",
            "returning-chatter",
            "room-id",
            "subscriber",
            "tmi-sent-ts",
            "turbo",
            "user-id",
            "user-type"
        ]
    );
    assert!(line.contains(" :viewer_1!viewer_1@viewer_1.tmi.twitch.tv PRIVMSG #streamer :!ask"), "{line}");
    let Ok(Message::Privmsg(message)) = parse(line.as_bytes()) else { panic!("not a PRIVMSG: {line}") };
    assert_eq!(message.login, "viewer_1");
    assert_eq!(message.display_name.as_deref(), Some("Vïewer; One"));
    assert_eq!(message.text, "!ask what's 20 euros in yen; \\ ok");
    assert_eq!(message.msg_id.as_deref(), Some(id.as_str()));
    assert_eq!(message.channel, "streamer");
    assert!(!message.moderator);

    twitch.say_as_mod("streamer", "a_mod", "A_Mod", "hello");
    let Ok(Message::Privmsg(message)) = parse(client.expect_line().await.as_bytes()) else { panic!("not a PRIVMSG") };
    assert!(message.moderator);

    twitch.delete("streamer", &id);
    let line = client.expect_line().await;
    assert!(line.starts_with("@login=viewer_1;room-id="), "{line}");
    assert!(line.ends_with(" :tmi.twitch.tv CLEARMSG #streamer :!ask what's 20 euros in yen; \\ ok"), "{line}");
    assert_eq!(parse(line.as_bytes()), Ok(Message::ClearMsg { target_msg_id: id }));

    twitch.ban("streamer", "viewer_1");
    let line = client.expect_line().await;
    assert!(line.starts_with("@room-id=") && line.contains(";target-user-id="), "{line}");
    assert_eq!(parse(line.as_bytes()), Ok(Message::ClearChat { login: Some("viewer_1".into()) }));

    twitch.timeout("streamer", "viewer_2", 600);
    let line = client.expect_line().await;
    assert!(line.starts_with("@ban-duration=600;room-id="), "{line}");
    assert_eq!(parse(line.as_bytes()), Ok(Message::ClearChat { login: Some("viewer_2".into()) }));

    twitch.clear("streamer");
    let line = client.expect_line().await;
    assert!(!line.contains("target-user-id"), "{line}");
    assert_eq!(parse(line.as_bytes()), Ok(Message::ClearChat { login: None }));

    twitch.ping();
    let line = client.expect_line().await;
    assert_eq!(line, "PING :tmi.twitch.tv");
    let Ok(Message::Ping(ping)) = parse(line.as_bytes()) else { panic!("not a PING: {line}") };
    client.send(&ping.pong()).await;
    twitch.ponged(1).await;
    assert_eq!(twitch.received().last().map(String::as_str), Some("PONG :tmi.twitch.tv"));

    twitch.reconnect();
    assert_eq!(parse(client.expect_line().await.as_bytes()), Ok(Message::Reconnect));
    assert_eq!(client.line().await, None, "the server closes the connection after RECONNECT");
}

#[tokio::test]
async fn a_channel_message_reaches_only_the_connections_in_that_channel() {
    let twitch = TwitchLike::start().await.expect("starts");
    let (mut client, _) = Client::joined(twitch.port(), twitch.ca_pem(), "streamer").await;
    twitch.say("elsewhere", "viewer", "Viewer", "not for you");
    twitch.say("streamer", "viewer", "Viewer", "for you");
    let Ok(Message::Privmsg(message)) = parse(client.expect_line().await.as_bytes()) else { panic!("not a PRIVMSG") };
    assert_eq!(message.text, "for you");
}

#[tokio::test]
async fn a_client_parts_pings_and_is_told_what_twitch_does_not_know() {
    let twitch = TwitchLike::start().await.expect("starts");
    let (mut client, _) = Client::joined(twitch.port(), twitch.ca_pem(), "streamer").await;
    client.send("CAP REQ :twitch.tv/unknown\r\nPING :hello\r\nWHO #streamer\r\nPART #streamer\r\n").await;
    assert_eq!(client.expect_line().await, ":tmi.twitch.tv CAP * NAK :twitch.tv/unknown");
    assert_eq!(client.expect_line().await, ":tmi.twitch.tv PONG tmi.twitch.tv :hello");
    assert_eq!(client.expect_line().await, ":tmi.twitch.tv 421 justinfan12345 WHO :Unknown command");
    assert_eq!(
        client.expect_line().await,
        ":justinfan12345!justinfan12345@justinfan12345.tmi.twitch.tv PART #streamer"
    );
    // Parted: the channel's messages no longer come; a line for every connection still does.
    twitch.say("streamer", "viewer", "Viewer", "not for you");
    twitch.send_raw(":tmi.twitch.tv NOTICE * :for everyone");
    assert_eq!(client.expect_line().await, ":tmi.twitch.tv NOTICE * :for everyone");
}

#[tokio::test]
async fn a_client_that_comes_back_joins_again() {
    let twitch = TwitchLike::start().await.expect("starts");
    let (mut first, _) = Client::joined(twitch.port(), twitch.ca_pem(), "streamer").await;
    twitch.drop_all();
    assert_eq!(first.line().await, None, "closed without a word");
    let (_second, _) = Client::joined(twitch.port(), twitch.ca_pem(), "streamer").await;
    twitch.joined_times("streamer", 2).await;
    assert_eq!((twitch.connections(), twitch.joins()), (2, 2));
}

#[tokio::test]
async fn a_line_longer_than_8_kib_closes_the_connection() {
    let twitch = TwitchLike::start().await.expect("starts");
    let (mut client, _) = Client::joined(twitch.port(), twitch.ca_pem(), "streamer").await;
    client.send(&format!("PRIVMSG #streamer :{}\r\n", "a".repeat(8192))).await;
    assert_eq!(client.line().await, None);
    assert_eq!(twitch.received().len(), 3, "the long line is not recorded");
}

#[tokio::test]
async fn a_login_other_than_the_anonymous_one_is_refused_as_twitch_refuses_it() {
    let twitch = TwitchLike::start().await.expect("starts");
    let mut client = Client::connect(twitch.port(), twitch.ca_pem()).await;
    client.send("PASS oauth:nothing\r\nNICK somebody\r\n").await;
    let line = client.expect_line().await;
    assert_eq!(line, ":tmi.twitch.tv NOTICE * :Login authentication failed");
    assert!(matches!(parse(line.as_bytes()), Ok(Message::Notice { .. })));
    assert_eq!(client.line().await, None);
}

#[tokio::test]
async fn the_binary_is_driven_over_its_standard_input() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let ca = dir.path().join("ca.pem");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_twitch-like"))
        .arg("--ca-out")
        .arg(&ca)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();

    let listening = next_line(&mut stdout).await;
    let port: u16 = listening.strip_prefix("listening 127.0.0.1:").and_then(|p| p.parse().ok()).expect(&listening);
    let ca_pem = std::fs::read_to_string(&ca).expect("the CA written");
    let (mut client, _) = Client::joined(port, &ca_pem, "streamer").await;
    assert_eq!(next_line(&mut stdout).await, "connected 1");
    assert_eq!(next_line(&mut stdout).await, "joined #streamer");

    stdin.write_all(b"say streamer viewer Viewer hello  there\n").await.expect("writes");
    let said = next_line(&mut stdout).await;
    let id = said.strip_prefix("said ").expect(&said);
    let Ok(Message::Privmsg(message)) = parse(client.expect_line().await.as_bytes()) else { panic!("not a PRIVMSG") };
    assert_eq!((message.msg_id.as_deref(), message.text.as_str()), (Some(id), "hello  there"));

    stdin.write_all(b"ping\n").await.expect("writes");
    assert_eq!(client.expect_line().await, "PING :tmi.twitch.tv");
    client.send("PONG :tmi.twitch.tv\r\n").await;
    assert_eq!(next_line(&mut stdout).await, "pong");

    stdin.write_all(b"drop\n").await.expect("writes");
    assert_eq!(client.line().await, None);
    assert_eq!(next_line(&mut stdout).await, "closed 1");

    drop(stdin);
    let status = tokio::time::timeout(READ_LIMIT, child.wait()).await.expect("ends").expect("waits");
    assert!(status.success(), "{status}");
}

async fn next_line<R: AsyncRead + Unpin>(lines: &mut Lines<BufReader<R>>) -> String {
    let read = tokio::time::timeout(READ_LIMIT, lines.next_line()).await.expect("a line within 10 s");
    read.expect("reads").expect("a line before the end")
}
