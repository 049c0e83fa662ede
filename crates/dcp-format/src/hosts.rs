//! The naming rules of §14 and §15: what counts as an exact public domain
//! name, and which ports of the PC are reserved.
//!
//! The validator applies them to the manifest; the network filter applies
//! the same functions at run time, so each rule is written once.

/// Top-level names that never reach a public site: the names §14 lists
/// (localhost, .local, .localhost, .internal) and the other special-use or
/// commonly private suffixes (RFC 6761, RFC 6762 appendix G, RFC 8375).
const PRIVATE_SUFFIXES: &[&str] = &[
    "localhost",
    "local",
    "internal",
    "invalid",
    "onion",
    "arpa",
    "test",
    "lan",
    "home",
    "corp",
    "intranet",
    "private",
    "localdomain",
];

/// Checks that `host` is an exact public domain name as §14 requires:
/// lowercase ASCII (punycode for other scripts), no wildcard, no IP address,
/// no port, no trailing dot, at least two labels, each 1–63 of `a-z 0-9 -`
/// not starting or ending with `-`, an alphabetic top-level label, and not
/// a private or special-use name. The error says what is wrong.
pub fn check_public_domain(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("the host is empty".into());
    }
    if host.len() > 253 {
        return Err(format!("{host} is longer than 253 characters"));
    }
    if host.contains('*') {
        return Err(format!("{host}: wildcards are not allowed; list each subdomain"));
    }
    if host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[') {
        return Err(format!("{host} is an IP address; declare a domain name"));
    }
    if host.contains(':') || host.contains('/') || host.contains('@') {
        return Err(format!("{host}: write the domain name alone, without scheme, port, path or credentials"));
    }
    if host.ends_with('.') {
        return Err(format!("{host}: remove the trailing dot"));
    }
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(format!("{host}: write the domain in lowercase"));
    }
    if !host.is_ascii() {
        return Err(format!("{host}: write a non-Latin domain in its ASCII (punycode, xn--) form"));
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 {
        return Err(format!("{host} is not a public domain name"));
    }
    if let Some(bad) = labels.iter().find(|l| !is_label(l)) {
        return Err(format!("{host}: \"{bad}\" is not a valid label (1 to 63 of a-z, 0-9 and -, not at either end)"));
    }
    let tld = labels[labels.len() - 1];
    if !(tld.bytes().all(|b| b.is_ascii_lowercase()) || tld.starts_with("xn--")) {
        return Err(format!("{host} does not end in a public top-level domain"));
    }
    if PRIVATE_SUFFIXES.contains(&tld) {
        return Err(format!("{host} is a local or private name (.{tld}); only public sites are allowed"));
    }
    Ok(())
}

fn is_label(label: &str) -> bool {
    (1..=63).contains(&label.len())
        && !label.starts_with('-')
        && !label.ends_with('-')
        && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Whether a URL's host names the player's own PC (§15): `127.0.0.1` or
/// `localhost`, exactly as written. The validator and the network filter
/// both ask this one function.
pub fn is_pc_host(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "localhost")
}

/// The port of the event door (§16), reserved for it (§15).
pub const EVENT_DOOR_PORT: u16 = 8440;

/// Ports of the PC no plugin may use (§15), with what uses them.
const RESERVED_PORTS: &[(u16, u16, &str)] = &[
    (0, 1023, "system services"),
    (5000, 5004, "Desktop Companion voice servers"),
    (EVENT_DOOR_PORT, EVENT_DOOR_PORT, "Desktop Companion plugin events"),
    (8650, 8799, "Desktop Companion built-in AI"),
    (8766, 8766, "Desktop Companion speech recognition"),
    (50021, 50021, "Desktop Companion Japanese voices"),
    (45000, 45999, "Desktop Companion bridge"),
    (1234, 1234, "LM Studio"),
    (11434, 11434, "Ollama"),
    (2375, 2376, "Docker"),
];

/// What uses a reserved port (§15), or `None` when a plugin may use it.
pub fn reserved_port(port: u16) -> Option<&'static str> {
    RESERVED_PORTS.iter().find(|(low, high, _)| (*low..=*high).contains(&port)).map(|(_, _, what)| *what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s14_public_domains_pass() {
        for ok in [
            "api.frankfurter.dev",
            "api.trello.com",
            "a.b.c.example.com",
            "xn--bcher-kva.example",
            "api-2.example.io",
            "api.tasks.example.com",
        ] {
            assert_eq!(check_public_domain(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn s14_everything_else_is_refused() {
        for bad in [
            "",
            "localhost",
            "printer.local",
            "app.localhost",
            "db.internal",
            "*.example.com",
            "127.0.0.1",
            "10.0.0.1",
            "::1",
            "[::1]",
            "Api.Example.com",
            "example.com.",
            "example",
            "example.com:443",
            "https://example.com",
            "user@example.com",
            "-a.example.com",
            "a-.example.com",
            "a..example.com",
            "bücher.example",
            "127.1",
            "example.123",
            "router.home",
            "site.test",
            "x.onion",
            "1.0.0.127.in-addr.arpa",
        ] {
            assert!(check_public_domain(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn s15_reserved_ports_on_both_sides_of_each_range() {
        for port in [0, 80, 1023, 5000, 5004, 8440, 8650, 8766, 8799, 50021, 45000, 45999, 1234, 11434, 2375, 2376] {
            assert!(reserved_port(port).is_some(), "{port}");
        }
        for port in [
            1024, 4999, 5005, 8420, 8421, 8439, 8441, 8649, 8800, 50020, 50022, 44999, 46000, 1233, 1235, 11433, 11435,
            2374, 2377, 65535,
        ] {
            assert!(reserved_port(port).is_none(), "{port}");
        }
    }
}
