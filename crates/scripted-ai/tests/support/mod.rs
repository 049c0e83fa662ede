//! A real client for the tests: reqwest over rustls (ring), no proxy, no
//! redirects followed, reading a stream piece by piece as it arrives.

#![allow(dead_code)] // each test binary uses its own part

use serde_json::Value;

/// A client trusting `ca_pem` only (or nothing: plain HTTP only).
pub fn client(ca_pem: Option<&str>) -> reqwest::Client {
    builder(ca_pem).build().expect("client")
}

/// The same, to finish building (a name resolved to the server).
pub fn builder(ca_pem: Option<&str>) -> reqwest::ClientBuilder {
    let mut roots = rustls::RootCertStore::empty();
    if let Some(ca) = ca_pem {
        use rustls::pki_types::pem::PemObject;
        for cert in rustls::pki_types::CertificateDer::pem_slice_iter(ca.as_bytes()) {
            roots.add(cert.expect("CA PEM")).expect("CA");
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    reqwest::Client::builder().use_preconfigured_tls(tls).no_proxy().redirect(reqwest::redirect::Policy::none())
}

/// The `data:` payloads of a server-sent-events text, in order.
pub fn events(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter(|event| !event.is_empty())
        .map(|event| event.strip_prefix("data: ").expect("each event is one data line").to_owned())
        .collect()
}

/// The JSON events before `[DONE]`, which must be the last.
pub fn chunks(text: &str) -> Vec<Value> {
    let mut events = events(text);
    assert_eq!(events.pop().as_deref(), Some("[DONE]"), "the stream ends with [DONE]: {text}");
    events.iter().map(|event| serde_json::from_str(event).expect("a JSON chunk")).collect()
}

/// The only choice's delta of each chunk that has a choice.
pub fn deltas(chunks: &[Value]) -> Vec<&Value> {
    chunks.iter().filter_map(|chunk| chunk["choices"].get(0)).map(|choice| &choice["delta"]).collect()
}

/// A body parsed as JSON (reqwest's `json` feature is not built here: the workspace shares one reqwest).
pub fn json_of(text: &str) -> Value {
    serde_json::from_str(text).expect("a JSON body")
}
