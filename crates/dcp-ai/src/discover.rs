//! Finding an AI on this PC when none is set (§13): the known servers'
//! usual ports ([`PcServer`], every one of a server that has two) are
//! asked for their model list at once, with a short limit.

use std::time::Duration;

use crate::{judge_ai_url, AiUrl, Connection, Limits, PcServer};

/// How long each of them may take to answer.
const DISCOVER_LIMIT: Duration = Duration::from_secs(2);

/// A server that answered, with the models it lists (maybe none: Ollama
/// with nothing pulled yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its base URL.
    pub url: AiUrl,
    /// Its models.
    pub models: Vec<String>,
}

/// Asks every [`PcServer`]'s base URLs in parallel; what answers, in the
/// table's order.
pub async fn discover() -> Vec<Found> {
    let bases: Vec<String> = PcServer::ALL.into_iter().flat_map(PcServer::base_urls).collect();
    discover_at(&bases.iter().map(String::as_str).collect::<Vec<_>>(), DISCOVER_LIMIT).await
}

/// Asks each base URL of `bases` for its models in parallel, each within
/// `limit`; what answers, in the order given. A URL that is not one is skipped.
pub async fn discover_at(bases: &[&str], limit: Duration) -> Vec<Found> {
    let mut tasks = tokio::task::JoinSet::new();
    for (order, base) in bases.iter().enumerate() {
        let Ok(url) = judge_ai_url(base) else { continue };
        let connection = Connection::new(url.clone(), String::new(), None).with_limits(Limits {
            first_byte: limit,
            between_chunks: limit,
            answer: limit,
        });
        tasks.spawn(async move { (order, connection.models().await.ok().map(|models| Found { url, models })) });
    }
    let mut found: Vec<(usize, Found)> = Vec::new();
    while let Some(done) = tasks.join_next().await {
        if let Ok((order, Some(answer))) = done {
            found.push((order, answer));
        }
    }
    found.sort_by_key(|(order, _)| *order);
    found.into_iter().map(|(_, answer)| answer).collect()
}
