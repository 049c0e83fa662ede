//! Statuses of §18 and the order in which they win (each shell words them).
//!
//! When several apply, the first of this list is shown, because it is the
//! one the player must fix first (nothing else can be known about a file
//! that is missing; an invalid or modified file is not run at all; a
//! paused plugin cannot be set up usefully):
//! Missing, Invalid, Modified, Developer mode off, Off, Needs setup,
//! Tools off, Active.

dcp_format::spelled! {
    /// A plugin's status (§18), in the order in which they win.
    #[derive(PartialOrd, Ord)]
    pub enum Status {
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

/// What decides a status.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Facts {
    pub missing: bool,
    pub invalid: bool,
    pub modified: bool,
    pub needs_dev_mode: bool,
    pub dev_mode: bool,
    pub enabled: bool,
    pub plugins_enabled: bool,
    pub needs_setup: bool,
    pub tools_enabled: bool,
}

/// The first status that applies, in the order of the module doc.
pub(crate) fn status_of_facts(f: Facts) -> Status {
    if f.missing {
        Status::Missing
    } else if f.invalid {
        Status::Invalid
    } else if f.modified {
        Status::Modified
    } else if f.needs_dev_mode && !f.dev_mode {
        Status::DevModeOff
    } else if !f.enabled || !f.plugins_enabled {
        Status::Off
    } else if f.needs_setup {
        Status::NeedsSetup
    } else if !f.tools_enabled {
        Status::ToolsOff
    } else {
        Status::Active
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s18_statuses_win_in_the_documented_order() {
        let active =
            Facts { enabled: true, plugins_enabled: true, tools_enabled: true, dev_mode: true, ..Facts::default() };
        assert_eq!(status_of_facts(active), Status::Active);
        assert_eq!(status_of_facts(Facts { tools_enabled: false, ..active }), Status::ToolsOff);
        assert_eq!(status_of_facts(Facts { tools_enabled: false, needs_setup: true, ..active }), Status::NeedsSetup);
        assert_eq!(status_of_facts(Facts { needs_setup: true, enabled: false, ..active }), Status::Off);
        assert_eq!(status_of_facts(Facts { plugins_enabled: false, ..active }), Status::Off);
        assert_eq!(
            status_of_facts(Facts { enabled: false, needs_dev_mode: true, dev_mode: false, ..active }),
            Status::DevModeOff
        );
        assert_eq!(status_of_facts(Facts { needs_dev_mode: true, ..active }), Status::Active);
        assert_eq!(
            status_of_facts(Facts { modified: true, needs_dev_mode: true, dev_mode: false, ..active }),
            Status::Modified
        );
        assert_eq!(status_of_facts(Facts { invalid: true, modified: true, ..active }), Status::Invalid);
        assert_eq!(status_of_facts(Facts { missing: true, invalid: true, ..active }), Status::Missing);
    }
}
