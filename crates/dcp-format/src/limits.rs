//! The numbers of spec §21 "Reference: limits", in one place.
//!
//! Every check in the engine reads its limit from here, so a limit of the
//! spec is written exactly once.

/// Package (.json or .zip), and the uncompressed content of a .zip.
pub const PACKAGE_BYTES: u64 = 1024 * 1024;
/// The manifest file.
pub const MANIFEST_BYTES: u64 = 64 * 1024;
/// Files in a .zip.
pub const ZIP_FILES: usize = 20;
/// icon.png.
pub const ICON_BYTES: u64 = 256 * 1024;
/// icon.png's width and height, each (not in §21: a few KB of PNG can
/// declare 60000 × 60000 px, about 14 GB for a webview to decode; §4
/// recommends 256 px and shows 32 to 40).
pub const ICON_PIXELS: u32 = 1024;
/// `name`.
pub const NAME_CHARS: usize = 60;
/// `display_name`.
pub const DISPLAY_NAME_CHARS: usize = 40;
/// The plugin's `description`.
pub const PLUGIN_DESCRIPTION_CHARS: usize = 300;
/// `author.name` is cut, not refused, at this length.
pub const AUTHOR_CHARS: usize = 60;
/// Slug length.
pub const SLUG_CHARS: std::ops::RangeInclusive<usize> = 2..=20;
/// Declared hosts.
pub const HOSTS: std::ops::RangeInclusive<usize> = 1..=10;
/// Declared local ports.
pub const LOCAL_PORTS: std::ops::RangeInclusive<usize> = 1..=3;
/// Tools per plugin.
pub const TOOLS: std::ops::RangeInclusive<usize> = 1..=15;
/// A tool's short name.
pub const TOOL_NAME_CHARS: usize = 40;
/// `<slug>__<tool>`.
pub const FULL_TOOL_NAME_CHARS: usize = 64;
/// A tool's description.
pub const TOOL_DESCRIPTION_CHARS: usize = 200;
/// A hint, per language.
pub const HINT_CHARS: usize = 60;
/// Properties of an inputSchema.
pub const PROPERTIES: usize = 10;
/// A property name.
pub const PROPERTY_NAME_CHARS: usize = 31;
/// A property's description.
pub const PROPERTY_DESCRIPTION_CHARS: usize = 200;
/// Values of an enum.
pub const ENUM_VALUES: std::ops::RangeInclusive<usize> = 1..=50;
/// A text argument after cleaning (§7), unless its maxLength is smaller.
pub const TEXT_ARGUMENT_CHARS: usize = 500;
/// Entries of `query` and of `body`.
pub const QUERY_ENTRIES: usize = 20;
/// Entries of `body`.
pub const BODY_ENTRIES: usize = 20;
/// Entries of `headers`.
pub const HEADER_ENTRIES: usize = 10;
/// A header name (§8), and an auth entry's name (§11).
pub const HEADER_NAME_CHARS: usize = 40;
/// Paths in `pick`.
pub const PICK_PATHS: usize = 10;
/// Items kept in a picked list.
pub const PICKED_LIST_ITEMS: usize = 100;
/// `maxChars` bounds.
pub const MAX_CHARS: std::ops::RangeInclusive<u64> = 200..=16_000;
/// `maxChars` when absent.
pub const DEFAULT_MAX_CHARS: u64 = 4_000;
/// Settings.
pub const SETTINGS: usize = 20;
/// A setting key.
pub const SETTING_KEY_CHARS: usize = 31;
/// A setting title.
pub const SETTING_TITLE_CHARS: usize = 80;
/// A setting description.
pub const SETTING_DESCRIPTION_CHARS: usize = 200;
/// A text setting.
pub const TEXT_SETTING_CHARS: u64 = 500;
/// A secret setting.
pub const SECRET_SETTING_CHARS: u64 = 2_000;
/// An `format: "id"` value.
pub const ID_SETTING_CHARS: usize = 64;
/// Auth entries.
pub const AUTH_ENTRIES: std::ops::RangeInclusive<usize> = 1..=3;
/// `auth.value`.
pub const AUTH_VALUE_CHARS: usize = 300;
/// `helpUrl`.
pub const HELP_URL_CHARS: usize = 500;
/// An answer (§14).
pub const RESPONSE_BYTES: u64 = 2 * 1024 * 1024;
/// One call, redirects included (§14).
pub const CALL_SECONDS: u64 = 20;
/// Redirects followed (§14).
pub const REDIRECTS: usize = 3;
/// Tool steps per turn (§3).
pub const STEPS_PER_TURN: usize = 5;
/// Tool calls run in one step (not in §3, which counts steps only: one
/// online answer asking for 200 notes ran all 200 in 1.5 s, issue 32).
/// The others of the step are answered "not run" (`call_limit`), so every
/// call id still has its answer; an AI on the PC runs one anyway.
pub const CALLS_PER_STEP: usize = 5;
/// Tool calls kept of one answer (not in §21: 100,000 calls in a 1.8 MB
/// answer were sent back to the AI as 125 MB requests, issue 32). Calls
/// past these are dropped from the reply before anything runs: never
/// answered, never sent back to the AI, only counted. Above
/// [`CALLS_PER_STEP`] so the AI still reads which of its calls were not run.
pub const CALLS_PER_ANSWER: usize = 32;
/// Seconds a whole turn may last, every AI request, tool call and R3
/// question of it included (not in §3: a stream of keep-alive comments
/// never ended a turn, issue 32). Past it the turn ends `ai_turn_too_long`.
pub const TURN_SECONDS: u64 = 300;
/// Tools offered to the AI, all sources (§17).
pub const TOOLS_OFFERED: usize = 30;
/// Events per plugin.
pub const EVENTS: std::ops::RangeInclusive<usize> = 1..=10;
/// An event name.
pub const EVENT_NAME_CHARS: usize = 40;
/// An event title, per language.
pub const EVENT_TITLE_CHARS: usize = 60;
/// An event's text (§16).
pub const EVENT_TEXT_CHARS: usize = 280;
/// An event request body (§16).
pub const EVENT_BODY_BYTES: u64 = 2 * 1024;
/// Minimum seconds between two accepted events of one plugin (§16).
pub const EVENT_INTERVAL_SECONDS: u64 = 10;
/// Events accepted per plugin in any rolling hour (§16).
pub const EVENTS_PER_HOUR: usize = 30;
/// Events waiting for the companion (§16).
pub const EVENTS_WAITING: usize = 3;
/// Seconds an event may wait before it is dropped (§16).
pub const EVENT_WAIT_SECONDS: u64 = 600;
