//! Feeds arbitrary text to the network filter's URL judge (§14, §15) under
//! a fixed policy. It must never panic, and whatever it accepts must
//! satisfy the rules: https to a declared host on 443 without credentials,
//! or http to 127.0.0.1/localhost on a declared, unreserved port. Judging
//! an accepted URL's serialisation again must give the same target, and the
//! text accepted must name that target as written (nothing repaired).

#![no_main]

use dcp_net::{judge_url, Policy, Target};
use libfuzzer_sys::fuzz_target;
use url::Host;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    let policy = Policy {
        hosts: vec!["api.example.com".into(), "cdn.example.com".into()],
        local_ports: vec![8420, 5000],
        dev_mode: true,
        // The URL rules are the same for a confirmed request: only its redirects differ.
        confirmed: false,
    };
    let Ok(target) = judge_url(raw, &policy) else {
        return;
    };
    let url = target.url();
    let written = raw.to_ascii_lowercase();
    let named = match &target {
        Target::Web { host, .. } => format!("https://{host}"),
        Target::Local { port, .. } => format!("http://{}:{port}", url.host_str().unwrap_or_default()),
    };
    assert!(written.starts_with(&named), "{raw} does not name {named}");
    assert!(url.username().is_empty() && url.password().is_none());
    assert!(url.fragment().is_none());
    match &target {
        Target::Web { url, host } => {
            assert_eq!(url.scheme(), "https");
            assert_eq!(url.port(), None);
            assert!(policy.hosts.contains(host));
            assert_eq!(url.host(), Some(Host::Domain(host.as_str())));
        }
        Target::Local { url, port } => {
            assert_eq!(url.scheme(), "http");
            assert!(*port == 8420, "5000 is declared but reserved");
            assert!(matches!(url.host_str(), Some("127.0.0.1") | Some("localhost")));
        }
    }
    assert_eq!(judge_url(url.as_str(), &policy).as_ref(), Ok(&target));
});
