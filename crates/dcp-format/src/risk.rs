//! Risk levels (spec §12): what a tool declares, what its side effects and
//! method imply, and the level the app computes from them; who may trigger
//! a tool and an R3 action's answer, as the journal spells them.

use crate::model::{Method, Target};

crate::spelled! {
    /// Who started the turn (§12 "Who may trigger a tool"), as the
    /// journal's `who` spells it.
    pub enum Source {
        /// The player's voice.
        Voice => "voice",
        /// The player's keyboard.
        Keyboard => "keyboard",
        /// The Twitch chat.
        Twitch => "twitch",
        /// The companion speaking on its own.
        Auto => "auto",
        /// An event from a program on the PC (§16).
        Event => "event",
        /// An AI app of the player's, through `dcplugin mcp` (issue 24):
        /// it acts for the player, so the courtier treats it as the keyboard.
        Mcp => "mcp",
        /// A test the player or an author ran, not a turn of the companion
        /// (Options' Test, Try an action, `dcplugin call`): treated as the
        /// keyboard, and journaled as what it was (issue 23).
        Test => "test",
    }
}

crate::spelled! {
    /// The player's answer to an R3 action's question (§12): only
    /// `confirmed` sent the request.
    pub enum Decision {
        /// The player said yes: the request was sent, exactly as shown.
        Confirmed => "confirmed",
        /// The player said no.
        Declined => "declined",
        /// No answer in time: a no.
        Expired => "expired",
    }
}

crate::spelled! {
    /// R0 to R4, ordered from the least to the most sensitive.
    #[derive(PartialOrd, Ord)]
    pub enum Level {
        R0 => "R0",
        R1 => "R1",
        R2 => "R2",
        R3 => "R3",
        R4 => "R4",
    }
}

impl Level {
    /// R3 and above need the player's confirmation (§12): R3 is offered
    /// only where the caller can ask the player, and asked every time
    /// before it is sent; elsewhere, and for R4 always, it is installed,
    /// shown, never offered, refused if called.
    pub fn needs_confirmation(self) -> bool {
        self >= Level::R3
    }

    /// How the level is shown to the player (§12), in English.
    pub fn label(self) -> &'static str {
        match self {
            Level::R0 => "reads public data",
            Level::R1 => "reads your data",
            Level::R2 => "reversible action",
            Level::R3 => "serious action, confirmed every time",
            Level::R4 => "reserved for official plugins",
        }
    }
}

crate::spelled! {
    /// `sideEffects` (§6, §12), as the manifest spells it.
    pub enum SideEffects {
        None => "none",
        Reversible => "reversible",
        Irreversible => "irreversible",
        ThirdParty => "third-party",
        PhysicalSecurity => "physical-security",
    }
}

impl SideEffects {
    fn level(self) -> Level {
        match self {
            SideEffects::None => Level::R0,
            SideEffects::Reversible => Level::R2,
            _ => Level::R3,
        }
    }
}

/// The computed level (§12): the highest of the declared risk, the side
/// effects, the method (a POST/PUT/PATCH explicitly declared without side
/// effects keeps the declared level; DELETE is always R3) and R2 for a
/// server on the PC.
pub fn compute(declared: Level, side_effects: Option<SideEffects>, method: Method, target: &Target) -> Level {
    let effects = side_effects.map_or(Level::R0, SideEffects::level);
    let method_level = match method {
        Method::GET => Level::R0,
        Method::DELETE => Level::R3,
        _ if side_effects == Some(SideEffects::None) => Level::R0,
        _ => Level::R2,
    };
    let target_level = match target {
        Target::Local { .. } => Level::R2,
        Target::Web { .. } => Level::R0,
    };
    declared.max(effects).max(method_level).max(target_level)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> Target {
        Target::Web { host: "api.example.com".into() }
    }

    #[test]
    fn s12_level_is_the_highest_of_the_four() {
        use Level::*;
        let cases = [
            (R0, None, Method::GET, web(), R0),
            (R1, None, Method::GET, web(), R1),
            (R0, None, Method::POST, web(), R2),
            (R0, Some(SideEffects::None), Method::POST, web(), R0),
            (R0, Some(SideEffects::None), Method::PATCH, web(), R0),
            (R0, Some(SideEffects::None), Method::DELETE, web(), R3),
            (R0, Some(SideEffects::Reversible), Method::GET, web(), R2),
            (R0, Some(SideEffects::ThirdParty), Method::GET, web(), R3),
            (R0, Some(SideEffects::PhysicalSecurity), Method::GET, web(), R3),
            (R0, Some(SideEffects::Irreversible), Method::POST, web(), R3),
            (R0, None, Method::GET, Target::Local { port: 8420 }, R2),
            (R4, None, Method::GET, web(), R4),
        ];
        for (declared, effects, method, target, want) in cases {
            assert_eq!(
                compute(declared, effects, method, &target),
                want,
                "{declared:?} {effects:?} {method:?} {target:?}"
            );
        }
    }
}
