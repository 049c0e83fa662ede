//! The last offer made (§3 "What the AI knows"), given again while nothing
//! it is made of changed: the companion asks for one at each turn, an MCP
//! client every second, mostly with nothing changed between.
//!
//! An offer is a pure function of the turn's fields that the courtier reads
//! and of the installed plugins' call contexts. The store keeps each
//! context while the profile's generation and the manifest's stamp are
//! unchanged, and makes a new one otherwise (an install, a switch, a
//! setting, a secret, a file edited, or a folder plugin, read every time),
//! so the same contexts — the very same `Arc`s, held here so that none can
//! be freed and its address reused — mean the same plugins as they were.
//! The turn's fields are compared whole (who asked, where the AI runs, live
//! on Twitch, built-in tools, whether the player can be asked, the
//! arguments' form, the player's words and the tools used, which pick the
//! tools when not all fit), but for its id and its step, of which the
//! courtier reads only whether it is past the last ([`within_steps`]): a
//! turn's second request gets its first offer. The tools' words, which a
//! turn ranks them by when not all fit, are kept while the contexts are.

use dcp_call::courtier::within_steps;
use dcp_call::offer::{Offer, Schema};
use dcp_call::rank::Index;
use dcp_call::turn::{Place, Source, Turn};
use dcp_store::CallContext;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The last offer with what it was made from.
#[derive(Default)]
pub(crate) struct KeptOffer(Mutex<Option<Made>>);

struct Made {
    asked: Asked,
    contexts: Vec<Arc<CallContext>>,
    offer: Offer,
    /// The words of the contexts' tools, once a turn needed them to rank
    /// (`rank`): kept while the contexts are, whatever the turn.
    index: Arc<OnceLock<Index>>,
}

/// What of a turn an offer depends on: all of it but its id.
#[derive(Clone, PartialEq, Eq)]
struct Asked {
    source: Source,
    model: Place,
    live: bool,
    builtin: usize,
    within_steps: bool,
    can_confirm: bool,
    schema: Schema,
    words: String,
    used: Vec<String>,
}

impl Asked {
    fn of(turn: &Turn) -> Asked {
        // Named field by field: a field added to `Turn` must be placed here
        // (in the key, or ignored as the id is) before this compiles. The
        // AI app's name only names the journal's lines: it changes no offer.
        let Turn { source, model, live, builtin, id: _, step: _, can_confirm, client: _, schema: _, words, used } =
            turn;
        let (source, model, live, builtin, can_confirm) = (*source, *model, *live, *builtin, *can_confirm);
        // The form asked for, or the one for the turn's AI, as the offer reads it.
        let schema = turn.schema();
        let (words, used) = (words.clone(), used.clone());
        Asked { source, model, live, builtin, within_steps: within_steps(turn), can_confirm, schema, words, used }
    }
}

impl KeptOffer {
    /// The offer for `turn` over `contexts`: the kept one when both are as
    /// it was made from, else made now and kept.
    pub(crate) fn offer(&self, turn: &Turn, contexts: Vec<Arc<CallContext>>) -> Offer {
        let asked = Asked::of(turn);
        let mut index = None;
        if let Some(made) = &*self.lock() {
            let same = made.contexts.len() == contexts.len()
                && made.contexts.iter().zip(&contexts).all(|(kept, now)| Arc::ptr_eq(kept, now));
            if made.asked == asked && same {
                return made.offer.clone();
            }
            index = same.then(|| made.index.clone());
        }
        let index = index.unwrap_or_default();
        let offer = dcp_call::offer::offer_with(turn, &contexts, &index);
        *self.lock() = Some(Made { asked, contexts, offer: offer.clone(), index });
        offer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Made>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
