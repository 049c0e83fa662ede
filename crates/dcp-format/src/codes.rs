//! Every code of §22 as one type, [`SpecCode`], and its families: import
//! problems ([`Code`], in `problem`), settings ([`SettingsCode`]), tool
//! results ([`ToolCode`], and what each says happened: [`ToolFamily`]),
//! the courtier's and the turn engine's refusals ([`Refusal`]) and the
//! event door's answers and reasons ([`EventReason`]).
//!
//! Each code is written once, here, in its spec spelling; JSON, the journal
//! and the CLI all use that spelling, and no crate matches a code as text.
//! A refusal's two texts, the AI's and the player's, live beside it.

use crate::limits::{STEPS_PER_TURN, TOOLS_OFFERED};
use crate::problem::Code;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// A fieldless enum with one spelling per value, declared by [`spelled!`]:
/// what a shell needs to offer its values (clap's choices) and read one
/// back, without a table of its own.
pub trait Spelled: Sized + Copy + Send + Sync + 'static {
    /// Every value, in the order declared.
    const ALL: &'static [Self];
    /// The value's spelling.
    fn as_str(self) -> &'static str;
    /// The value spelled `text`, if it is one.
    fn parse(text: &str) -> Option<Self>;
}

/// Declares a fieldless enum with its spellings, written once: `as_str`,
/// `parse`, `ALL`, [`Spelled`], `Display`, `FromStr`, serde as the
/// spelling and, with the `ts` feature of the crate that uses it, the
/// union of the spellings in TypeScript (attributes given to the enum come
/// after that derive, so they may carry `ts(...)`). Used for every code of
/// §22 here, the host's own codes in `dcp-host`, and every enum that is
/// stored, printed or parsed as text (levels, methods, sources, statuses…).
#[macro_export]
macro_rules! spelled {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)* }) => {
        // Serialized by its spelling (below): in TypeScript, the union of
        // the spellings, so the UI cannot compare with a value that does not exist.
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)] // a variant without a doc is the code of the same name
        pub enum $name { $($(#[$vmeta])* #[cfg_attr(feature = "ts", ts(rename = $text))] $variant,)* }

        impl $name {
            /// Every value, in the order declared (for codes, that of §22).
            pub const ALL: [$name; [$($text,)*].len()] = [$($name::$variant,)*];

            /// The value as it is spelled.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The value spelled `text`, if it is one.
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
        }

        impl $crate::codes::Spelled for $name {
            const ALL: &'static [$name] = &$name::ALL;

            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }

            fn parse(text: &str) -> Option<$name> {
                $name::parse(text)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::codes::NotSpelled;

            fn from_str(text: &str) -> Result<$name, $crate::codes::NotSpelled> {
                $name::parse(text).ok_or($crate::codes::NotSpelled)
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<str> as ::serde::Deserialize>::deserialize(deserializer)?;
                $name::parse(&text).ok_or_else(|| <D::Error as ::serde::de::Error>::custom(format!("unknown code {text}")))
            }
        }
    };
}

/// A text that spells no value of a [`spelled!`] enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotSpelled;

impl fmt::Display for NotSpelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not one of the known spellings")
    }
}

impl std::error::Error for NotSpelled {}

crate::spelled! {
    /// §22 "When installing or saving settings".
    pub enum SettingsCode {
        MissingSettings => "missing_settings",
        BadSettings => "bad_settings",
        VaultUnavailable => "vault_unavailable",
        CloudChoiceRequired => "cloud_choice_required",
    }
}

crate::spelled! {
    /// §22 "In a tool result", but `HTTP_<status>` (see [`ToolCode`]).
    pub enum CallCode {
        InvalidArguments => "INVALID_ARGUMENTS",
        BadRequest => "BAD_REQUEST",
        NeedsSetup => "NEEDS_SETUP",
        NotHttps => "NOT_HTTPS",
        BadPort => "BAD_PORT",
        BadUrl => "BAD_URL",
        HostNotAllowed => "HOST_NOT_ALLOWED",
        DnsFailed => "DNS_FAILED",
        LocalPortNotAllowed => "LOCAL_PORT_NOT_ALLOWED",
        PrivateAddress => "PRIVATE_ADDRESS",
        TooLarge => "TOO_LARGE",
        Timeout => "TIMEOUT",
        Network => "NETWORK",
        TooManyRedirects => "TOO_MANY_REDIRECTS",
        BadResponse => "BAD_RESPONSE",
        UnsupportedContent => "UNSUPPORTED_CONTENT",
        Busy => "BUSY",
        UnknownTool => "UNKNOWN_TOOL",
        ExecutionError => "EXECUTION_ERROR",
        PolicyDenied => "POLICY_DENIED",
    }
}

/// A code of §22 "In a tool result": one of [`CallCode`], or the status of
/// a service's error answer, spelled `HTTP_<status>`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(untagged))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCode {
    /// A fixed code.
    Call(CallCode),
    /// `HTTP_<status>`: the service answered with an error.
    Http(#[cfg_attr(feature = "ts", ts(type = "`HTTP_${number}`"))] u16),
}

impl ToolCode {
    /// The code as §22 spells it.
    pub fn as_str(self) -> Cow<'static, str> {
        match self {
            ToolCode::Call(code) => Cow::Borrowed(code.as_str()),
            ToolCode::Http(status) => Cow::Owned(format!("HTTP_{status}")),
        }
    }

    /// The code spelled `text`, if it is one.
    pub fn parse(text: &str) -> Option<ToolCode> {
        match text.strip_prefix("HTTP_") {
            Some(status) if status.len() == 3 => status.parse().ok().map(ToolCode::Http),
            Some(_) => None,
            None => CallCode::parse(text).map(ToolCode::Call),
        }
    }

    /// §22 marks TIMEOUT, NETWORK, 5xx and 429 as worth retrying.
    pub fn retryable(self) -> bool {
        match self {
            ToolCode::Call(code) => matches!(code, CallCode::Timeout | CallCode::Network),
            ToolCode::Http(status) => status == 429 || status >= 500,
        }
    }
}

crate::spelled! {
    /// What a tool-result code says happened, as a shell words it for the
    /// player (issue 33: the engine gives this fact, so no shell classifies
    /// a code by its text). Codes the player reads the same way share one:
    /// the network rules, an answer that cannot be read, arguments that do
    /// not fit; a service's error answer by what its status means.
    pub enum ToolFamily {
        /// POLICY_DENIED: the courtier said no (its reason says why).
        Refused => "refused",
        /// HTTP_401.
        KeyRefused => "key_refused",
        /// HTTP_403.
        AccessRefused => "access_refused",
        /// HTTP_404.
        NotFound => "not_found",
        /// HTTP_429.
        ServiceBusy => "service_busy",
        /// HTTP_5xx.
        ServiceDown => "service_down",
        /// Any other HTTP status.
        ServiceError => "service_error",
        /// TIMEOUT.
        Timeout => "timeout",
        /// DNS_FAILED.
        DnsFailed => "dns_failed",
        /// NETWORK.
        Network => "network",
        /// NEEDS_SETUP.
        NeedsSetup => "needs_setup",
        /// TOO_LARGE.
        TooLarge => "too_large",
        /// BAD_RESPONSE, UNSUPPORTED_CONTENT.
        Unreadable => "unreadable",
        /// BUSY: another call of the plugin runs.
        Busy => "busy",
        /// INVALID_ARGUMENTS, BAD_REQUEST.
        BadArguments => "bad_arguments",
        /// NOT_HTTPS, BAD_PORT, BAD_URL, HOST_NOT_ALLOWED,
        /// LOCAL_PORT_NOT_ALLOWED, PRIVATE_ADDRESS, TOO_MANY_REDIRECTS.
        NetworkRule => "network_rule",
        /// UNKNOWN_TOOL.
        UnknownTool => "unknown_tool",
        /// EXECUTION_ERROR.
        Failed => "failed",
    }
}

impl ToolCode {
    /// What the code says happened, as the player reads it.
    pub fn family(self) -> ToolFamily {
        use CallCode as C;
        match self {
            ToolCode::Http(401) => ToolFamily::KeyRefused,
            ToolCode::Http(403) => ToolFamily::AccessRefused,
            ToolCode::Http(404) => ToolFamily::NotFound,
            ToolCode::Http(429) => ToolFamily::ServiceBusy,
            ToolCode::Http(500..) => ToolFamily::ServiceDown,
            ToolCode::Http(_) => ToolFamily::ServiceError,
            ToolCode::Call(code) => match code {
                C::PolicyDenied => ToolFamily::Refused,
                C::Timeout => ToolFamily::Timeout,
                C::DnsFailed => ToolFamily::DnsFailed,
                C::Network => ToolFamily::Network,
                C::NeedsSetup => ToolFamily::NeedsSetup,
                C::TooLarge => ToolFamily::TooLarge,
                C::BadResponse | C::UnsupportedContent => ToolFamily::Unreadable,
                C::Busy => ToolFamily::Busy,
                C::InvalidArguments | C::BadRequest => ToolFamily::BadArguments,
                C::NotHttps
                | C::BadPort
                | C::BadUrl
                | C::HostNotAllowed
                | C::LocalPortNotAllowed
                | C::PrivateAddress
                | C::TooManyRedirects => ToolFamily::NetworkRule,
                C::UnknownTool => ToolFamily::UnknownTool,
                C::ExecutionError => ToolFamily::Failed,
            },
        }
    }
}

impl From<CallCode> for ToolCode {
    fn from(code: CallCode) -> ToolCode {
        ToolCode::Call(code)
    }
}

crate::spelled! {
    /// §22 "Refusals": why the courtier said no (the AI receives
    /// POLICY_DENIED with it). `step_limit` is not in §22: a turn's 5 tool
    /// steps are used (§3, §21). Nor is `declined`: the player said no to
    /// an R3 action (§12, issue 22); nor `expired`: they did not answer it
    /// in time, a no too (issue 34: said as it happened, since nobody
    /// declined). Nor is
    /// `changed`: while the player was asked about an R3 action, the
    /// question it would ask now became another (the plugin updated, a
    /// setting changed the URL…): what they saw is not what would be sent
    /// (§12 "confirmed every time", issue 32). The last four are not the
    /// courtier's but the engine's own (issue 33): `tool_limit`, an action
    /// beyond the tools offered (§17), left out of the offer;
    /// `one_action_per_step`, `call_limit` and `repeated_call`, a call the
    /// turn's steps did not run (the AI is told "not run", not
    /// POLICY_DENIED).
    pub enum Refusal {
        ToolsOff => "tools_off",
        PluginOff => "plugin_off",
        NeedsSetup => "needs_setup",
        CloudBlocked => "cloud_blocked",
        NeedsConfirmation => "needs_confirmation",
        TwitchLevel => "twitch_level",
        TwitchQuota => "twitch_quota",
        NotRequested => "not_requested",
        UnknownTool => "unknown_tool",
        DevModeOff => "dev_mode_off",
        StreamPrivate => "stream_private",
        StepLimit => "step_limit",
        Declined => "declined",
        Expired => "expired",
        Changed => "changed",
        ToolLimit => "tool_limit",
        OneActionPerStep => "one_action_per_step",
        CallLimit => "call_limit",
        RepeatedCall => "repeated_call",
    }
}

impl Refusal {
    /// What the AI is told, to pass on to the player.
    pub fn for_ai(self) -> String {
        match self {
            Refusal::ToolsOff => "Tools are turned off: the player can turn on Enable tools in the Tools tab.".into(),
            Refusal::PluginOff => "This plugin or action is switched off, or its file changed or no longer passes the checks: the player can turn it on in Plugins; an imported plugin whose file changed is imported again, and a plugin loaded from a folder is fixed and saved.".into(),
            Refusal::NeedsSetup => "This plugin needs setup: the player must fill in its settings (Options on its card).".into(),
            Refusal::CloudBlocked => "The player keeps this plugin on this PC: it is not used with online AI models. They can allow it in the plugin's details.".into(),
            Refusal::NeedsConfirmation => "This is a serious action: the player confirms it each time, and they cannot be asked here.".into(),
            Refusal::TwitchLevel => "The Twitch chat may only use actions that read public data.".into(),
            Refusal::TwitchQuota => "The Twitch chat already used its one action for this message.".into(),
            Refusal::NotRequested => "No action runs on a turn the player did not ask for.".into(),
            Refusal::UnknownTool => "There is no installed action with this name.".into(),
            Refusal::DevModeOff => "This plugin needs developer mode, which is off.".into(),
            Refusal::StreamPrivate => "The player is live on Twitch: actions that read their data are paused. They can allow this plugin during streams in its details.".into(),
            Refusal::StepLimit => format!("This turn already used its {STEPS_PER_TURN} tool steps: answer the user with what you have."),
            Refusal::Declined => "The player declined this action: nothing was sent. Do not ask for it again unless they do.".into(),
            Refusal::Expired => "The player did not answer in time: nothing was sent. Ask them if they still want it.".into(),
            Refusal::Changed => "The action changed while the player was asked (the plugin or its settings): nothing was sent. Ask them if they still want it.".into(),
            Refusal::ToolLimit => format!("This action is beyond the {TOOLS_OFFERED} tools offered."),
            Refusal::OneActionPerStep => "not run: one action per step. Ask for it again in the next step if it is still needed.".into(),
            Refusal::CallLimit => "not run: too many actions in one step. Ask for it again in the next step if it is still needed.".into(),
            Refusal::RepeatedCall => "not run: the same action with the same arguments was already run in this turn; use its result above.".into(),
        }
    }

    /// How the reason is worded for the player where an action is left out
    /// (§12, §13, §18 labels).
    pub fn for_player(self) -> String {
        match self {
            Refusal::NeedsSetup => "Needs setup".into(),
            Refusal::CloudBlocked => "Kept on this PC: not used with online AI models".into(),
            Refusal::StreamPrivate => "Live on Twitch: reading your data is paused".into(),
            Refusal::NeedsConfirmation => "serious action: offered only where you can confirm it, each time".into(),
            Refusal::PluginOff | Refusal::ToolsOff => "off".into(),
            Refusal::DevModeOff => "Developer mode off".into(),
            Refusal::TwitchLevel => "not for the Twitch chat (only actions that read public data)".into(),
            Refusal::NotRequested => "no actions on a turn the player did not ask for".into(),
            Refusal::StepLimit => format!("this turn already used its {STEPS_PER_TURN} tool steps"),
            Refusal::Declined => "you declined it".into(),
            Refusal::Expired => "no answer in time: nothing was sent".into(),
            Refusal::Changed => "it changed while you were asked: nothing was sent".into(),
            Refusal::ToolLimit => {
                format!("over the {TOOLS_OFFERED}-tool limit: the player can turn off actions they do not need")
            }
            Refusal::OneActionPerStep => "not run: one action per step".into(),
            Refusal::CallLimit => "not run: too many actions in one step".into(),
            Refusal::RepeatedCall => "not run: already run with the same arguments in this turn".into(),
            Refusal::TwitchQuota | Refusal::UnknownTool => self.for_ai(),
        }
    }
}

crate::spelled! {
    /// The event door (§16): the reasons of §22 "Events" that the Actions
    /// tab shows, then the reasons of its other answers (§16 "Answers").
    pub enum EventReason {
        UnknownEvent => "unknown_event",
        EventOff => "event_off",
        PluginOff => "plugin_off",
        DevModeOff => "dev_mode_off",
        RateLimited => "rate_limited",
        EventExpired => "event_expired",
        /// Not said to an online AI: its plugin is kept on this PC (§13,
        /// issue 32; the refusal's spelling, not in §22's event list).
        CloudBlocked => "cloud_blocked",
        Accepted => "accepted",
        BadToken => "bad_token",
        InvalidJson => "invalid_json",
        MissingEvent => "missing_event",
        TextTooLong => "text_too_long",
        BrowserRequest => "browser_request",
        WrongHost => "wrong_host",
        MethodNotAllowed => "method_not_allowed",
        NotFound => "not_found",
        UnsupportedMediaType => "unsupported_media_type",
        BodyTooLarge => "body_too_large",
        UnreadableBody => "unreadable_body",
        InternalError => "internal_error",
    }
}

/// Any code of §22. Its JSON form is the code's spelling.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(untagged))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecCode {
    /// At import (and the `superlative` warning).
    Import(Code),
    /// When installing or saving settings.
    Settings(SettingsCode),
    /// In a tool result.
    Tool(ToolCode),
    /// A refusal's reason.
    Refusal(Refusal),
    /// An event's answer or reason.
    Event(EventReason),
}

/// Which family a spelling is read in: `plugin_off` and `dev_mode_off` are
/// both a refusal and an event reason, `bad_request` and `BAD_REQUEST`
/// differ only in case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// A tool call's line: a tool-result code or a refusal.
    Call,
    /// An event's line.
    Event,
}

impl SpecCode {
    /// The code as §22 spells it.
    pub fn as_str(self) -> Cow<'static, str> {
        match self {
            SpecCode::Import(code) => Cow::Borrowed(code.as_str()),
            SpecCode::Settings(code) => Cow::Borrowed(code.as_str()),
            SpecCode::Tool(code) => code.as_str(),
            SpecCode::Refusal(code) => Cow::Borrowed(code.as_str()),
            SpecCode::Event(code) => Cow::Borrowed(code.as_str()),
        }
    }

    /// What a call's code says happened, for a shell to word it: a
    /// tool-result code's [`ToolCode::family`], a refusal's reason
    /// [`ToolFamily::Refused`] (the reason says why); none for the codes
    /// of an import, of settings or of an event, which are no call's.
    pub fn tool_family(self) -> Option<ToolFamily> {
        match self {
            SpecCode::Tool(code) => Some(code.family()),
            SpecCode::Refusal(_) => Some(ToolFamily::Refused),
            SpecCode::Import(_) | SpecCode::Settings(_) | SpecCode::Event(_) => None,
        }
    }

    /// A journal line's code, read in its family.
    pub fn parse(text: &str, family: Family) -> Option<SpecCode> {
        match family {
            Family::Event => EventReason::parse(text).map(SpecCode::Event),
            Family::Call => {
                ToolCode::parse(text).map(SpecCode::Tool).or_else(|| Refusal::parse(text).map(SpecCode::Refusal))
            }
        }
    }
}

impl fmt::Display for SpecCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl fmt::Display for ToolCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl Serialize for SpecCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_str())
    }
}

impl Serialize for ToolCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_str())
    }
}

impl<'de> Deserialize<'de> for ToolCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        ToolCode::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("unknown code {text}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §22: every spelling reads back as the code that wrote it.
    #[test]
    fn s22_every_spelling_reads_back() {
        for code in CallCode::ALL {
            assert_eq!(ToolCode::parse(code.as_str()), Some(ToolCode::Call(code)));
        }
        for code in Refusal::ALL {
            assert_eq!(SpecCode::parse(code.as_str(), Family::Call), Some(SpecCode::Refusal(code)));
        }
        for code in EventReason::ALL {
            assert_eq!(SpecCode::parse(code.as_str(), Family::Event), Some(SpecCode::Event(code)));
        }
        for code in SettingsCode::ALL {
            assert_eq!(SettingsCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ToolCode::parse("HTTP_404"), Some(ToolCode::Http(404)));
        assert_eq!(ToolCode::parse("HTTP_4040"), None);
        assert_eq!(ToolCode::parse("HTTP_"), None);
    }

    /// §22: `plugin_off` read in an event's line is the event reason.
    #[test]
    fn s22_shared_spellings_read_in_their_family() {
        assert_eq!(SpecCode::parse("plugin_off", Family::Event), Some(SpecCode::Event(EventReason::PluginOff)));
        assert_eq!(SpecCode::parse("plugin_off", Family::Call), Some(SpecCode::Refusal(Refusal::PluginOff)));
        assert_eq!(SpecCode::parse("bad_token", Family::Call), None);
    }

    /// §22: TIMEOUT, NETWORK, 5xx and 429 are worth retrying, and nothing else.
    #[test]
    fn s22_retryable_codes() {
        let retryable: Vec<_> = CallCode::ALL.iter().filter(|c| ToolCode::Call(**c).retryable()).collect();
        assert_eq!(retryable, [&CallCode::Timeout, &CallCode::Network]);
        assert!(ToolCode::Http(429).retryable() && ToolCode::Http(503).retryable());
        assert!(!ToolCode::Http(404).retryable() && !ToolCode::Http(401).retryable());
    }

    /// Issue 33: a code's family is what its words say, by status class
    /// for a service's answer.
    #[test]
    fn s22_codes_have_their_family() {
        let family = |text: &str| ToolCode::parse(text).map(ToolCode::family);
        assert_eq!(family("HTTP_401"), Some(ToolFamily::KeyRefused));
        assert_eq!(family("HTTP_503"), Some(ToolFamily::ServiceDown));
        assert_eq!(family("HTTP_418"), Some(ToolFamily::ServiceError));
        assert_eq!(family("PRIVATE_ADDRESS"), Some(ToolFamily::NetworkRule));
        assert_eq!(family("BAD_REQUEST"), family("INVALID_ARGUMENTS"));
        assert_eq!(family("POLICY_DENIED"), Some(ToolFamily::Refused));
        assert_eq!(family("EXECUTION_ERROR"), Some(ToolFamily::Failed));
    }

    /// Issue 33: a call's line gives its family whether its code is a
    /// tool result's or a refusal's reason; an event's has none.
    #[test]
    fn a_calls_code_has_its_family_an_events_none() {
        let family = |text: &str, read: Family| SpecCode::parse(text, read).and_then(SpecCode::tool_family);
        assert_eq!(family("HTTP_503", Family::Call), Some(ToolFamily::ServiceDown));
        assert_eq!(family("plugin_off", Family::Call), Some(ToolFamily::Refused));
        assert_eq!(family("plugin_off", Family::Event), None);
    }

    /// Issue 33: the engine's own reasons are spelled codes, read in a
    /// call's line like the courtier's.
    #[test]
    fn the_engines_reasons_read_back_as_refusals() {
        for (text, code) in [
            ("tool_limit", Refusal::ToolLimit),
            ("one_action_per_step", Refusal::OneActionPerStep),
            ("call_limit", Refusal::CallLimit),
            ("repeated_call", Refusal::RepeatedCall),
        ] {
            assert_eq!(SpecCode::parse(text, Family::Call), Some(SpecCode::Refusal(code)));
        }
    }

    #[test]
    fn codes_serialize_as_their_spelling() {
        let json =
            serde_json::to_string(&[SpecCode::Tool(ToolCode::Http(502)), SpecCode::Refusal(Refusal::TwitchQuota)]);
        assert_eq!(json.expect("json"), r#"["HTTP_502","twitch_quota"]"#);
    }
}
