//! clap's choices for a spelled enum, built from the engine's one spelling
//! table: `--source`, `--ai`, `--cloud`, `cloud`, `--outcome` and
//! `--kind` offer, in its order, and parse exactly what the engine spells.
//! The command line's own choices (`--confirm`, `twitch`, `dev-mode`,
//! `events`, `init --kind`, `--auth` and `--model`) are spelled enums declared here,
//! the same way, so no choice list is written by hand.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use dcp_host::Spelled;

/// The parser offering every spelling of `T` and giving back a `T`.
pub fn of<T: Spelled>() -> impl TypedValueParser<Value = T> {
    some(T::ALL)
}

/// The parser offering only `values` of `T`, in that order (`chat
/// --source` offers the player's sources, not the door's).
pub fn some<T: Spelled>(values: &'static [T]) -> impl TypedValueParser<Value = T> {
    // The possible values are T's own spellings, so one always parses back.
    PossibleValuesParser::new(values.iter().map(|value| value.as_str()))
        .try_map(|text| T::parse(&text).ok_or("not one of the possible values"))
}

dcp_host::spelled! {
    /// `chat --confirm`: an R3 action's question asked on the terminal, or
    /// answered in advance.
    pub enum Confirm {
        /// Asked on the terminal.
        Ask => "ask",
        /// Yes, in advance.
        Yes => "yes",
        /// No, in advance.
        No => "no",
    }
}

dcp_host::spelled! {
    /// `twitch SLUG allow|deny`: use while live on Twitch.
    pub enum Permit {
        /// Allowed.
        Allow => "allow",
        /// Denied.
        Deny => "deny",
    }
}

dcp_host::spelled! {
    /// `dev-mode on|off`.
    pub enum OnOff {
        /// On.
        On => "on",
        /// Off.
        Off => "off",
    }
}

dcp_host::spelled! {
    /// `events SLUG on|off EVENT` or `events SLUG token`.
    pub enum EventsWhat {
        /// Switch an event on.
        On => "on",
        /// Switch an event off.
        Off => "off",
        /// The event token.
        Token => "token",
    }
}

dcp_host::spelled! {
    /// `tools --model` and `call --model`: where the turn's AI runs, as
    /// these flags spelled it before the AI's place had a type of its own
    /// (`local` is this PC); a [`dcp_host::Place`] once parsed.
    pub enum ModelFlag {
        /// On this PC.
        Local => "local",
        /// Online.
        Online => "online",
    }
}

impl From<ModelFlag> for dcp_host::Place {
    fn from(flag: ModelFlag) -> dcp_host::Place {
        match flag {
            ModelFlag::Local => dcp_host::Place::Pc,
            ModelFlag::Online => dcp_host::Place::Online,
        }
    }
}

dcp_host::spelled! {
    /// `init --kind`: a web service or a program on this PC.
    pub enum Kind {
        /// A web service (HTTPS).
        Web => "web",
        /// A program on this PC (developer mode).
        Pc => "pc",
    }
}

dcp_host::spelled! {
    /// `init --auth`: how requests prove who sends them.
    pub enum Auth {
        /// No authentication.
        None => "none",
        /// A bearer token header.
        Bearer => "bearer",
        /// An API key in the query.
        Query => "query",
    }
}
