//! A card of My plugins as it crosses to a shell: facts only (where it
//! comes from, whether it is kept on this PC, the ports it talks to, its
//! status), which each shell words in its own language.

use super::{JournalValue, Origin, Status};
use dcp_format::codes::ToolCode;
use serde::Serialize;

/// One card of My plugins (§18); the icon through [`crate::Host::icon`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Card {
    /// Slug.
    pub slug: String,
    /// Name shown to players.
    pub name: String,
    /// Installed version.
    pub version: String,
    /// Status (§18).
    pub status: Status,
    /// The player's on/off switch.
    pub enabled: bool,
    /// Where it comes from: Not signed, Official or Folder (dev) (§18).
    pub origin: Origin,
    /// It reads private data and works only with an AI on this PC (§13).
    pub kept_on_pc: bool,
    /// The ports of programs on this PC it talks to (§15).
    pub local_ports: Vec<u16>,
    /// For an official plugin: the newer version the catalog offers (§18).
    pub update_available: Option<String>,
    /// "by …".
    pub author: Option<String>,
    /// The card's one-line description.
    pub description: Option<String>,
    /// The plugin has a usable icon.png; otherwise the card shows a letter tile (§4).
    pub has_icon: bool,
    /// Its failed calls of the last day, since it was installed (§19: shown
    /// on the card in developer mode).
    pub recent_errors: u32,
    /// Its calls keep failing: none went through since (§18: said on the
    /// card, whatever the mode, so that Active does not mislead).
    pub failing: Option<Failing>,
}

/// A plugin whose calls keep failing: a fact each shell words.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failing {
    /// Its failed calls in a row, up to the last that went through (at
    /// most [`dcp_store::journal::FAILING_LOOKED_AT`]).
    pub calls: u32,
    /// The §22 code of the newest.
    pub code: JournalValue<ToolCode>,
}

impl From<dcp_store::journal::Failing> for Failing {
    fn from(f: dcp_store::journal::Failing) -> Failing {
        Failing { calls: f.calls, code: f.code.into() }
    }
}

impl From<dcp_store::Card> for Card {
    fn from(c: dcp_store::Card) -> Card {
        Card {
            slug: c.slug,
            name: c.name,
            version: c.version,
            status: c.status.into(),
            enabled: c.enabled,
            origin: c.origin.into(),
            kept_on_pc: c.kept_on_pc,
            local_ports: c.local_ports,
            update_available: c.update_available,
            author: c.author,
            description: c.description,
            has_icon: c.has_icon,
            recent_errors: c.recent_errors,
            failing: c.failing.map(Into::into),
        }
    }
}
