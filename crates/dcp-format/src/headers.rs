//! The headers a plugin cannot set (§8): the validator refuses them at
//! import and the network filter ignores them at run time, both through
//! [`is_forbidden`], so the rule is written once.

/// Header names the app owns (§8), lowercase; any `proxy-*` too.
const FORBIDDEN: &[&str] = &[
    "host",
    "cookie",
    "set-cookie",
    "content-length",
    "connection",
    "transfer-encoding",
    "upgrade",
    "te",
    "trailer",
    "keep-alive",
    "origin",
    "referer",
    "user-agent",
];

/// True when a plugin may not set the header `name` (compared without case).
pub fn is_forbidden(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    FORBIDDEN.contains(&lower.as_str()) || lower.starts_with("proxy-")
}

#[cfg(test)]
mod tests {
    use super::is_forbidden;

    #[test]
    fn s8_forbidden_headers_in_any_case() {
        for name in ["Host", "COOKIE", "Set-Cookie", "User-Agent", "Proxy-Authorization", "proxy-x", "TE", "Referer"] {
            assert!(is_forbidden(name), "{name}");
        }
        for name in ["Authorization", "Accept", "X-Api-Key", "Content-Type", "Hosts"] {
            assert!(!is_forbidden(name), "{name}");
        }
    }
}
