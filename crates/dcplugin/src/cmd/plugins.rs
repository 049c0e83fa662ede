//! The plugin commands: import and consent, the installed plugins, their
//! switches and settings, and the app switches. Each maps to one method of
//! the host and prints its result; no rule lives here.

use super::host::{done, fail, run as act, Ok as Done};
use crate::{Command, InstallArgs};
use dcp_host::{ApiError, CloudChoice, CloudQuestion, Host, InstallOptions, Review, Sensitive, SwitchesPatch};
use serde::Serialize;
use serde_json::Value;
use std::io::Read;
use std::process::ExitCode;

pub fn run(host: &Host, command: Command) -> anyhow::Result<ExitCode> {
    let ok = || Done { ok: true };
    Ok(match command {
        Command::Import { path, yes, install, json } => {
            consent(host, host.block_on(host.import_path(path)), yes, &install, json)?
        }
        Command::LoadFolder { dir, yes, install, json } => {
            consent(host, host.block_on(host.load_folder(dir)), yes, &install, json)?
        }
        Command::Catalog { import: Some(slug), yes, install, json } => {
            consent(host, host.block_on(host.import_official(&slug)), yes, &install, json)?
        }
        Command::Catalog { import: None, json, .. } => act(host, json, host.catalog(), |entries| {
            entries
                .iter()
                .map(|e| format!("{}  {} {}  {}", e.slug, e.name, e.version, e.description.clone().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join("\n")
        }),
        Command::Install { review, install, json } => {
            let options = install_options(&install)?;
            act(host, json, host.install(&review, options), |i| {
                format!("installed {} {}{}", i.slug, i.version, if i.update { " (update)" } else { "" })
            })
        }
        Command::Cancel { review, json } => {
            act(host, json, async { host.cancel(&review).await.map(|()| ok()) }, |_| format!("cancelled {review}"))
        }
        Command::List { json } => act(host, json, host.cards(), |entries| {
            if entries.is_empty() {
                return "no plugin installed".into();
            }
            let mut lines: Vec<String> = entries
                .iter()
                .map(|e| format!("{:<20} {:<8} {:<20} {}", e.slug, e.version, e.status_label, e.badges.join(", ")))
                .collect();
            if let Some(warning) = host.block_on(host.secrets_persistence()).warning() {
                lines.push(format!("note: {warning}"));
            }
            lines.join("\n")
        }),
        Command::Show { slug, json } => {
            act(host, json, host.details(&slug), |d| serde_json::to_string_pretty(d).unwrap_or_default())
        }
        Command::Enable { slug, action, json } => switch(host, &slug, action.as_deref(), true, json),
        Command::Disable { slug, action, json } => switch(host, &slug, action.as_deref(), false, json),
        Command::Set { slug, values, json } => {
            let values = pairs(&values)?.into_iter().map(|(k, v)| (k, Value::String(v))).collect::<Vec<_>>();
            act(host, json, async { host.save_settings(&slug, values).await.map(|_| ok()) }, |_| "saved".into())
        }
        Command::Secret { slug, key, clear: true, json } => {
            act(host, json, async { host.clear_secret(&slug, &key).await.map(|_| ok()) }, |_| format!("{key}: not set"))
        }
        Command::Secret { slug, key, clear: false, json } => {
            let value = read_secret()?;
            act(host, json, async { host.set_secret(&slug, &key, value).await.map(|_| ok()) }, |_| {
                format!("{key}: set")
            })
        }
        Command::Cloud { slug, choice, json } => {
            let choice = CloudChoice::parse(&choice).ok_or_else(|| anyhow::anyhow!("allow or local"))?;
            act(host, json, async { host.set_cloud(&slug, choice).await.map(|_| ok()) }, |_| "saved".into())
        }
        Command::Twitch { slug, choice, json } => {
            act(host, json, async { host.set_twitch(&slug, choice == "allow").await.map(|_| ok()) }, |_| "saved".into())
        }
        Command::Keep { slug, json } => {
            act(host, json, async { host.keep(&slug).await.map(|_| ok()) }, |_| "kept".into())
        }
        Command::Uninstall { slug, json } => {
            act(host, json, async { host.uninstall(&slug).await.map(|()| ok()) }, |_| format!("uninstalled {slug}"))
        }
        Command::Reload { json } => act(host, json, host.reload(), |entries| {
            entries.iter().map(|e| format!("{:<20} {}", e.slug, e.status_label)).collect::<Vec<_>>().join("\n")
        }),
        Command::DevMode { state, json } => {
            let patch = SwitchesPatch { dev_mode: Some(state == "on"), ..SwitchesPatch::default() };
            act(host, json, async { host.set_switches(patch).await.map(|_| ok()) }, |_| {
                format!("developer mode {state}")
            })
        }
        Command::Prefs { values, json } => prefs(host, &values, json)?,
        Command::PluginsFolder { json } => {
            let folder = host.plugins_folder();
            done(&serde_json::json!({ "folder": folder }), json, || folder.display().to_string())
        }
        Command::Tools { turn, json } => super::calls::tools(host, &turn, json),
        Command::Call { tool, args, turn, json } => super::calls::call(host, &tool, args.as_deref(), &turn, json)?,
        Command::Journal { limit, plugin, json } => super::calls::journal(host, limit, plugin.as_deref(), json),
        Command::Events { slug, what, event, new, json, .. } => {
            super::events::run(host, &slug, what.as_deref(), event.as_deref(), new, json)?
        }
        Command::Validate { .. } | Command::Pack { .. } | Command::Serve { .. } => {
            unreachable!("handled without this store")
        }
    })
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
        return Ok(done(&review, json, || human_review(&review)));
    }
    #[derive(Serialize)]
    struct Installed<'a> {
        #[serde(flatten)]
        review: &'a Review,
        installed: dcp_host::Installed,
    }
    Ok(match host.block_on(host.install(&review.review, install_options(install)?)) {
        Ok(installed) => done(&Installed { review: &review, installed }, json, || {
            format!("{}\ninstalled {} {}", human_review(&review), review.slug, review.version)
        }),
        Err(e) => {
            // The review stays pending: the player can fix the options and install it.
            let code = fail(&e, json);
            if !json {
                eprintln!("review {} is still pending", review.review);
            }
            code
        }
    })
}

fn human_review(r: &Review) -> String {
    let mut out = Vec::new();
    if r.update {
        out.push(format!(
            "Update this plugin? {} {} → {}",
            r.name,
            r.old_version.clone().unwrap_or_default(),
            r.version
        ));
        out.push(if r.permissions_changed {
            format!("Permissions change:\n  {}", r.changes.join("\n  "))
        } else {
            "Permissions do not change.".into()
        });
    } else {
        out.push(format!("{} {}  [{}]", r.name, r.version, r.badge));
    }
    if let Some(author) = &r.author {
        out.push(format!("by {author}"));
    }
    out.push("Actions:".into());
    for a in &r.actions {
        let note = if a.needs_confirmation { "  (needs a confirmation: coming soon)" } else { "" };
        out.push(format!("  {}  {:?} {}: {}  {} {}{note}", a.full_name, a.level, a.label, a.hint, a.method, a.url));
    }
    if !r.sites.is_empty() {
        out.push(format!("Connects to: {}", r.sites.join(", ")));
    }
    for p in &r.local_ports {
        out.push(format!("This PC · port {}: {}", p.port, p.warning));
    }
    for s in &r.settings {
        let flags = [s.required.then_some("required"), s.secret.then_some("secret"), s.kept.then_some("kept")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        out.push(format!("Setting {} ({}): {}", s.key, flags, s.title));
    }
    if let Some(door) = &r.events_door {
        out.push(format!("Events arrive on this PC · port {}: {}", door.port, door.warning));
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

fn switch(host: &Host, slug: &str, action: Option<&str>, on: bool, json: bool) -> ExitCode {
    let word = if on { "on" } else { "off" };
    act(
        host,
        json,
        async {
            match action {
                Some(tool) => host.set_action_enabled(slug, tool, on).await,
                None => host.set_enabled(slug, on).await,
            }
            .map(|_| Done { ok: true })
        },
        |_| format!("{} {word}", action.map_or(slug.to_owned(), |t| format!("{slug}__{t}"))),
    )
}

fn prefs(host: &Host, values: &[String], json: bool) -> anyhow::Result<ExitCode> {
    let patch = match switches_patch(pairs(values)?) {
        Ok(patch) => patch,
        Err(message) => return Ok(fail(&ApiError::new(dcp_host::ErrorCode::BadInput, message), json)),
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
        let flag = || match value.as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(format!("{key} must be true or false")),
        };
        match key.as_str() {
            "plugins_enabled" => patch.plugins_enabled = flag()?,
            "tools_enabled" => patch.tools_enabled = flag()?,
            "dev_mode" => patch.dev_mode = flag()?,
            "language" => patch.language = Some(value),
            _ => return Err(format!("unknown pref {key} (use plugins_enabled, tools_enabled, dev_mode, language)")),
        }
    }
    Ok(patch)
}

fn install_options(args: &InstallArgs) -> anyhow::Result<InstallOptions> {
    let settings = pairs(&args.set)?.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
    let secrets = if args.secrets_stdin { secret_lines()? } else { Vec::new() };
    let cloud = args.cloud.as_deref().and_then(CloudChoice::parse);
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
fn read_secret() -> anyhow::Result<Sensitive> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let value = text.trim_end_matches(['\n', '\r']).to_owned();
    text.clear();
    Ok(Sensitive::new(value))
}
