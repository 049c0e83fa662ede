//! [`AiError`]: every way reaching the AI fails, each with its code and a
//! message a player can act on. Messages name the URL, never the key: a
//! service's own message is passed through only after the key is masked.

use std::time::Duration;

/// Why the AI could not be reached or did not answer usefully.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    /// The URL breaks a rule of [`crate::judge_ai_url`].
    #[error("{reason}: {hint}")]
    BadUrl {
        /// What is wrong.
        reason: String,
        /// What to type instead.
        hint: String,
    },
    /// The host is (or resolves to) a private or reserved address, so it is
    /// neither this PC nor an online service.
    #[error("{url} is a private or reserved address: an AI is either on this PC (127.0.0.1, localhost) or online on a public https address")]
    PrivateAddress {
        /// The URL as given.
        url: String,
    },
    /// Nothing answers: connection refused, the name not found, or the
    /// connection or its TLS failed.
    #[error("nothing answers at {url}: {advice}")]
    NotListening {
        /// The base URL.
        url: String,
        /// What to do (start which server, check which name).
        advice: String,
    },
    /// 401 or 403: the key is missing, wrong or not allowed.
    #[error("the AI at {url} refused the API key ({status}): set the service's key again")]
    KeyRefused {
        /// The base URL.
        url: String,
        /// 401 or 403.
        status: u16,
    },
    /// The service does not know the model.
    #[error("the AI at {url} does not know the model {model:?}: {message}")]
    ModelUnknown {
        /// The base URL.
        url: String,
        /// The model asked for.
        model: String,
        /// The service's message.
        message: String,
    },
    /// The model cannot use tools (Ollama: 400 "does not support tools").
    #[error("the model {model:?} at {url} cannot use tools: choose a model that supports tool calling ({message})")]
    NoTools {
        /// The base URL.
        url: String,
        /// The model asked for.
        model: String,
        /// The service's message.
        message: String,
    },
    /// No first byte, or no next piece of the answer, in time ([`crate::Limits`]).
    #[error("the AI at {url} did not answer within {} s", waited.as_secs_f32())]
    Timeout {
        /// The base URL.
        url: String,
        /// The limit that ran out.
        waited: Duration,
    },
    /// An answer that did not end within its limit ([`crate::Limits::answer`]:
    /// a stream kept open by keep-alive comments or empty chunks), or a
    /// turn past its own (issue 32): the turn was ended.
    #[error("the AI at {url} did not finish within {} s (an answer and a whole turn each have a time limit): the turn was ended", limit.as_secs_f32())]
    TurnTooLong {
        /// The base URL.
        url: String,
        /// The limit that ran out.
        limit: Duration,
    },
    /// The service answered with a redirect, which is never followed.
    #[error("the AI at {url} answered with a redirect ({status}{}), which is not followed: type the URL it points to instead", location.as_deref().map(|l| format!(" to {l}")).unwrap_or_default())]
    Redirect {
        /// The base URL.
        url: String,
        /// The 3xx status.
        status: u16,
        /// Where it pointed, if it said.
        location: Option<String>,
    },
    /// Any other HTTP error, with the service's message (key masked).
    #[error("the AI at {url} answered {status}: {message}")]
    Http {
        /// The base URL.
        url: String,
        /// The status (200 for an error sent inside the stream).
        status: u16,
        /// The service's message.
        message: String,
    },
    /// The answer is not what the wire format says (not SSE, not JSON).
    #[error("the AI at {url} sent an answer that cannot be read: {detail}")]
    BadAnswer {
        /// The base URL.
        url: String,
        /// What was wrong.
        detail: String,
    },
}

dcp_format::spelled! {
    /// The code of each way reaching the AI fails, as the CLI's `--json`
    /// and the host's API errors spell it. `ai_not_set` is the host's: no
    /// URL or no model is set, so there is nothing to reach.
    pub enum AiCode {
        NotSet => "ai_not_set",
        BadUrl => "ai_bad_url",
        PrivateAddress => "ai_private_address",
        NotListening => "ai_not_listening",
        KeyRefused => "ai_key_refused",
        ModelUnknown => "ai_model_unknown",
        NoTools => "ai_no_tools",
        Timeout => "ai_timeout",
        TurnTooLong => "ai_turn_too_long",
        Redirect => "ai_redirect",
        Http => "ai_http",
        BadAnswer => "ai_bad_answer",
    }
}

impl AiError {
    /// The error's code.
    pub fn ai_code(&self) -> AiCode {
        match self {
            AiError::BadUrl { .. } => AiCode::BadUrl,
            AiError::PrivateAddress { .. } => AiCode::PrivateAddress,
            AiError::NotListening { .. } => AiCode::NotListening,
            AiError::KeyRefused { .. } => AiCode::KeyRefused,
            AiError::ModelUnknown { .. } => AiCode::ModelUnknown,
            AiError::NoTools { .. } => AiCode::NoTools,
            AiError::Timeout { .. } => AiCode::Timeout,
            AiError::TurnTooLong { .. } => AiCode::TurnTooLong,
            AiError::Redirect { .. } => AiCode::Redirect,
            AiError::Http { .. } => AiCode::Http,
            AiError::BadAnswer { .. } => AiCode::BadAnswer,
        }
    }

    /// The code as spelled ([`AiError::ai_code`]).
    pub fn code(&self) -> &'static str {
        self.ai_code().as_str()
    }

    /// What to type instead, for a URL refused by [`crate::judge_ai_url`].
    pub fn hint(&self) -> Option<&str> {
        match self {
            AiError::BadUrl { hint, .. } => Some(hint),
            AiError::PrivateAddress { .. } => {
                Some("type http://127.0.0.1:PORT/v1 for this PC, or the https URL of an online service")
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code() {
        let url = || "http://127.0.0.1:11434/v1".to_owned();
        let all = [
            (AiError::BadUrl { reason: "r".into(), hint: "h".into() }, "ai_bad_url"),
            (AiError::PrivateAddress { url: url() }, "ai_private_address"),
            (AiError::NotListening { url: url(), advice: "a".into() }, "ai_not_listening"),
            (AiError::KeyRefused { url: url(), status: 401 }, "ai_key_refused"),
            (AiError::ModelUnknown { url: url(), model: "m".into(), message: "x".into() }, "ai_model_unknown"),
            (AiError::NoTools { url: url(), model: "m".into(), message: "x".into() }, "ai_no_tools"),
            (AiError::Timeout { url: url(), waited: Duration::from_secs(1) }, "ai_timeout"),
            (AiError::TurnTooLong { url: url(), limit: Duration::from_secs(180) }, "ai_turn_too_long"),
            (AiError::Redirect { url: url(), status: 302, location: None }, "ai_redirect"),
            (AiError::Http { url: url(), status: 500, message: "x".into() }, "ai_http"),
            (AiError::BadAnswer { url: url(), detail: "x".into() }, "ai_bad_answer"),
        ];
        for (error, code) in all {
            assert_eq!(error.code(), code);
            if code != "ai_bad_url" {
                assert!(error.to_string().contains("127.0.0.1:11434"), "{code}: {error}");
            }
        }
    }
}
