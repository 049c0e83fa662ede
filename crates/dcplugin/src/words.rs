//! The command line's own words for the facts the host reports (a status,
//! an origin, a port and its warning, an update's changes, the online-AI
//! choice, a failed call's code), and the `--json` shapes it has
//! always printed, built from those facts: the host sends no sentence, so
//! what a script reads of `list`, `show`, `reload`, `events` and a review stays
//! exactly what it was.

use dcp_companion::ToolFamily;
use dcp_host::{
    AiTest, Card, CloudChoice, DoorState, EventView, EventsPage, Origin, PcServer, Place, PluginDetails, Review,
    SettingView, Status, Wanted,
};
use serde::Serialize;
use serde_json::Value;

/// A status as `list` and `show` print it (§18).
pub fn status_label(status: Status) -> &'static str {
    match status {
        Status::Missing => "Missing",
        Status::Invalid => "Invalid",
        Status::Modified => "Modified",
        Status::DevModeOff => "Developer mode off",
        Status::Off => "Off",
        Status::NeedsSetup => "Needs setup",
        Status::ToolsOff => "Tools off",
        Status::Active => "Active",
    }
}

/// Where a plugin comes from, as its badge says it (§18).
pub fn origin_badge(origin: Origin) -> &'static str {
    match origin {
        Origin::Import => "Not signed",
        Origin::Folder => "Folder (dev)",
        Origin::Official => "Official",
    }
}

/// What `ai test` says of the model and tools (issue 34), from the facts
/// of an [`AiTest`] that reached the AI: one line, and for llama.cpp a
/// second (a model is not the only fix there: its chat template is).
pub fn tools_lines(tested: &AiTest) -> Vec<String> {
    let server = tested.server.map(|s| s.server);
    match tested.tools {
        Some(true) => vec!["tools: this model can use your plugins".to_owned()],
        Some(false) => {
            let mut lines = no_tools_lines(server, tested.tool_model);
            lines[0] = format!("tools: {}", lines[0]);
            lines
        }
        None if tested.place == Some(Place::Online) => vec!["tools: unknown (an online AI is not asked)".to_owned()],
        None => vec!["tools: unknown (the server does not say whether this model can use tools)".to_owned()],
    }
}

/// A model that cannot use tools, as `ai test` and `chat` say it (issue
/// 34): the first line what it means, with a model that can (`example`);
/// for llama.cpp a second, indented (a model is not the only fix there: its
/// chat template is).
pub fn no_tools_lines(server: Option<PcServer>, example: Option<&str>) -> Vec<String> {
    let example = example.map_or_else(String::new, |m| format!(", e.g. {m}"));
    let mut lines =
        vec![format!("this model cannot use tools: your plugins will not be used; choose another model{example}")];
    if server == Some(PcServer::LlamaCpp) {
        lines.push(
            "  llama.cpp uses tools only when the model's chat template supports them: choose such a model, or \
             start llama-server with --chat-template-file FILE (a template with tools)"
                .to_owned(),
        );
    }
    lines
}

/// Where the companion's AI runs, as `ai` and `chat` say it.
pub fn place_words(place: Place) -> &'static str {
    match place {
        Place::Pc => "on this PC",
        Place::Online => "online: what your plugins return is sent to this service",
    }
}

/// §15's warning beside a port of a program on this PC.
pub const LOCAL_PORT_WARNING: &str = "install it only if you started this program yourself";
/// §16's warning beside the port events arrive on.
pub const EVENTS_WARNING: &str = "turn an event on only if you started the program yourself";

/// What an update changes, one line each, as `import` prints it (and
/// `--json`'s `changes` has always carried it).
pub fn change_lines(review: &Review) -> Vec<String> {
    review.permission_changes.iter().map(ToString::to_string).collect()
}

/// A review as `import`, `load` and `catalog --import` print it with
/// `--json`: the host's facts, and the words they have always carried
/// beside them, where they have always been (the badge before `origin`,
/// each action's label after its `level`, the changes' lines after
/// `permissions_changed`, each port with its warning).
pub fn review_json(review: &Review) -> serde_json::Result<Value> {
    let mut out = serde_json::to_value(review)?;
    if let Value::Object(fields) = &mut out {
        insert_before(fields, "origin", "badge", origin_badge(review.origin).into());
        insert_after(fields, "permissions_changed", "changes", change_lines(review).into());
        let port = |port: u16, warning: &str| serde_json::json!({ "port": port, "warning": warning });
        let ports = review.local_ports.iter().map(|&p| port(p, LOCAL_PORT_WARNING)).collect();
        fields.insert("local_ports".into(), Value::Array(ports));
        fields.insert("events_door".into(), review.events_door.map_or(Value::Null, |p| port(p, EVENTS_WARNING)));
        if let Some(Value::Array(actions)) = fields.get_mut("actions") {
            for (json, action) in actions.iter_mut().zip(&review.actions) {
                if let Value::Object(fields) = json {
                    insert_after(fields, "level", "label", action.level.label().into());
                }
            }
        }
        let settings: Vec<_> = review.settings.iter().map(ReviewSettingJson::of).collect();
        fields.insert("settings".into(), serde_json::to_value(settings)?);
    }
    Ok(out)
}

/// A review's setting as `--json` has always printed it: the host's one
/// setting view, under the consent screen's names (a kept value is `set`,
/// the default the field starts with is `value`).
#[derive(Serialize)]
struct ReviewSettingJson<'a> {
    key: &'a str,
    title: &'a str,
    description: Option<&'a str>,
    kind: &'static str,
    min: Option<f64>,
    max: Option<f64>,
    required: bool,
    secret: bool,
    default: &'a Option<Value>,
    help_url: Option<&'a str>,
    help_domain: Option<&'a str>,
    kept: bool,
}

impl ReviewSettingJson<'_> {
    fn of(s: &SettingView) -> ReviewSettingJson<'_> {
        ReviewSettingJson {
            key: &s.key,
            title: &s.label,
            description: s.description.as_deref(),
            kind: s.kind,
            min: s.min,
            max: s.max,
            required: s.required,
            secret: s.secret,
            default: &s.value,
            help_url: s.help_url.as_deref(),
            help_domain: s.help_domain.as_deref(),
            kept: s.set,
        }
    }
}

/// Puts `new` just before `key`, where a script has always found it.
fn insert_before(fields: &mut serde_json::Map<String, Value>, key: &str, new: &str, value: Value) {
    let at = fields.keys().position(|k| k == key).unwrap_or(fields.len());
    fields.shift_insert(at, new.into(), value);
}

/// Puts `new` just after `key`, where a script has always found it.
fn insert_after(fields: &mut serde_json::Map<String, Value>, key: &str, new: &str, value: Value) {
    let at = fields.keys().position(|k| k == key).map_or(fields.len(), |i| i + 1);
    fields.shift_insert(at, new.into(), value);
}

/// A failed call in words, by what its code says happened (the engine's
/// fact, issue 33), as `chat`'s tool line says it before the code itself
/// (§22 "In a tool result").
pub fn failure_words(family: ToolFamily) -> &'static str {
    match family {
        ToolFamily::KeyRefused => "the service refused the key",
        ToolFamily::AccessRefused => "the service refused access",
        ToolFamily::NotFound => "the service did not find what was asked",
        ToolFamily::ServiceBusy => "the service is busy",
        ToolFamily::ServiceDown => "the service has a problem right now",
        ToolFamily::ServiceError => "the service answered with an error",
        ToolFamily::Timeout => "the service took too long to answer",
        ToolFamily::DnsFailed => "the site's address could not be found",
        ToolFamily::Network => "the service could not be reached",
        ToolFamily::NeedsSetup => "a key or setting is missing",
        ToolFamily::TooLarge => "the answer was too large",
        ToolFamily::Unreadable => "the answer could not be read",
        ToolFamily::Busy => "another action of this plugin is still running",
        ToolFamily::BadArguments => "the arguments do not match what the action expects",
        ToolFamily::NetworkRule => "the request broke a network rule",
        ToolFamily::UnknownTool => "no such action",
        ToolFamily::Failed | ToolFamily::Refused => "it did not work",
    }
}

/// A card whose calls keep failing, as `list` says it under its line
/// (§18: "Active" alone misleads): how many, why, and the newest code.
pub fn failing_line(f: &dcp_host::Failing) -> String {
    let code = &f.code;
    // A code another version of the app wrote is shown as it is.
    let words = match code {
        dcp_host::JournalValue::Known(known) => failure_words(known.family()),
        dcp_host::JournalValue::Unknown(_) => failure_words(ToolFamily::Failed),
    };
    match f.calls {
        1 => format!("its last call failed: {words} ({code})"),
        n => format!("its last {n} calls failed: {words} ({code})"),
    }
}

/// The door's state as `serve` prints it (§16). `by_a_door`: the program
/// holding a taken port answered as an event door does (issue 23: beside
/// the app's window, that is most often the window's own door).
pub fn door_state_words(state: &DoorState, by_a_door: bool) -> String {
    match state {
        DoorState::Closed { why: Wanted::DevModeOff } => "closed: developer mode is off".into(),
        DoorState::Closed { .. } => "closed: no event of an active plugin is switched on".into(),
        DoorState::Listening { port } => format!("listening on 127.0.0.1:{port}"),
        DoorState::PortTaken { port } if by_a_door => format!(
            "port {port} is used by another event door (the Desktop Companion Plugins window's, or another `{} \
             serve`'s): it already takes the events, so post them there, or close it to open this one",
            crate::me()
        ),
        DoorState::PortTaken { port } => format!(
            "port {port} is used by another program, which does not answer as the app's event door does: close \
             it to open this one"
        ),
    }
}

/// A card's badges (§18, §13, §15): where it comes from, kept on this PC,
/// each program on this PC it talks to.
pub fn badges(card: &Card) -> Vec<String> {
    let mut out = vec![origin_badge(card.origin).to_owned()];
    if card.kept_on_pc {
        out.push("Kept on this PC".into());
    }
    out.extend(card.local_ports.iter().map(|port| format!("Talks to a program on this PC (port {port})")));
    out
}

/// Where a plugin's private data may go, as `show` prints it (§13).
pub fn cloud_words(choice: Option<CloudChoice>) -> &'static str {
    match choice {
        Some(CloudChoice::Allow) => "allowed",
        Some(CloudChoice::Local) => "not used: kept on this PC",
        None => "not asked (no private data read)",
    }
}

/// A card in `list --json` and `reload --json`.
#[derive(Serialize)]
pub struct CardJson {
    slug: String,
    name: String,
    version: String,
    status: Status,
    status_label: &'static str,
    enabled: bool,
    origin: dcp_host::Origin,
    badges: Vec<String>,
    author: Option<String>,
    description: Option<String>,
    has_icon: bool,
    recent_errors: u32,
    /// Its calls keep failing (a field added to the shape: nothing else moved).
    failing: Option<dcp_host::Failing>,
}

impl CardJson {
    pub fn of(c: &Card) -> CardJson {
        CardJson {
            slug: c.slug.clone(),
            name: c.name.clone(),
            version: c.version.clone(),
            status: c.status,
            status_label: status_label(c.status),
            enabled: c.enabled,
            origin: c.origin,
            badges: badges(c),
            author: c.author.clone(),
            description: c.description.clone(),
            has_icon: c.has_icon,
            recent_errors: c.recent_errors,
            failing: c.failing.clone(),
        }
    }

    pub fn list(cards: &[Card]) -> Vec<CardJson> {
        cards.iter().map(CardJson::of).collect()
    }
}

/// A setting in `show --json`.
#[derive(Serialize)]
struct SettingJson {
    key: String,
    kind: &'static str,
    min: Option<f64>,
    max: Option<f64>,
    label: String,
    description: Option<String>,
    help_url: Option<String>,
    required: bool,
    secret: bool,
    set: bool,
    value: Option<Value>,
}

impl SettingJson {
    fn of(s: &SettingView) -> SettingJson {
        SettingJson {
            key: s.key.clone(),
            kind: s.kind,
            min: s.min,
            max: s.max,
            label: s.label.clone(),
            description: s.description.clone(),
            help_url: s.help_url.clone(),
            required: s.required,
            secret: s.secret,
            set: s.set,
            value: s.value.clone(),
        }
    }
}

/// `show --json`: the card's shape, then the details page.
#[derive(Serialize)]
pub struct DetailsJson {
    #[serde(flatten)]
    card: CardJson,
    settings: Vec<SettingJson>,
    actions: Vec<dcp_host::ActionView>,
    events: Vec<EventView>,
    sites: Vec<String>,
    local_ports: Vec<u16>,
    cloud_choice: Option<CloudChoice>,
    twitch_allowed: bool,
    review_banner: bool,
    errors: Vec<dcp_host::Problem>,
    manifest_fingerprint: String,
    permissions_fingerprint: String,
    folder: std::path::PathBuf,
    last_failures: Vec<dcp_host::FailedCall>,
}

impl DetailsJson {
    pub fn of(d: &PluginDetails) -> DetailsJson {
        DetailsJson {
            card: CardJson::of(&d.card),
            settings: d.settings.iter().map(SettingJson::of).collect(),
            actions: d.actions.clone(),
            events: d.events.clone(),
            sites: d.sites.clone(),
            local_ports: d.card.local_ports.clone(),
            cloud_choice: d.cloud_choice,
            twitch_allowed: d.twitch_allowed,
            review_banner: d.review_banner,
            errors: d.errors.clone(),
            manifest_fingerprint: d.manifest_fingerprint.clone(),
            permissions_fingerprint: d.permissions_fingerprint.clone(),
            folder: d.folder.clone(),
            last_failures: d.last_failures.clone(),
        }
    }
}

/// `events SLUG --json`: the status as words, as it always was.
#[derive(Serialize)]
pub struct EventsPageJson {
    slug: String,
    status: &'static str,
    events: Vec<EventView>,
    door: dcp_host::DoorView,
    token_made: bool,
}

impl EventsPageJson {
    pub fn of(p: &EventsPage) -> EventsPageJson {
        EventsPageJson {
            slug: p.slug.clone(),
            status: status_label(p.status),
            events: p.events.clone(),
            door: p.door.clone(),
            token_made: p.token_made,
        }
    }
}
