//! The companion's AI as the host keeps it (issue 22, §13): its base URL,
//! its model and its API key, and the [`dcp_ai::Connection`] made of them.
//! A URL is judged before it is kept ([`dcp_ai::judge_ai_url`]): where the
//! AI runs follows from it, never from a switch. The key goes to the vault
//! and comes back out only into a connection to the origin it was given
//! for: scheme, host and port (issue 32: two ports of this PC are two
//! programs). A URL of another origin forgets it, and the answer says so
//! ([`AiSettings::key_forgotten`]): the player types it again.
//!
//! The most tokens one answer may have is the player's too (issue 34),
//! within [`AnswerLength`]'s bounds, judged here once for every shell: a
//! looping model is cut there instead of streaming until its context is
//! full, and every turn's connection carries it.

use crate::{ApiError, ApiResult, ErrorCode, Host, HostCode};
use dcp_ai::{judge_ai_url, AiCode, AiError, AiUrl, Connection, Found, KnownServer, PcServer, Place};
use dcp_store::KeyOrigin;
use dcp_vault::Sensitive;
use serde::Serialize;

/// The companion's AI as the profile keeps it: never the key itself.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AiSettings {
    /// The base URL (`…/v1`), when set.
    pub url: Option<String>,
    /// The model's name, when set.
    pub model: Option<String>,
    /// Where the AI runs, from the URL (absent while no URL is set).
    #[serde(rename = "where")]
    pub place: Option<Place>,
    /// An API key is kept for this URL's origin (scheme, host and port).
    pub key_set: bool,
    /// A key was kept, but for another origin than this URL's: forgotten
    /// by this change of URL, or a key of an older version, bound to a
    /// host only, with a URL whose port is not its scheme's default. The
    /// player types the key again (issue 32). Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub key_forgotten: bool,
    /// The server of this PC usually at the URL's port (Ollama on 11434…);
    /// absent for another port or an online AI.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub server: Option<KnownServer>,
    /// The most tokens one answer may have: the player's setting, else
    /// the default (issue 34).
    pub max_tokens: u32,
    /// What the player may set it to.
    pub max_tokens_bounds: AnswerLength,
}

/// The bounds of the answer length a player may set (issue 34), and its
/// default: a fact for the shells' words, the rule itself
/// [`AnswerLength::judge`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AnswerLength {
    /// The fewest: enough for a short answer or one tool call, and small
    /// enough to show the cut on purpose.
    pub min: u32,
    /// The most: the largest context a model on a PC usually has; an answer
    /// cannot be longer than its model's context anyway.
    pub max: u32,
    /// Unless the player sets another ([`Connection::MAX_TOKENS`]).
    pub default: u32,
}

impl AnswerLength {
    /// The only bounds.
    pub const BOUNDS: AnswerLength = AnswerLength { min: 16, max: 32_768, default: Connection::MAX_TOKENS };

    /// The answer length of a kept setting: the player's, else the default;
    /// within today's bounds whatever an older version kept.
    fn of(self, kept: Option<u32>) -> u32 {
        kept.map_or(self.default, |n| n.clamp(self.min, self.max))
    }

    /// A number of tokens as the player typed it: a whole number within the
    /// bounds, or `bad_input` saying which.
    fn judge(self, typed: &str) -> ApiResult<u32> {
        let bad = || {
            ApiError::new(
                ErrorCode::Host(HostCode::BadInput),
                format!(
                    "the answer length must be a whole number of tokens from {} to {} ({} unless set), not {:?}",
                    self.min,
                    self.max,
                    self.default,
                    typed.chars().take(40).collect::<String>()
                ),
            )
        };
        let n: u32 = typed.trim().parse().map_err(|_| bad())?;
        (self.min..=self.max).contains(&n).then_some(n).ok_or_else(bad)
    }
}

/// What reaching the AI found: its models, or why it could not be reached.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AiTest {
    /// Reached, and the model (when one is set) is among its models.
    pub ok: bool,
    /// Where the AI runs (absent while no URL is set).
    #[serde(rename = "where")]
    pub place: Option<Place>,
    /// The models it lists.
    pub models: Vec<String>,
    /// Why not, when not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<AiCode>,
    /// What to do, when not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether the model can use tools (the player's plugins), as the server
    /// of this PC serving it says; `null` when unknown: not ok, an online
    /// AI (not asked), or a server that does not say (issue 34).
    pub tools: Option<bool>,
    /// The server of this PC that said so, else the one usually at the
    /// URL's port; absent when neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub server: Option<KnownServer>,
    /// A model of that server that can use tools, to name when this one
    /// cannot (`tools: false`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "string"))]
    pub tool_model: Option<&'static str>,
    /// `tools` was learnt by trying, one small chat request with a tool
    /// ([`dcp_ai::Connection::probe_tools`]), the server of this PC not
    /// saying it in its own API. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub probed: bool,
}

/// An AI server found on this PC's usual ports.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FoundAi {
    /// Its base URL.
    pub url: String,
    /// Its models (maybe none yet).
    pub models: Vec<String>,
    /// Which known server usually answers there.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub server: Option<KnownServer>,
}

impl From<Found> for FoundAi {
    fn from(found: Found) -> FoundAi {
        let Found { url, models } = found;
        FoundAi { server: PcServer::at(&url).map(PcServer::known), url: url.as_str().to_owned(), models }
    }
}

impl Host {
    /// The companion's AI.
    pub async fn ai(&self) -> ApiResult<AiSettings> {
        self.read(|s| Ok(settings(s.ai()?))).await
    }

    /// Sets the URL and/or the model (`None` keeps what is there). A URL
    /// that breaks the rules of §13 is refused with its code and nothing
    /// changes; a URL of another origin (scheme, host or port) forgets the
    /// API key, which was given for the old one, and says so
    /// ([`AiSettings::key_forgotten`]).
    pub async fn set_ai(&self, url: Option<String>, model: Option<String>) -> ApiResult<AiSettings> {
        let judged = url.as_deref().map(judge_ai_url).transpose()?;
        if model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(ApiError::new(ErrorCode::Ai(AiCode::ModelUnknown), "the model's name is empty"));
        }
        self.read(move |s| {
            let forgotten = match &judged {
                Some(url) => for_origin(url, |to| s.set_ai(Some((url.as_str(), to)), model.as_deref()))?,
                None => s.set_ai(None, model.as_deref())?,
            };
            let now = settings(s.ai()?);
            Ok(AiSettings { key_forgotten: now.key_forgotten || forgotten, ..now })
        })
        .await
    }

    /// Sets the most tokens one answer may have, as the player typed it (a
    /// whole number within [`AnswerLength::BOUNDS`], else `bad_input` and
    /// nothing changes); `None` goes back to the default. Kept whether or
    /// not an AI is set.
    pub async fn set_ai_max_tokens(&self, typed: Option<String>) -> ApiResult<AiSettings> {
        let max_tokens = typed.as_deref().map(|t| AnswerLength::BOUNDS.judge(t)).transpose()?;
        self.read(move |s| {
            s.set_ai_max_tokens(max_tokens)?;
            Ok(settings(s.ai()?))
        })
        .await
    }

    /// Keeps the service's API key, sealed by the vault, for the current
    /// URL's origin. Refused while no URL is set (`ai_not_set`).
    pub async fn set_ai_key(&self, key: Sensitive) -> ApiResult<AiSettings> {
        self.read(move |s| {
            let url = stored_url(&s.ai()?)?;
            for_origin(&url, |to| s.set_ai_key(&to, &key))?;
            Ok(settings(s.ai()?))
        })
        .await
    }

    /// Forgets the API key.
    pub async fn clear_ai_key(&self) -> ApiResult<AiSettings> {
        self.read(|s| {
            s.clear_ai_key()?;
            Ok(settings(s.ai()?))
        })
        .await
    }

    /// The connection to the companion's AI, its key opened from the
    /// vault, its answers as long as the player set. `ai_not_set` while the
    /// URL or the model is missing.
    pub async fn ai_connection(&self) -> ApiResult<Connection> {
        self.read(|s| {
            let stored = s.ai()?;
            let url = stored_url(&stored)?;
            let Some(model) = stored.model.filter(|m| !m.is_empty()) else {
                return Err(not_set("no model is set"));
            };
            let key = for_origin(&url, |to| s.ai_key(&to))?;
            Ok(Connection::new(url, model, key).with_max_tokens(AnswerLength::BOUNDS.of(stored.max_tokens)))
        })
        .await
    }

    /// Reaches the AI and lists its models; a set model that it does not
    /// list is `ai_model_unknown`. Then, on this PC, asks the server whether
    /// the model can use tools ([`dcp_ai::Connection::tool_support`]) and,
    /// when it does not say, tries one small chat request with a tool
    /// ([`dcp_ai::Connection::probe_tools`]) when `probe` says the player
    /// asked for this test and waits for it (Test, `dcplugin ai test`); a
    /// look the window takes by itself (its AI settings opening) asks
    /// without it, as the probe may load the model. A fact, not a failure:
    /// the test stays ok either way. An online AI is sent no chat request
    /// (it may cost the player): its answer shows at the first turn
    /// (`ai_no_tools`).
    pub async fn ai_test(&self, probe: bool) -> ApiResult<AiTest> {
        let stored = self.ai().await?;
        let failed = |place, e: ApiError| AiTest {
            ok: false,
            place,
            models: Vec::new(),
            code: match e.code {
                ErrorCode::Ai(code) => Some(code),
                _ => None,
            },
            message: Some(e.message),
            tools: None,
            server: None,
            tool_model: None,
            probed: false,
        };
        let connection = match self.ai_connection().await {
            Ok(connection) => connection,
            Err(e) => return Ok(failed(stored.place, e)),
        };
        let place = Some(connection.place());
        let models = match connection.models().await {
            Ok(models) => models,
            Err(e) => return Ok(failed(place, e.into())),
        };
        let model = connection.model();
        if !models.is_empty() && !models.iter().any(|m| m == model) {
            let error = AiError::ModelUnknown {
                url: connection.url().as_str().to_owned(),
                model: model.to_owned(),
                message: format!("it lists {}", models.join(", ")),
            };
            return Ok(AiTest { models, ..failed(place, error.into()) });
        }
        let support = connection.tool_support().await;
        let server = support.map(|s| s.server).or_else(|| PcServer::at(connection.url()));
        let probed = match support {
            None if probe => connection.probe_tools().await,
            _ => None,
        };
        let tools = support.map(|s| s.tools).or(probed);
        let tool_model = server.filter(|_| tools == Some(false)).map(PcServer::tool_model);
        Ok(AiTest {
            ok: true,
            place,
            models,
            code: None,
            message: None,
            tools,
            server: server.map(PcServer::known),
            tool_model,
            probed: probed.is_some(),
        })
    }

    /// The AI servers of this PC the app knows and looks for, with their
    /// names and usual ports, for a shell's words ([`Host::find_pc_ai`]).
    pub async fn pc_servers(&self) -> Vec<KnownServer> {
        PcServer::ALL.map(PcServer::known).to_vec()
    }

    /// Looks for an AI on the usual ports of the known servers of this PC
    /// ([`PcServer`]), each within 2 s: what answers, with its models.
    pub async fn find_pc_ai(&self) -> Vec<FoundAi> {
        dcp_ai::discover().await.into_iter().map(FoundAi::from).collect()
    }
}

fn settings(stored: dcp_store::AiStored) -> AiSettings {
    let url = stored.url.as_deref().and_then(|u| judge_ai_url(u).ok());
    let kept = stored.key_bound.is_some();
    let key_set = match &url {
        Some(url) => for_origin(url, |to| stored.key_for(&to)),
        None => kept,
    };
    let place = url.as_ref().map(AiUrl::place);
    let server = url.as_ref().and_then(PcServer::at).map(PcServer::known);
    AiSettings {
        url: stored.url,
        model: stored.model,
        place,
        key_set,
        key_forgotten: kept && !key_set,
        server,
        max_tokens: AnswerLength::BOUNDS.of(stored.max_tokens),
        max_tokens_bounds: AnswerLength::BOUNDS,
    }
}

/// Runs `f` with the origin `url` sends a key to: `scheme://host:port`,
/// the port always written, and the host alone when the port is its
/// scheme's default (what a key kept before issue 32 is bound to, see
/// `dcp_store::ai`).
fn for_origin<T>(url: &AiUrl, f: impl FnOnce(KeyOrigin<'_>) -> T) -> T {
    let scheme = url.as_str().split_once("://").map_or("", |(scheme, _)| scheme);
    let origin = format!("{scheme}://{}:{}", url.host(), url.port());
    let default_port = matches!((scheme, url.port()), ("https", 443) | ("http", 80));
    f(KeyOrigin { origin: &origin, legacy_host: default_port.then(|| url.host()) })
}

/// The kept URL, judged again: the rules may have changed since it was kept.
fn stored_url(stored: &dcp_store::AiStored) -> ApiResult<dcp_ai::AiUrl> {
    let url = stored.url.as_deref().ok_or_else(|| not_set("no AI is set"))?;
    Ok(judge_ai_url(url)?)
}

fn not_set(what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Ai(AiCode::NotSet),
        format!(
            "{what}: set the companion's AI with its URL and model, e.g. {} for {} on this PC",
            PcServer::Ollama.base_url(),
            PcServer::Ollama.name()
        ),
    )
}
