//! The network errors of a tool result (§22 "In a tool result").

use dcp_format::codes::{CallCode, ToolCode};

/// Why a plugin request did not produce an answer. Each variant maps to
/// exactly one code of §22 ([`NetError::code`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// A web URL that is not `https://` (§14).
    #[error("only HTTPS is allowed")]
    NotHttps,
    /// An `https://` URL on a port other than 443.
    #[error("only port 443 is allowed")]
    BadPort,
    /// A malformed URL, credentials in the URL, a trailing dot, an encoded
    /// or non-ASCII host, or a redirect that cannot be followed.
    #[error("the URL breaks a network rule")]
    BadUrl,
    /// The request could not be built (a header name or value that is not
    /// valid HTTP). The engine refuses these earlier; this is the backstop.
    #[error("the request could not be built")]
    BadRequest,
    /// An undeclared domain, or an IP address instead of a name.
    #[error("the host is not declared, or is an IP address")]
    HostNotAllowed,
    /// The name has no address: the PC may be offline, or the name wrong.
    #[error("the domain {host} could not be resolved: this PC may be offline, or the name may be misspelled")]
    DnsFailed {
        /// The name looked up.
        host: String,
    },
    /// A server on the PC on an undeclared or reserved port, or while
    /// developer mode is off (§15).
    #[error("this port of the PC is not allowed")]
    LocalPortNotAllowed,
    /// The name resolves to a private or reserved address (any answer).
    #[error("the domain resolves to a private or reserved address")]
    PrivateAddress,
    /// The answer is over 2 MB.
    #[error("the answer is over {} MB", dcp_format::limits::RESPONSE_BYTES / (1024 * 1024))]
    TooLarge,
    /// No complete answer within 20 s, redirects included.
    #[error("no answer within {} seconds", dcp_format::limits::CALL_SECONDS)]
    Timeout,
    /// A connection, TLS or transfer error. `local` is true for a server
    /// on the PC (the AI is told the program may not be running).
    #[error("connection error")]
    Network {
        /// The request went to a server on the PC.
        local: bool,
    },
    /// The TLS handshake of [`crate::Client::connect_tls`] failed: a
    /// certificate not trusted or not for the name, or a protocol error.
    /// NETWORK, like a plugin request's TLS failure.
    #[error("the secure connection failed: the server's certificate was not accepted")]
    Tls,
    /// More than 3 redirects.
    #[error("more than {} redirects", dcp_format::limits::REDIRECTS)]
    TooManyRedirects,
    /// A request the player confirmed (R3, §12) was redirected where they
    /// were not shown, or so that it would be sent again ([`crate::Policy::confirmed`]):
    /// not followed, nothing sent again. BAD_URL, "the URL broke a network
    /// rule (for example after a redirect)" (§22). Its text does not
    /// quote the server's URL: the AI reads it.
    #[error("the service answered the confirmed request with a redirect (HTTP {status}) that would send it again, or somewhere the player was not shown: it was not followed")]
    Redirected {
        /// The redirect's status.
        status: u16,
        /// Where it pointed, for the journal (`Incoming::final_url`'s twin).
        to: String,
    },
}

impl NetError {
    /// The code of §22.
    pub fn code(&self) -> ToolCode {
        let code = match self {
            NetError::NotHttps => CallCode::NotHttps,
            NetError::BadPort => CallCode::BadPort,
            NetError::BadUrl => CallCode::BadUrl,
            NetError::BadRequest => CallCode::BadRequest,
            NetError::HostNotAllowed => CallCode::HostNotAllowed,
            NetError::DnsFailed { .. } => CallCode::DnsFailed,
            NetError::LocalPortNotAllowed => CallCode::LocalPortNotAllowed,
            NetError::PrivateAddress => CallCode::PrivateAddress,
            NetError::TooLarge => CallCode::TooLarge,
            NetError::Timeout => CallCode::Timeout,
            NetError::Network { .. } | NetError::Tls => CallCode::Network,
            NetError::TooManyRedirects => CallCode::TooManyRedirects,
            NetError::Redirected { .. } => CallCode::BadUrl,
        };
        ToolCode::Call(code)
    }

    /// Whether §22 marks the error as worth retrying (TIMEOUT, NETWORK).
    pub fn retryable(&self) -> bool {
        self.code().retryable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s22_codes_and_retry() {
        let all = [
            (NetError::NotHttps, "NOT_HTTPS", false),
            (NetError::BadPort, "BAD_PORT", false),
            (NetError::BadUrl, "BAD_URL", false),
            (NetError::BadRequest, "BAD_REQUEST", false),
            (NetError::HostNotAllowed, "HOST_NOT_ALLOWED", false),
            (NetError::DnsFailed { host: "api.example.com".into() }, "DNS_FAILED", false),
            (NetError::LocalPortNotAllowed, "LOCAL_PORT_NOT_ALLOWED", false),
            (NetError::PrivateAddress, "PRIVATE_ADDRESS", false),
            (NetError::TooLarge, "TOO_LARGE", false),
            (NetError::Timeout, "TIMEOUT", true),
            (NetError::Network { local: true }, "NETWORK", true),
            (NetError::Network { local: false }, "NETWORK", true),
            (NetError::Tls, "NETWORK", true),
            (NetError::TooManyRedirects, "TOO_MANY_REDIRECTS", false),
            (NetError::Redirected { status: 307, to: "https://api.example.com/".into() }, "BAD_URL", false),
        ];
        for (error, code, retry) in all {
            assert_eq!(error.code().as_str(), code);
            assert_eq!(error.retryable(), retry, "{code}");
        }
    }
}
