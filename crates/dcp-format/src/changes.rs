//! What an update changes in a plugin's permissions (§18), one
//! [`PermissionChange`] each: a kind and its parameters, so a window words
//! it in the player's language (§10) and `dcplugin` prints the one English
//! rendering ([`std::fmt::Display`]).
//!
//! §18 names hosts, tools, levels, methods, URLs and where secrets are
//! sent. Beside those, an update lists what a request sends besides its URL
//! (query, headers, body: the data that leaves the PC), the sites and PC
//! ports that secrets kept from the installed version will now reach (auth
//! goes with every request, §11, so a new site receives them), and a change
//! of author. The author counts as a change of permissions, which asks the
//! review banner's Keep again (§18): Keep is the player's word that they
//! trust an unsigned plugin, whose only identity is the author it names;
//! an update under the same slug naming someone else is what a plugin
//! changing hands looks like, and that trust was not given to them.
//! A row stored before the author and the requests' content were recorded
//! cannot tell what changed there: its update lists
//! [`PermissionChange::NotRecorded`] instead, and asks Keep again.

use crate::fingerprint::{Permissions, SecretDestination, Sends};
use crate::model::CloudModels;
use crate::risk::Level;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// One difference between the installed permissions and an update's.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PermissionChange {
    /// The author's name changed (§5; see the module doc).
    AuthorChanged {
        /// The installed version's, if any.
        old: Option<String>,
        /// The update's, if any.
        new: Option<String>,
    },
    /// A declared site is new.
    SiteAdded {
        /// The host.
        site: String,
    },
    /// A declared site is gone.
    SiteRemoved {
        /// The host.
        site: String,
    },
    /// A program on the PC is reached on a new port (§15).
    PortAdded {
        /// The loopback port.
        port: u16,
    },
    /// A port on the PC is no longer reached.
    PortRemoved {
        /// The loopback port.
        port: u16,
    },
    /// A new action.
    ActionAdded {
        /// Its short name.
        action: String,
        /// Its computed level.
        level: Level,
        /// HTTP method.
        method: String,
        /// URL template.
        url: String,
    },
    /// An action is gone.
    ActionRemoved {
        /// Its short name.
        action: String,
    },
    /// An action's computed level changed.
    LevelChanged {
        /// Its short name.
        action: String,
        /// The installed level.
        old: Level,
        /// The update's level.
        new: Level,
    },
    /// An action's HTTP method changed.
    MethodChanged {
        /// Its short name.
        action: String,
        /// The installed method.
        old: String,
        /// The update's method.
        new: String,
    },
    /// An action's URL template changed.
    UrlChanged {
        /// Its short name.
        action: String,
        /// The installed template.
        old: String,
        /// The update's template.
        new: String,
    },
    /// What an action sends besides its URL changed (§8).
    RequestChanged {
        /// Its short name.
        action: String,
        /// Which part of the request.
        part: RequestPart,
        /// The installed templates, as written (empty: none).
        old: String,
        /// The update's templates, as written (empty: none).
        new: String,
    },
    /// Secrets are sent to a new place (an auth entry, §11).
    SecretsSentAdded {
        /// `header` or `query`.
        location: String,
        /// The header (lowercased) or parameter name.
        name: String,
        /// The secret settings sent there.
        secrets: Vec<String>,
    },
    /// Secrets are no longer sent to a place.
    SecretsSentRemoved {
        /// `header` or `query`.
        location: String,
        /// The header (lowercased) or parameter name.
        name: String,
        /// The secret settings that were sent there.
        secrets: Vec<String>,
    },
    /// Secrets the installed version sent will now also reach a new site
    /// (auth goes with every request, §11).
    SecretsToSite {
        /// The host.
        site: String,
        /// The secret settings sent to both versions' sites.
        secrets: Vec<String>,
    },
    /// The same for a new port of a program on the PC (§15).
    SecretsToPort {
        /// The loopback port.
        port: u16,
        /// The secret settings sent to both versions' sites.
        secrets: Vec<String>,
    },
    /// A new event (§16).
    EventAdded {
        /// Its name.
        event: String,
    },
    /// An event is gone.
    EventRemoved {
        /// Its name.
        event: String,
    },
    /// Where the plugin's private data may go changed (§13).
    CloudChanged {
        /// Under the installed version.
        old: DataReach,
        /// Under the update.
        new: DataReach,
    },
    /// The installed version was stored by an earlier version of the app,
    /// which did not record its author nor what its requests send besides
    /// their URLs: changes there cannot be listed (see the module doc).
    NotRecorded,
}

crate::spelled! {
    /// A part of a request besides its URL (§8), for [`PermissionChange::RequestChanged`].
    pub enum RequestPart {
        /// The `query` parameters.
        Query => "query",
        /// The `headers`.
        Headers => "headers",
        /// The `body`.
        Body => "body",
    }
}

crate::spelled! {
    /// How far a plugin's private data may go (§13), for [`PermissionChange::CloudChanged`].
    pub enum DataReach {
        /// The plugin reads no private data.
        NoPrivateData => "no_private_data",
        /// Only with an AI running on the PC (`never`).
        Never => "never",
        /// The player is asked (`ask`).
        Asked => "asked",
        /// Any AI (`allowed`).
        Allowed => "allowed",
    }
}

impl DataReach {
    fn of(cloud: Option<CloudModels>) -> DataReach {
        match cloud {
            None => DataReach::NoPrivateData,
            Some(CloudModels::Never) => DataReach::Never,
            Some(CloudModels::Ask) => DataReach::Asked,
            Some(CloudModels::Allowed) => DataReach::Allowed,
        }
    }

    /// The English words of the CLI's line: the spelling, but for the one
    /// whose spelling is no phrase.
    fn label(self) -> &'static str {
        match self {
            DataReach::NoPrivateData => "no private data read",
            reach => reach.as_str(),
        }
    }
}

impl fmt::Display for PermissionChange {
    /// The English line `dcplugin` prints (the words it printed before the
    /// changes were structured).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PermissionChange::*;
        let or_none = |text: &str| if text.is_empty() { "none".to_owned() } else { text.to_owned() };
        match self {
            AuthorChanged { old, new } => {
                write!(
                    f,
                    "author: {} → {}",
                    or_none(old.as_deref().unwrap_or("")),
                    or_none(new.as_deref().unwrap_or(""))
                )
            }
            SiteAdded { site } => write!(f, "new site: {site}"),
            SiteRemoved { site } => write!(f, "site removed: {site}"),
            PortAdded { port } => write!(f, "new local server: this PC · port {port}"),
            PortRemoved { port } => write!(f, "local server removed: this PC · port {port}"),
            ActionAdded { action, level, method, url } => write!(f, "new action {action}: {level:?}, {method} {url}"),
            ActionRemoved { action } => write!(f, "action removed: {action}"),
            LevelChanged { action, old, new } => write!(f, "action {action}: level {old:?} → {new:?}"),
            MethodChanged { action, old, new } => write!(f, "action {action}: method {old} → {new}"),
            UrlChanged { action, old, new } => write!(f, "action {action}: URL {old} → {new}"),
            RequestChanged { action, part, old, new } => {
                write!(f, "action {action}: {} {} → {}", part, or_none(old), or_none(new))
            }
            SecretsSentAdded { location, name, secrets } => {
                write!(f, "new secrets sent in: {location} {name} ({})", secrets.join(", "))
            }
            SecretsSentRemoved { location, name, secrets } => {
                write!(f, "secrets sent in removed: {location} {name} ({})", secrets.join(", "))
            }
            SecretsToSite { site, secrets } => {
                write!(f, "secrets now sent to a new site: {site} ({})", secrets.join(", "))
            }
            SecretsToPort { port, secrets } => {
                write!(f, "secrets now sent to a new local server: this PC · port {port} ({})", secrets.join(", "))
            }
            EventAdded { event } => write!(f, "new event: {event}"),
            EventRemoved { event } => write!(f, "event removed: {event}"),
            CloudChanged { old, new } => {
                write!(f, "your data with online AI models: {} → {}", old.label(), new.label())
            }
            NotRecorded => f.write_str(
                "the installed version's author and what its actions send besides their URLs were not recorded \
                 by the earlier version of the app: changes there are not listed",
            ),
        }
    }
}

impl Permissions {
    /// What changed from `old` to `self`, for the review of an update
    /// (§18); empty when the permissions are the same. In a fixed order:
    /// author, sites, ports, actions, where secrets are sent (and the new
    /// sites kept secrets reach), events, online AI, and what was not recorded.
    pub fn changes_from(&self, old: &Permissions) -> Vec<PermissionChange> {
        use PermissionChange::*;
        let mut out = Vec::new();
        if let (Some(was), Some(now)) = (&old.author, &self.author) {
            if was != now {
                out.push(AuthorChanged { old: was.clone(), new: now.clone() });
            }
        }
        out.extend(added(&old.hosts, &self.hosts).map(|s| SiteAdded { site: s.clone() }));
        out.extend(added(&self.hosts, &old.hosts).map(|s| SiteRemoved { site: s.clone() }));
        out.extend(added(&old.local_ports, &self.local_ports).map(|&port| PortAdded { port }));
        out.extend(added(&self.local_ports, &old.local_ports).map(|&port| PortRemoved { port }));
        action_changes(&mut out, old, self);
        out.extend(added(&old.secrets_sent, &self.secrets_sent).map(|d| secrets(d, true)));
        out.extend(added(&self.secrets_sent, &old.secrets_sent).map(|d| secrets(d, false)));
        kept_secrets_reach(&mut out, old, self);
        out.extend(added(&old.events, &self.events).map(|e| EventAdded { event: e.clone() }));
        out.extend(added(&self.events, &old.events).map(|e| EventRemoved { event: e.clone() }));
        if old.cloud_models != self.cloud_models {
            out.push(CloudChanged { old: DataReach::of(old.cloud_models), new: DataReach::of(self.cloud_models) });
        }
        if old.author.is_none() && self.author.is_some() {
            out.push(NotRecorded);
        }
        out
    }
}

/// New actions and changed ones in the update's order, then removed ones.
fn action_changes(out: &mut Vec<PermissionChange>, old: &Permissions, new: &Permissions) {
    use PermissionChange::*;
    for (name, now) in &new.tools {
        let action = || name.clone();
        let Some(was) = old.tools.get(name) else {
            out.push(ActionAdded {
                action: action(),
                level: now.level,
                method: now.method.clone(),
                url: now.url.clone(),
            });
            continue;
        };
        if was.level != now.level {
            out.push(LevelChanged { action: action(), old: was.level, new: now.level });
        }
        if was.method != now.method {
            out.push(MethodChanged { action: action(), old: was.method.clone(), new: now.method.clone() });
        }
        if was.url != now.url {
            out.push(UrlChanged { action: action(), old: was.url.clone(), new: now.url.clone() });
        }
        if let (Some(was), Some(now)) = (&was.sends, &now.sends) {
            request_changes(out, name, was, now);
        }
    }
    out.extend(old.tools.keys().filter(|n| !new.tools.contains_key(*n)).map(|n| ActionRemoved { action: n.clone() }));
}

/// The parts of `action`'s request that changed besides its URL.
fn request_changes(out: &mut Vec<PermissionChange>, action: &str, was: &Sends, now: &Sends) {
    let parts = [
        (RequestPart::Query, &was.query, &now.query),
        (RequestPart::Headers, &was.headers, &now.headers),
        (RequestPart::Body, &was.body, &now.body),
    ];
    for (part, old, new) in parts.into_iter().filter(|(_, old, new)| old != new) {
        out.push(PermissionChange::RequestChanged {
            action: action.to_owned(),
            part,
            old: old.clone(),
            new: new.clone(),
        });
    }
}

/// The new sites and ports that secrets sent by both versions will reach:
/// auth goes with every request (§11), so every declared site gets them.
fn kept_secrets_reach(out: &mut Vec<PermissionChange>, old: &Permissions, new: &Permissions) {
    let sent = |p: &Permissions| p.secrets_sent.iter().flat_map(|d| d.secrets.iter().cloned()).collect::<BTreeSet<_>>();
    let kept: Vec<String> = sent(old).intersection(&sent(new)).cloned().collect();
    if kept.is_empty() {
        return;
    }
    let secrets = || kept.clone();
    out.extend(
        added(&old.hosts, &new.hosts).map(|s| PermissionChange::SecretsToSite { site: s.clone(), secrets: secrets() }),
    );
    out.extend(
        added(&old.local_ports, &new.local_ports)
            .map(|&port| PermissionChange::SecretsToPort { port, secrets: secrets() }),
    );
}

fn secrets(d: &SecretDestination, added: bool) -> PermissionChange {
    let (location, name, secrets) = (d.location.clone(), d.name.clone(), d.secrets.iter().cloned().collect());
    if added {
        PermissionChange::SecretsSentAdded { location, name, secrets }
    } else {
        PermissionChange::SecretsSentRemoved { location, name, secrets }
    }
}

/// What `new` has that `old` has not, in order.
fn added<'a, T: Ord>(old: &'a BTreeSet<T>, new: &'a BTreeSet<T>) -> impl Iterator<Item = &'a T> {
    new.difference(old)
}
