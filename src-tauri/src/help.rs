//! Help links come from plugin manifests: the shell opens only https pages
//! with them, never a file, a program or another scheme the OS would run.

use dcp_host::{ApiError, ErrorCode, HostCode};
use url::Url;

/// The link, when it is an https URL with a host; else `bad_input`.
pub fn https_url(text: &str) -> Result<Url, ApiError> {
    let refused =
        || ApiError::new(ErrorCode::Host(HostCode::BadInput), format!("only https links open from the app: {text}"));
    let url = Url::parse(text).map_err(|_| refused())?;
    if url.scheme() != "https" || url.host_str().is_none_or(str::is_empty) {
        return Err(refused());
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::https_url;

    #[test]
    fn an_https_link_opens() {
        let url = https_url("https://example.com/keys?x=1").expect("https");
        assert_eq!(url.as_str(), "https://example.com/keys?x=1");
    }

    #[test]
    fn anything_but_https_is_bad_input() {
        for link in ["http://example.com", "file:///etc/passwd", "javascript:alert(1)", "ssh://host", "example.com", ""]
        {
            let error = https_url(link).expect_err(link);
            assert_eq!(error.code.as_str(), "bad_input", "{link}");
        }
    }
}
