//! Splitting a URL into scheme, host, port and the rest, strictly on the
//! raw text: the one splitter for a manifest's URLs (request URLs of §8,
//! help links of §10) and the help button's domain. (The network filter
//! judges a built URL with `url::Url`, the parse it sends, and refuses a
//! text that does not read as that parse.)
//!
//! A general URL parser normalises (case, dots, percent-escapes, `\`) and
//! would let a reviewer see one host while the app reaches another; here
//! anything unusual is refused instead.

/// The parts of a manifest URL.
#[derive(Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// As written, before `://`.
    pub scheme: &'a str,
    /// As written: a name, an IPv4 address, or `[v6]` with its brackets.
    pub host: &'a str,
    /// Digits only, 1 to 65535, when written.
    pub port: Option<&'a str>,
    /// A user or password before `@`.
    pub has_credentials: bool,
    /// Everything from the first `/`, `?` or `#` after the host.
    pub rest: &'a str,
}

/// The domain a help button shows, "Open example.com" (§10): an https
/// link's host without `www.`; none for anything else.
pub fn help_domain(url: &str) -> Option<String> {
    let parts = split(url).ok().filter(|p| p.scheme == "https")?;
    Some(parts.host.strip_prefix("www.").unwrap_or(parts.host).to_owned())
}

/// Splits `raw`; refuses whitespace, control characters, backslashes, a
/// relative URL, no host and a bad port, naming the URL.
pub fn split(raw: &str) -> Result<Parts<'_>, String> {
    if let Some(c) = raw.chars().find(|c| c.is_whitespace() || c.is_control() || *c == '\\') {
        return Err(format!("the URL contains {c:?}; spaces, control characters and backslashes are not allowed"));
    }
    let (scheme, after) = raw.split_once("://").ok_or("the URL must be absolute, starting with https://")?;
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((user, hp)) => (Some(user), hp),
        None => (None, authority),
    };
    let (host, port) = split_port(host_port).map_err(|why| format!("the URL {raw} {why}"))?;
    Ok(Parts { scheme, host, port, has_credentials: userinfo.is_some(), rest })
}

/// Splits `host[:port]` or `[v6][:port]`. A malformed authority (no host,
/// an empty, templated or non-numeric port) is refused here, so it is
/// reported as a malformed URL rather than judged as an odd host or port.
fn split_port(host_port: &str) -> Result<(&str, Option<&str>), &'static str> {
    let (host, port) = match host_port.find(']') {
        Some(i) if host_port.starts_with('[') => match &host_port[i + 1..] {
            "" => (&host_port[..=i], None),
            after => (&host_port[..=i], Some(after.strip_prefix(':').ok_or("has text after its [address]")?)),
        },
        _ => match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        },
    };
    if host.is_empty() {
        return Err("has no host");
    }
    match port {
        Some(port) if !port.bytes().all(|b| b.is_ascii_digit()) || !matches!(port.parse::<u16>(), Ok(1..)) => {
            Err("has a port that is not a number from 1 to 65535")
        }
        _ => Ok((host, port)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_parts() {
        let p = split("https://api.example.com/v1/{{id}}?a=b").expect("splits");
        assert_eq!(
            (p.scheme, p.host, p.port, p.has_credentials, p.rest),
            ("https", "api.example.com", None, false, "/v1/{{id}}?a=b")
        );
        let p = split("http://127.0.0.1:8420/time").expect("splits");
        assert_eq!((p.host, p.port), ("127.0.0.1", Some("8420")));
        let p = split("https://user:pw@example.com").expect("splits");
        assert!(p.has_credentials);
        assert_eq!(p.host, "example.com");
        let p = split("http://[::1]:80/").expect("splits");
        assert_eq!((p.host, p.port), ("[::1]", Some("80")));
        assert!(split("https://a.com\\@b.com/").is_err());
        for malformed in [
            "https:///v1/latest",
            "https://:443/x",
            "https://@/x",
            "http://127.0.0.1:/x",
            "http://127.0.0.1:0/x",
            "http://127.0.0.1:65536/x",
            "http://127.0.0.1:+80/x",
            "https://a.example.com:443:1/x",
            "http://[::1]x/",
        ] {
            let why = split(malformed).expect_err(malformed);
            assert!(why.contains(malformed), "{why}");
        }
        assert!(split("api.example.com/v1").is_err());
    }
}
