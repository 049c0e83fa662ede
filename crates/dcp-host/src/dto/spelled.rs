//! The store's spelled values as they cross to a shell: the same variants
//! and spellings, converted both ways, so that the host alone derives their
//! TypeScript and a change below shows up here (a variant added or removed
//! there does not compile until it is mirrored; a respelling fails
//! `spellings_match_the_store`).

/// A host enum spelled as the lower crate's `$lower`, with `From` both ways.
macro_rules! mirror_spelled {
    ($(#[$meta:meta])* pub enum $name:ident from $lower:ty {
        $($(#[$vmeta:meta])* $variant:ident => $text:literal,)*
    }) => {
        dcp_format::spelled! {
            $(#[$meta])*
            pub enum $name { $($(#[$vmeta])* $variant => $text,)* }
        }

        impl From<$lower> for $name {
            fn from(value: $lower) -> $name {
                type Lower = $lower;
                match value { $(Lower::$variant => $name::$variant,)* }
            }
        }

        impl From<$name> for $lower {
            fn from(value: $name) -> Self {
                match value { $($name::$variant => Self::$variant,)* }
            }
        }
    };
}

mirror_spelled! {
    /// A plugin's status (§18), in the order in which they win.
    #[derive(PartialOrd, Ord)]
    pub enum Status from dcp_store::Status {
        /// The installed file cannot be found.
        Missing => "missing",
        /// The installed file no longer passes the checks.
        Invalid => "invalid",
        /// The installed file changed on disk since the player accepted it.
        Modified => "modified",
        /// A folder plugin or one that talks to a server on the PC, while
        /// developer mode is off.
        DevModeOff => "dev_mode_off",
        /// Switched off by the player (the plugin, or Plugins enabled).
        Off => "off",
        /// A required setting is missing or a secret cannot be read here.
        NeedsSetup => "needs_setup",
        /// Enable tools is off in the Tools tab.
        ToolsOff => "tools_off",
        /// Installed, on, ready.
        Active => "active",
    }
}

mirror_spelled! {
    /// Where a plugin comes from, which decides its badge; stored as
    /// spelled, and read back strictly (see `spelling`).
    pub enum Origin from dcp_store::Origin {
        /// Imported from a file: "Not signed".
        Import => "import",
        /// Loaded from a folder in developer mode: "Folder (dev)".
        Folder => "folder",
        /// Bundled with the app: "Official".
        Official => "official",
    }
}

mirror_spelled! {
    /// The answer to the online-AI question (§13), as stored and as
    /// `--cloud` takes it.
    pub enum CloudChoice from dcp_store::CloudChoice {
        /// Allow with online AI models.
        Allow => "allow",
        /// Only with an AI running on this PC.
        Local => "local",
    }
}

mirror_spelled! {
    /// What happened, as the journal and the CLI spell it.
    pub enum JournalOutcome from dcp_store::journal::Outcome {
        /// A call that went through.
        Done => "done",
        /// A call that failed, with its code.
        Failed => "failed",
        /// Refused by the courtier (or, for an event, by the door).
        Refused => "refused",
        /// An event accepted.
        Received => "received",
        /// An event accepted but dropped (`event_expired`).
        Dropped => "dropped",
    }
}

mirror_spelled! {
    /// Calls or events, as the journal spells them.
    pub enum JournalKind from dcp_store::journal::Kind {
        /// Tool calls, whoever asked.
        Call => "call",
        /// Events from a program on the PC (§16).
        Event => "event",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcp_format::codes::Spelled;

    /// Each lower value converts to the host value spelled the same.
    fn same_spellings<L: Spelled, H: Spelled + From<L>>() {
        for &lower in L::ALL {
            assert_eq!(H::from(lower).as_str(), lower.as_str());
        }
        assert_eq!(H::ALL.len(), L::ALL.len());
    }

    #[test]
    fn spellings_match_the_store() {
        same_spellings::<dcp_store::Status, Status>();
        same_spellings::<dcp_store::Origin, Origin>();
        same_spellings::<dcp_store::CloudChoice, CloudChoice>();
        same_spellings::<dcp_store::journal::Outcome, JournalOutcome>();
        same_spellings::<dcp_store::journal::Kind, JournalKind>();
    }
}
