//! The plugin commands: import and consent, the installed plugins, their
//! switches and settings, and the app switches. Each maps to one method of
//! the host and prints its result; no rule lives here.

use super::hints;
use super::host::{done, fail, run as act, run_as, Ok as Done};
use crate::choice::{OnOff, Permit};
use crate::localtime::format_ms;
use crate::shown::{errln, line};
use crate::words::{self, CardJson, DetailsJson};
use crate::{Command, InstallArgs};
use dcp_host::{
    ApiError, Card, CloudQuestion, Host, InstallOptions, Installed, PluginDetails, Review, Sensitive, Status,
    SwitchesPatch, ToolRef,
};
use serde_json::Value;
use std::io::Read;
use std::process::ExitCode;

pub fn run(host: &Host, command: Command, json: bool) -> anyhow::Result<ExitCode> {
    let ok = || Done { ok: true };
    Ok(match command {
        Command::Import { path, yes, install } => {
            consent(host, host.block_on(host.import_path(path)), yes, &install, json)?
        }
        Command::LoadFolder { dir, yes, install } => {
            consent(host, host.block_on(host.load_folder(dir)), yes, &install, json)?
        }
        Command::Catalog { import: Some(slug), yes, install } => {
            // `catalog --import` has always shown its review as new, even
            // for the manifest already installed: its words stay as they were.
            let review = host.block_on(host.import_official(&slug)).map(|r| Review { same_manifest: false, ..r });
            consent(host, review, yes, &install, json)?
        }
        Command::Catalog { import: None, .. } => act(host, json, host.catalog(), |entries| {
            let mut lines: Vec<String> = entries
                .iter()
                .map(|e| format!("{}  {} {}  {}", e.slug, e.name, e.version, e.description.clone().unwrap_or_default()))
                .collect();
            if let Some(first) = entries.first() {
                lines.push(format!(
                    "next: review one before installing it: {} catalog --import {}",
                    crate::me(),
                    first.slug
                ));
            }
            lines.join("\n")
        }),
        Command::Install { review, install } => {
            let options = install_options(&install)?;
            // The review as the player saw it, for the next steps.
            let pending = host.block_on(host.review(&review)).ok();
            match host.block_on(host.install(&review, options)) {
                Ok(installed) => done(&installed, json, || {
                    let mut lines = vec![installed_line(&installed)];
                    if let Some(r) = &pending {
                        lines.extend(hints::after_install(r, ai_set(host)));
                    }
                    lines.join("\n")
                }),
                Err(e) => fail(&e, json),
            }
        }
        Command::Cancel { review } => {
            act(host, json, async { host.cancel(&review).await.map(|()| ok()) }, |_| format!("cancelled {review}"))
        }
        Command::List => run_as(
            host,
            json,
            host.cards(),
            |c| CardJson::list(c),
            |entries| {
                if entries.is_empty() {
                    let me = crate::me();
                    return format!(
                    "no plugin installed\nnext: {me} import FILE (a .json or .zip), {me} catalog (the official ones), \
                     or dcplugin init DIR to write one"
                );
                }
                let mut lines: Vec<String> = Vec::new();
                for e in entries {
                    let status = words::status_label(e.status);
                    lines.push(format!(
                        "{:<20} {:<8} {:<20} {}",
                        e.slug,
                        e.version,
                        status,
                        words::badges(e).join(", ")
                    ));
                    if let Some(failing) = &e.failing {
                        lines.push(format!("{:<20} {}", "", words::failing_line(failing)));
                    }
                }
                if let Some(warning) = host.block_on(host.secrets_persistence()).warning() {
                    lines.push(format!("note: {warning}"));
                }
                lines.join("\n")
            },
        ),
        Command::Show { slug } => run_as(host, json, host.details(&slug), DetailsJson::of, human_details),
        Command::Enable { slug, action } => switch(host, &slug, action.as_deref(), true, json),
        Command::Disable { slug, action } => switch(host, &slug, action.as_deref(), false, json),
        Command::Set { slug, values } => {
            let values = pairs(&values)?.into_iter().map(|(k, v)| (k, Value::String(v))).collect::<Vec<_>>();
            edited(host, json, host.save_settings(&slug, values), "saved".into())
        }
        Command::Secret { slug, key, clear: true } => {
            edited(host, json, host.clear_secret(&slug, &key), format!("{key}: not set"))
        }
        Command::Secret { slug, key, clear: false } => {
            let value = read_secret()?;
            if value.expose().starts_with(&format!("{key}=")) {
                anyhow::bail!(
                    "standard input starts with \"{key}=\": `dcplugin secret` reads the raw value only, not \
                     KEY=VALUE (that is the format of `install --secrets-stdin`); nothing was saved. Send the \
                     value alone: printf '%s' \"$VALUE\" | {} secret {slug} {key}",
                    crate::me()
                );
            }
            edited(host, json, host.set_secret(&slug, &key, value), format!("{key}: set"))
        }
        Command::Cloud { slug, choice } => edited(host, json, host.set_cloud(&slug, choice), "saved".into()),
        Command::Twitch { slug, choice } => {
            edited(host, json, host.set_twitch(&slug, choice == Permit::Allow), "saved".into())
        }
        Command::Keep { slug } => edited(host, json, host.keep(&slug), "kept".into()),
        Command::Uninstall { slug } => {
            act(host, json, async { host.uninstall(&slug).await.map(|()| ok()) }, |_| format!("uninstalled {slug}"))
        }
        Command::Reload => run_as(
            host,
            json,
            host.reload(),
            |c| CardJson::list(c),
            |entries| {
                let mut lines = Vec::new();
                for e in entries {
                    lines.push(format!("{:<20} {}", e.slug, words::status_label(e.status)));
                    if let Some(fix) = hints::status_fix(e) {
                        lines.push(format!("  {fix}"));
                    }
                }
                if lines.is_empty() {
                    "no plugin installed".to_owned()
                } else {
                    lines.join("\n")
                }
            },
        ),
        Command::DevMode { state } => {
            let patch = SwitchesPatch { dev_mode: Some(state == OnOff::On), ..SwitchesPatch::default() };
            act(host, json, async { host.set_switches(patch).await.map(|_| ok()) }, |_| {
                if state == OnOff::On {
                    format!(
                        "developer mode on\nnext: load a plugin folder in place: {} load-folder DIR \
                         (dcplugin init DIR starts a new one)",
                        crate::me()
                    )
                } else {
                    "developer mode off (plugins from a folder or talking to this PC are paused)".to_owned()
                }
            })
        }
        Command::Prefs { values } => prefs(host, &values, json)?,
        Command::PluginsFolder => {
            let folder = host.plugins_folder();
            done(&serde_json::json!({ "folder": folder }), json, || folder.display().to_string())
        }
        Command::Tools { turn } => super::calls::tools(host, &turn, json),
        Command::Call { tool, args, turn } => super::calls::call(host, &tool, args.as_deref(), &turn, json)?,
        Command::Journal { limit, plugin, outcome, kind, before } => {
            let query = dcp_host::JournalQuery { limit, plugin, outcome, kind, before };
            super::calls::journal(host, query, json)
        }
        Command::Events { slug, what, event, new, .. } => {
            super::events::run(host, &slug, what, event.as_deref(), new, json)?
        }
        Command::Validate { .. }
        | Command::Pack { .. }
        | Command::Serve { .. }
        | Command::Init { .. }
        | Command::Ai { .. }
        | Command::Chat(_)
        | Command::TwitchChat { .. }
        | Command::Mcp { .. } => {
            unreachable!("handled without this store")
        }
    })
}

fn installed_line(i: &Installed) -> String {
    if i.same_manifest {
        format!(
            "already installed: {} {} with this same manifest; installed again (settings, secrets and switches kept)",
            i.slug, i.version
        )
    } else {
        format!("installed {} {}{}", i.slug, i.version, if i.update { " (update)" } else { "" })
    }
}

/// The review, then the install at once with `--yes`.
fn consent(
    host: &Host,
    review: Result<Review, ApiError>,
    yes: bool,
    install: &InstallArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let review = match review {
        Ok(review) => review,
        Err(e) => return Ok(fail(&e, json)),
    };
    if !yes {
        return Ok(done(&words::review_json(&review)?, json, || {
            let mut lines = vec![human_review(&review, review.same_manifest)];
            lines.extend(hints::install_lines(&review));
            lines.join("\n")
        }));
    }
    Ok(match host.block_on(host.install(&review.review, install_options(install)?)) {
        Ok(installed) => {
            // `--yes --json`: the review's fields as `--yes` has always
            // printed them, then `installed`, whose `same_manifest` is the
            // one that holds after the install.
            let mut out = words::review_json(&review)?;
            if let Value::Object(fields) = &mut out {
                fields.shift_remove("same_manifest");
                fields.insert("installed".into(), serde_json::to_value(&installed)?);
            }
            done(&out, json, || {
                let mut lines = vec![human_review(&review, installed.same_manifest), installed_line(&installed)];
                lines.extend(hints::after_install(&review, ai_set(host)));
                lines.join("\n")
            })
        }
        Err(e) => {
            // The review stays pending: the player can fix the options and install it.
            let code = super::host::fail_pending(&e, json, Some(&review.review));
            if !json {
                errln!(
                    "review {} is still pending: {} install {} [options]",
                    review.review,
                    crate::me(),
                    review.review
                );
            }
            code
        }
    })
}

/// An AI is set for the companion (URL and model): the next step is `chat`.
fn ai_set(host: &Host) -> bool {
    host.block_on(host.ai()).is_ok_and(|ai| ai.url.is_some() && ai.model.is_some())
}

fn human_review(r: &Review, same_manifest: bool) -> String {
    let mut out = Vec::new();
    if same_manifest {
        out.push(format!(
            "Already installed: {} {}, with this same manifest. Installing it again changes nothing \
             (a Modified or Missing copy is restored; settings and secrets are kept).",
            r.name, r.version
        ));
    } else if r.update {
        out.push(format!(
            "Update this plugin? {} {} → {}",
            r.name,
            r.old_version.clone().unwrap_or_default(),
            r.version
        ));
        out.push(if r.permissions_changed {
            format!("Permissions change:\n  {}", words::change_lines(r).join("\n  "))
        } else {
            "Permissions do not change.".into()
        });
    } else {
        out.push(format!("{} {}  [{}]", r.name, r.version, words::origin_badge(r.origin)));
    }
    if let Some(author) = &r.author {
        out.push(format!("by {author}"));
    }
    out.push("Actions:".into());
    for a in &r.actions {
        let note =
            if a.needs_confirmation { "  (serious action: you confirm it each time, in dcplugin chat)" } else { "" };
        out.push(format!(
            "  {}  {:?} {}: {}  {} {}{note}",
            a.full_name,
            a.level,
            a.level.label(),
            a.hint,
            a.method,
            a.url
        ));
    }
    if !r.sites.is_empty() {
        out.push(format!("Connects to: {}", r.sites.join(", ")));
    }
    for port in &r.local_ports {
        out.push(format!("This PC · port {port}: {}", words::LOCAL_PORT_WARNING));
    }
    for s in &r.settings {
        let flags = [s.required.then_some("required"), s.secret.then_some("secret"), s.set.then_some("kept")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        out.push(format!("Setting {} ({}): {}", s.key, flags, s.label));
    }
    if let Some(port) = r.events_door {
        out.push(format!("Events arrive on this PC · port {port}: {}", words::EVENTS_WARNING));
    }
    for e in &r.events {
        out.push(format!("Event {}: {} [{}]", e.name, e.title, if e.on { "on" } else { "off" }));
    }
    match r.cloud {
        CloudQuestion::Ask => {
            out.push("Online AI models: allow, or only with an AI on this PC? (--cloud allow|local)".into());
            if let Some(kept) = r.cloud_kept {
                out.push(format!("  Your earlier answer is kept unless --cloud is given: {}", kept.as_str()));
            }
        }
        CloudQuestion::Never => out.push("Works only with an AI running on this PC.".into()),
        CloudQuestion::NotAsked => {}
    }
    for w in &r.warnings {
        out.push(format!("warning: {w}"));
    }
    out.push(format!("review: {}", r.review));
    out.join("\n")
}

/// `show` for a person: the details page as labelled sections.
fn human_details(d: &PluginDetails) -> String {
    let c = &d.card;
    let mut out = vec![format!("{} ({}) {}", c.name, c.slug, c.version)];
    if let Some(author) = &c.author {
        out.push(format!("by {author}"));
    }
    if let Some(description) = &c.description {
        out.push(description.clone());
    }
    out.push(String::new());
    let status = words::status_label(c.status);
    out.push(format!("Status:    {status}{}", if c.enabled { "" } else { " (switched off)" }));
    if let Some(fix) = hints::status_fix(c) {
        out.push(format!("           {fix}"));
    }
    out.push(format!("Badges:    {}", words::badges(c).join(", ")));
    if d.review_banner {
        out.push(format!(
            "Review:    Desktop Companion recommends reviewing this plugin ({} keep {} hides this)",
            crate::me(),
            c.slug
        ));
    }
    let section = |out: &mut Vec<String>, title: &str, lines: Vec<String>| {
        if !lines.is_empty() {
            out.push(String::new());
            out.push(format!("{title}:"));
            out.extend(lines.into_iter().map(|l| format!("  {l}")));
        }
    };
    let settings = d
        .settings
        .iter()
        .map(|s| {
            let value = if s.secret {
                (if s.set { "set" } else { "not set" }).to_owned()
            } else {
                match &s.value {
                    Some(Value::String(v)) => v.clone(),
                    Some(v) => v.to_string(),
                    None => "(empty)".to_owned(),
                }
            };
            let flags = [s.required.then_some("required"), s.secret.then_some("secret")]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>();
            let flags = if flags.is_empty() { String::new() } else { format!(" ({})", flags.join(", ")) };
            format!("{}  {}{flags}: {value}", s.key, s.label)
        })
        .collect();
    section(&mut out, "Settings", settings);
    let actions = d
        .actions
        .iter()
        .map(|a| {
            let note = if a.needs_confirmation {
                "  (serious action: you confirm it each time, in dcplugin chat)"
            } else {
                ""
            };
            let on = if a.enabled { "on" } else { "off" };
            format!("{}  {:?} {}  [{on}]  {} {}{note}", a.full_name, a.level, a.hint, a.method, a.url)
        })
        .collect();
    section(&mut out, "Actions", actions);
    let events =
        d.events.iter().map(|e| format!("{}  {}  [{}]", e.name, e.title, if e.on { "on" } else { "off" })).collect();
    section(&mut out, "Events", events);
    let mut reach = Vec::new();
    if !d.sites.is_empty() {
        reach.push(format!("Sites it contacts: {}", d.sites.join(", ")));
    }
    for port in &c.local_ports {
        reach.push(format!("This PC · port {port}"));
    }
    reach.push(format!("Online AI models: {}", words::cloud_words(d.cloud_choice)));
    reach.push(format!("Use while live on Twitch: {}", if d.twitch_allowed { "allowed" } else { "no" }));
    section(&mut out, "Where its data goes", reach);
    // A manifest's and a server's texts, each problem and failure on its own line (issue 32).
    let errors = d.errors.iter().map(|p| line(&p.to_string()).to_string()).collect();
    section(&mut out, "Errors (the manifest no longer passes the checks)", errors);
    let failures = d
        .last_failures
        .iter()
        .map(|e| format!("{}  {}  {}  {}", format_ms(e.at), line(&e.action), line(&e.code.to_string()), line(&e.error)))
        .collect();
    section(&mut out, "Last failed calls", failures);
    section(
        &mut out,
        "Developer",
        vec![
            format!("Folder:      {}", d.folder.display()),
            format!("Manifest:    {}", d.manifest_fingerprint),
            format!("Permissions: {}", d.permissions_fingerprint),
        ],
    );
    out.join("\n")
}

fn switch(host: &Host, slug: &str, action: Option<&str>, on: bool, json: bool) -> ExitCode {
    let word = if on { "on" } else { "off" };
    // Printed only once the switch is made, so of an action that exists.
    let name = action.and_then(|t| ToolRef::new(slug, t).ok()).map_or(slug.to_owned(), |t| t.to_string());
    let label = format!("{name} {word}");
    edited(
        host,
        json,
        async {
            match action {
                Some(tool) => host.set_action_enabled(slug, tool, on).await,
                None => host.set_enabled(slug, on).await,
            }
        },
        label,
    )
}

/// A change to one plugin: `{"ok": true}`, or for a person the label and,
/// when the plugin is not Active, its status and what fixes it.
fn edited(
    host: &Host,
    json: bool,
    action: impl std::future::Future<Output = Result<Card, ApiError>>,
    label: String,
) -> ExitCode {
    match host.block_on(action) {
        Ok(card) => done(&Done { ok: true }, json, || match hints::status_fix(&card) {
            Some(fix) if !(card.status == Status::Off && label.ends_with(" off")) => {
                format!("{label}\n{} is {}: {fix}", card.slug, words::status_label(card.status))
            }
            _ => label,
        }),
        Err(e) => fail(&e, json),
    }
}

fn prefs(host: &Host, values: &[String], json: bool) -> anyhow::Result<ExitCode> {
    let patch = match switches_patch(pairs(values)?) {
        Ok(patch) => patch,
        Err(message) => {
            return Ok(fail(&ApiError::new(dcp_host::ErrorCode::Host(dcp_host::HostCode::BadInput), message), json))
        }
    };
    Ok(act(host, json, host.set_switches(patch), |p| {
        format!(
            "plugins_enabled={} tools_enabled={} dev_mode={} language={}",
            p.plugins_enabled, p.tools_enabled, p.dev_mode, p.language
        )
    }))
}

/// `KEY=VALUE` app switches as a typed change (the language is checked by the host).
fn switches_patch(pairs: Vec<(String, String)>) -> Result<SwitchesPatch, String> {
    let mut patch = SwitchesPatch::default();
    for (key, value) in pairs {
        patch.set_text(&key, &value)?;
    }
    Ok(patch)
}

fn install_options(args: &InstallArgs) -> anyhow::Result<InstallOptions> {
    let settings = pairs(&args.set)?.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
    let secrets = if args.secrets_stdin { secret_lines()? } else { Vec::new() };
    let cloud = args.cloud;
    Ok(InstallOptions { settings, secrets, cloud })
}

/// `KEY=VALUE` pairs; a malformed one is a usage error.
fn pairs(values: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    values
        .iter()
        .map(|v| {
            v.split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .ok_or_else(|| anyhow::anyhow!("{v}: expected KEY=VALUE"))
        })
        .collect()
}

/// Secrets from standard input, one `KEY=VALUE` per line. The value never
/// appears in an error message.
fn secret_lines() -> anyhow::Result<Vec<(String, Sensitive)>> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let text = Sensitive::new(text);
    let mut out = Vec::new();
    for (n, line) in text.expose().lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let (key, value) =
            line.split_once('=').ok_or_else(|| anyhow::anyhow!("standard input line {}: expected KEY=VALUE", n + 1))?;
        out.push((key.trim().to_owned(), Sensitive::new(value.trim_end_matches('\r').to_owned())));
    }
    Ok(out)
}

/// One secret from standard input (a trailing newline is not part of it).
pub fn read_secret() -> anyhow::Result<Sensitive> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let value = text.trim_end_matches(['\n', '\r']).to_owned();
    text.clear();
    Ok(Sensitive::new(value))
}
