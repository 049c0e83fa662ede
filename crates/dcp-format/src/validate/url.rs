//! Splitting a URL written in a manifest (request URLs of §8, help links of
//! §10) into scheme, host, port and the rest, strictly on the raw text.
//!
//! A general URL parser normalises (case, dots, percent-escapes, `\`) and
//! would let a reviewer see one host while the app reaches another; here
//! anything unusual is refused instead.

/// The parts of a manifest URL.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Parts<'a> {
    pub scheme: &'a str,
    pub host: &'a str,
    pub port: Option<&'a str>,
    pub has_credentials: bool,
    /// Everything from the first `/`, `?` or `#` after the host.
    pub rest: &'a str,
}

pub(super) fn split(raw: &str) -> Result<Parts<'_>, String> {
    if let Some(c) = raw
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || *c == '\\')
    {
        return Err(format!(
            "the URL contains {c:?}; spaces, control characters and backslashes are not allowed"
        ));
    }
    let (scheme, after) = raw
        .split_once("://")
        .ok_or("the URL must be absolute, starting with https://")?;
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((user, hp)) => (Some(user), hp),
        None => (None, authority),
    };
    let (host, port) = split_port(host_port);
    Ok(Parts {
        scheme,
        host,
        port,
        has_credentials: userinfo.is_some(),
        rest,
    })
}

fn split_port(host_port: &str) -> (&str, Option<&str>) {
    if host_port.starts_with('[') {
        return match host_port.find(']') {
            Some(i) => {
                let port = host_port[i + 1..].strip_prefix(':');
                (&host_port[..=i], port)
            }
            None => (host_port, None),
        };
    }
    match host_port.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (host_port, None),
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
        assert!(split("api.example.com/v1").is_err());
    }
}
