//! What to do next: the line each command ends with when there is a next
//! step, and the command or flag that fixes each refusal. Words only: every
//! rule stays in the engine.

use super::shell_word;
use crate::me;
use dcp_host::{
    AiCode, ApiError, Card, CloudChoice, CloudQuestion, ErrorCode, HostCode, Origin, Review, Status, ToolRef,
};
use dcp_host::{Code, CredentialStore, Refusal, SettingsCode};

/// The command or flag that fixes a refused command, when there is one.
pub fn fix_for(error: &ApiError) -> Option<String> {
    fix_for_code(error.code)
}

/// The command or flag that fixes a failure with this code (a refused
/// command, a chat turn's error), when there is one.
pub fn fix_for_code(code: ErrorCode) -> Option<String> {
    let me = me();
    Some(match code {
        ErrorCode::Settings(SettingsCode::MissingSettings) => {
            "give every required setting: --set KEY=VALUE for a setting, --secrets-stdin \
             with one KEY=VALUE line per secret on standard input (for an installed plugin: \
             dcplugin set SLUG KEY=VALUE, dcplugin secret SLUG KEY)"
                .to_owned()
        }
        ErrorCode::Settings(SettingsCode::BadSettings) => {
            "fix the value: --set KEY=VALUE (for an installed plugin: dcplugin set SLUG \
             KEY=VALUE; dcplugin show SLUG lists its settings)"
                .to_owned()
        }
        ErrorCode::Settings(SettingsCode::CloudChoiceRequired) => {
            "answer the online-AI question: --cloud allow or --cloud local".to_owned()
        }
        ErrorCode::Settings(SettingsCode::VaultUnavailable) => vault_fix(CredentialStore::THIS_PLATFORM).to_owned(),
        ErrorCode::Import(Code::DevModeRequired) => format!("turn developer mode on first: {me} dev-mode on"),
        ErrorCode::Import(Code::BadFolder) => {
            format!("load a folder outside the app's plugins folder ({me} plugins-folder prints where it is)")
        }
        ErrorCode::Import(Code::AppTooOld) => {
            "this plugin asks for a newer app (minAppVersion): update the app, or lower minAppVersion".to_owned()
        }
        ErrorCode::Import(_) => "dcplugin validate PATH lists every problem with its place; docs/errors.md gives \
             the usual fix of each code"
            .to_owned(),
        ErrorCode::Host(HostCode::UnknownPlugin) => format!("{me} list shows the installed plugins' slugs"),
        ErrorCode::Host(HostCode::UnknownReview) => format!("import the file again for a new review: {me} import PATH"),
        ErrorCode::Host(HostCode::BadInput) => {
            "dcplugin show SLUG lists a plugin's settings, actions and events".to_owned()
        }
        ErrorCode::Host(HostCode::PluginUnreadable) => {
            format!("{me} show SLUG gives its status and errors; {me} reload reads it again")
        }
        ErrorCode::Host(HostCode::ReviewOutdated) => {
            format!("the file changed since its review: {me} import PATH to review it again")
        }
        ErrorCode::Ai(code) => return ai_fix(code),
        ErrorCode::Host(HostCode::JournalLost)
        | ErrorCode::Host(HostCode::Storage)
        | ErrorCode::Host(HostCode::Internal) => return None,
    })
}

/// The fix for `vault_unavailable`, naming the store this platform keeps
/// the vault key in (issue 35: on Windows, the Credential Manager).
fn vault_fix(store: CredentialStore) -> &'static str {
    match store {
        CredentialStore::SecretService => {
            "no credential store can protect a secret on this PC: start a Secret Service \
             (GNOME Keyring, KWallet) or give the plugin no secret for now"
        }
        CredentialStore::WindowsCredentialManager => {
            "the Windows Credential Manager refused to keep the vault key: use your own signed-in \
             Windows account (not a service's) or give the plugin no secret for now"
        }
        CredentialStore::MacosKeychain => {
            "the macOS Keychain refused to keep the vault key: unlock your login keychain \
             (Keychain Access) or give the plugin no secret for now"
        }
        CredentialStore::None => "this system has no credential store to protect a secret: give the plugin no secret",
    }
}

/// The fix for the companion's AI refused or not reached (issue 22), by code.
pub fn ai_fix(code: AiCode) -> Option<String> {
    let me = me();
    Some(match code {
        AiCode::BadUrl | AiCode::PrivateAddress => format!(
            "{me} ai --url http://127.0.0.1:11434/v1 (Ollama on this PC), or the https URL of an online service"
        ),
        AiCode::NotSet => format!("{me} ai --url URL --model NAME ({me} ai shows what answers on this PC)"),
        // Every known server: the message names the one usual on the URL's port.
        AiCode::NotListening => "start the AI server (Ollama: ollama serve; LM Studio: its Developer tab, Start \
                                 server; llama.cpp: llama-server -m MODEL.gguf), or check the URL"
            .to_owned(),
        AiCode::KeyRefused => format!("give the service's key again: {me} ai key < key.txt"),
        AiCode::ModelUnknown => format!("{me} ai --model NAME, with a model that {me} ai test lists"),
        AiCode::NoTools => format!("choose a model that supports tool calling: {me} ai --model NAME"),
        AiCode::Redirect => format!("{me} ai --url URL, with the URL the service points to"),
        AiCode::Timeout | AiCode::TurnTooLong | AiCode::Http | AiCode::BadAnswer => return None,
    })
}

/// The fix for a call the courtier refused, by §22 reason.
pub fn fix_for_refusal(reason: Refusal, tool: &str) -> Option<String> {
    let me = me();
    let tool = tool.parse::<ToolRef>().ok();
    // Only an unknown tool is refused before its name is known to be one.
    let slug = tool.as_ref().map_or("SLUG", ToolRef::slug);
    let action = tool.as_ref().map_or("TOOL", ToolRef::tool);
    Some(match reason {
        Refusal::ToolsOff => format!("turn tools on: {me} prefs tools_enabled=true"),
        Refusal::PluginOff => format!(
            "switch it on: {me} enable {slug} (one action: {me} enable {slug} --action {action}; all plugins: \
             {me} prefs plugins_enabled=true); a Modified plugin is imported again"
        ),
        Refusal::NeedsSetup => format!(
            "fill in its settings: {me} set {slug} KEY=VALUE, or a secret: {me} secret {slug} KEY \
             ({me} show {slug} lists them)"
        ),
        Refusal::CloudBlocked => {
            format!("allow it with online AI models: {me} cloud {slug} allow (or call with --model local)")
        }
        Refusal::NeedsConfirmation => {
            format!("a serious action (R3) is confirmed each time: run it from {me} chat, which asks you")
        }
        Refusal::TwitchLevel | Refusal::TwitchQuota => {
            "the Twitch chat may only use R0 tools, one call per turn: call with --source voice or keyboard".to_owned()
        }
        Refusal::NotRequested => "only the player's turns run tools: call with --source voice or keyboard".to_owned(),
        Refusal::UnknownTool => format!("{me} tools lists the tools offered (names are SLUG__TOOL)"),
        Refusal::DevModeOff => format!("turn developer mode on: {me} dev-mode on"),
        Refusal::StreamPrivate => {
            format!("allow it while live on Twitch: {me} twitch {slug} allow (or call without --live)")
        }
        Refusal::StepLimit => "a turn has 5 tool steps: start another turn (another --turn ID)".to_owned(),
        Refusal::Declined => "the player said no: ask again in a new turn".to_owned(),
        Refusal::Expired => "the player did not answer within 60 s: ask again in a new turn".to_owned(),
        Refusal::Changed => "the plugin changed while the player was asked: ask again in a new turn".to_owned(),
        // The turn engine's own, never the answer to a call of the command line.
        Refusal::ToolLimit | Refusal::OneActionPerStep | Refusal::CallLimit | Refusal::RepeatedCall => return None,
    })
}

/// The command that installs a review, with the flags this plugin needs.
pub fn install_lines(r: &Review) -> Vec<String> {
    let me = me();
    let secrets: Vec<&str> = r.settings.iter().filter(|s| s.secret && !s.set).map(|s| s.key.as_str()).collect();
    let required: Vec<&str> = r
        .settings
        .iter()
        .filter(|s| !s.secret && s.required && !s.set && s.value.is_none())
        .map(|s| s.key.as_str())
        .collect();
    let mut command = String::new();
    if !secrets.is_empty() {
        let format = secrets.iter().map(|k| format!("{k}=%s\\n")).collect::<String>();
        let values = secrets.iter().map(|k| format!("\"${}\"", k.to_uppercase())).collect::<Vec<_>>().join(" ");
        command.push_str(&format!("printf '{format}' {values} | "));
    }
    command.push_str(&format!("{me} install {}", r.review));
    if !secrets.is_empty() {
        command.push_str(" --secrets-stdin");
    }
    for key in &required {
        command.push_str(&format!(" --set {key}=…"));
    }
    let cloud_asked = r.cloud == CloudQuestion::Ask;
    if cloud_asked {
        command.push_str(match r.cloud_kept {
            Some(CloudChoice::Local) => " --cloud local",
            _ => " --cloud allow",
        });
    }
    let mut lines = vec!["next: install it with".to_owned(), format!("  {command}")];
    if !secrets.is_empty() {
        lines.push(format!(
            "  --secrets-stdin reads one KEY=VALUE line per secret from standard input ({}), never from the command line",
            secrets.join(", ")
        ));
    }
    let optional: Vec<&str> = r
        .settings
        .iter()
        .filter(|s| !s.secret && !s.set && !required.contains(&s.key.as_str()))
        .map(|s| s.key.as_str())
        .collect();
    if !optional.is_empty() {
        lines.push(format!("  optional: --set KEY=VALUE for {}", optional.join(", ")));
    }
    let kept: Vec<&str> = r.settings.iter().filter(|s| s.set).map(|s| s.key.as_str()).collect();
    if !kept.is_empty() {
        lines.push(format!("  kept from the installed version unless given again: {}", kept.join(", ")));
    }
    if cloud_asked {
        lines.push(match r.cloud_kept {
            Some(kept) => format!("  --cloud may be left out: your earlier answer ({}) is kept", kept.as_str()),
            None => "  --cloud answers the online-AI question: allow, or local (only with an AI running on this PC)"
                .to_owned(),
        });
    }
    lines.push(format!("or forget it: {me} cancel {}", r.review));
    lines
}

/// What to try once a plugin is installed.
pub fn after_install(r: &Review, ai_set: bool) -> Vec<String> {
    let me = me();
    let mut lines = Vec::new();
    let call = r
        .actions
        .iter()
        .find(|a| !a.needs_confirmation)
        .map(|a| format!("{me} call {}{}", a.full_name, args_flag(&a.required_args)));
    // With an AI set, the player's way in is the companion; a call tries one action alone.
    match (ai_set, call) {
        (true, Some(call)) => lines.push(format!("next: ask your companion: {me} chat   (one action alone: {call})")),
        (true, None) => lines.push(format!("next: ask your companion: {me} chat")),
        (false, Some(call)) => lines.push(format!("next: try it: {call}   ({me} tools shows what the AI is offered)")),
        (false, None) => {}
    }
    if !r.local_ports.is_empty() {
        let ports = r.local_ports.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
        lines.push(format!("  start your program first: it must listen on 127.0.0.1 (port {ports})"));
    }
    if let Some(event) = r.events.first() {
        lines.push(format!(
            "  events arrive while `{me} serve` (or the app) runs: {me} events {} on {}, then give your program \
             the token: {me} events {} token",
            r.slug, event.name, r.slug
        ));
    }
    if r.origin == Origin::Folder {
        lines.push(format!("  each save of manifest.json reloads it while `{me} serve` (or the app) runs"));
    }
    lines
}

/// The `--args` of a first call: none for an action that needs no argument
/// (a call without `--args` sends `{}`), else one placeholder per required
/// argument, so the hint names what to fill in.
fn args_flag(required: &[String]) -> String {
    if required.is_empty() {
        return String::new();
    }
    let fields =
        required.iter().map(|name| format!("{}: …", serde_json::Value::from(name.as_str()))).collect::<Vec<_>>();
    format!(" --args '{{{}}}'", fields.join(", "))
}

/// The command that fixes a status other than Active.
pub fn status_fix(card: &Card) -> Option<String> {
    let me = me();
    let slug = &card.slug;
    Some(match card.status {
        Status::Active => return None,
        Status::Off => format!("switch it on: {me} enable {slug}"),
        Status::NeedsSetup => {
            format!("fill in the missing settings: {me} set {slug} KEY=VALUE, or a secret: {me} secret {slug} KEY")
        }
        Status::ToolsOff => format!("turn tools on: {me} prefs tools_enabled=true"),
        Status::DevModeOff => format!("turn developer mode on: {me} dev-mode on"),
        Status::Modified => format!("import the plugin's file again: {me} import FILE (same slug: an update)"),
        Status::Invalid if card.origin == Origin::Folder => {
            format!("fix the errors {me} show {slug} lists, and save: the folder is read again")
        }
        Status::Invalid => format!("import a version that passes the checks: {me} import FILE"),
        Status::Missing if card.origin == Origin::Folder => {
            format!("put manifest.json back in the folder, or remove the plugin: {me} uninstall {slug}")
        }
        Status::Missing => format!("import the plugin's file again: {me} import FILE"),
    })
}

/// `validate`'s next step for a plugin that passes the checks.
pub fn after_validate(path: &std::path::Path) -> String {
    let me = me();
    let p = shell_word(&path.to_string_lossy());
    if path.is_dir() {
        format!(
            "next: load it in developer mode: {me} dev-mode on, then {me} load-folder {p}; \
             or build a package to share: dcplugin pack {p}"
        )
    } else {
        format!("next: import it: {me} import {p}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `vault_unavailable` tells to do names the store this platform
    /// really uses (issue 35: never a Secret Service on Windows).
    #[test]
    fn the_vault_fix_names_this_platforms_credential_store() {
        let fix = fix_for_code(ErrorCode::Settings(SettingsCode::VaultUnavailable)).unwrap_or_default();
        let named = if cfg!(windows) { "Windows Credential Manager" } else { "Secret Service" };
        assert!(fix.contains(named), "{fix}");
    }
}
