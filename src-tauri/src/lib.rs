//! The Tauri shell of the Desktop Companion plugin host.
//!
//! *Architecture invariant:* this crate implements no rule of the plugin
//! format or the store. Each command is a `#[tauri::command] async fn` that
//! awaits one method of the engine's [`Host`] (managed state, opened once at
//! start) and returns its DTO or its `{code, message, problems}` error
//! unchanged. What the shell owns is the desktop around it: pickers, the
//! clipboard, files opened with the app, the event stream to the window,
//! the window itself ([`window`]: its WebKit data, its pages) and one
//! window per profile ([`instance`]).
//!
//! *API boundary:* the commands declared once in `surface.rs` (listed in
//! [`COMMANDS`], registered in [`run`]) are the whole surface the webview
//! sees; the capability file
//! (`capabilities/main.json`) grants the window exactly those commands and
//! listening to events, nothing else. The commands act only on what the
//! shell handed the window ([`handed`]) or the answers it was given
//! ([`answered`]).

mod answered;
mod asking;
mod commands;
mod forward;
mod handed;
mod help;
mod icon;
mod instance;
mod listening;
mod opened;
mod talk;
mod window;

#[cfg(test)]
mod bindings;
#[cfg(test)]
mod capability;
#[cfg(test)]
mod fixtures;

use dcp_host::{
    AiSettings, AiTest, AppSwitches, Card, CatalogEntry, ChatStatus, CloudChoice, EventsPage, FoundAi, InstallOptions,
    Installed, JournalLine, JournalQuery, KnownServer, NotOffered, Place, PluginDetails, PluginTest, Review, Sensitive,
    Source, SwitchesPatch, TriedAction,
};
use dcp_host::{ApiError, BackgroundOptions, Host, HostOptions};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tauri::Manager;

/// When the process started (`ui_ready` answers the time since).
pub struct Started(pub Instant);

/// Reads the declaration of `surface.rs`: registers a handler per command
/// (the app handle and the page's arguments, passed to its function in
/// [`commands`]), lists [`COMMANDS`], and gives the bindings test each
/// command's TypeScript signature. Argument types are checked by the
/// compiler against the functions, so the wrappers cannot drift.
macro_rules! app_commands {
    (@ts $ty:ty as $ts:literal) => { bindings::TsType::Written($ts) };
    (@ts $ty:ty) => { bindings::TsType::of::<$ty>() };
    ($($module:ident :: $command:ident ($($arg:ident : $ty:ty $(as $ts:literal)?),*) -> $answer:ty;)*) => {
        /// The commands the webview may invoke, by their invoke names.
        pub const COMMANDS: &[&str] = &[$(stringify!($command)),*];

        /// Tauri's handlers: private, so that their name macros stay in this module.
        mod ipc {
            use super::*;
            $(
                #[tauri::command]
                async fn $command(app: tauri::AppHandle, $($arg: $ty),*) -> Result<$answer, ApiError> {
                    commands::$module::$command(&app, $($arg),*).await
                }
            )*

            pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
                tauri::generate_handler![$($command),*]
            }
        }

        /// Each command as the UI calls it.
        #[cfg(test)]
        fn declared() -> Vec<bindings::Command> {
            vec![$(bindings::Command {
                name: stringify!($command),
                args: vec![$((stringify!($arg), app_commands!(@ts $ty $(as $ts)?))),*],
                answer: app_commands!(@ts $answer),
            }),*]
        }
    };
}

include!("surface.rs");

/// Opens the host on the app's profile (`DCPLUGIN_PROFILE`, else the
/// app's data folder), its work on Tauri's runtime: the window's one.
pub fn open_host() -> Result<Host, ApiError> {
    let runtime = Some(tauri::async_runtime::handle().inner().clone());
    Host::open(HostOptions { runtime, ..HostOptions::default() })
}

/// Builds and runs the app until its last window closes; `started` is when the process started.
pub fn run(started: Instant) {
    let host = open_host().unwrap_or_else(|error| fail("could not open its profile", &error));
    // Paths given on the command line (an OS "open with" too) wait for the UI's first take_opened_files.
    let cwd = std::env::current_dir().unwrap_or_default();
    let opened = opened::OpenedFiles::default();
    opened.push(opened::paths_from_args(std::env::args().skip(1), &cwd));
    let context = tauri::generate_context!();
    let bus_id = instance::bus_id(&context.config().identifier, host.profile_dir());
    let mut builder = tauri::Builder::default();
    if instance::may_hand_over(&bus_id) {
        // First plugin, as its docs ask: a second launch hands over its paths and exits before anything else starts.
        builder = builder.plugin(single_instance(bus_id));
    }
    let profile = host.profile_dir().to_path_buf();
    let app = builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .plugin(tauri_plugin_notification::init())
        .manage(host.clone())
        .manage(opened)
        .manage(handed::Handed::default())
        .manage(answered::Answered::default())
        .manage(talk::Talk::default())
        .manage(asking::Asking::default())
        .manage(Started(started))
        .setup(move |app| window::open(app, &profile))
        .on_window_event(opened::on_drop)
        .invoke_handler(ipc::handler())
        .build(context)
        .unwrap_or_else(|error| fail("could not start", &error));
    // Subscribed before the background starts, so that none of its events is missed.
    forward::host_events(app.handle().clone(), host.subscribe());
    commands::companion::say_events(app.handle().clone(), host.subscribe());
    // The window's companion listens from the start; it tells the door when it answers and while the player types.
    let background = host
        .start_background(BackgroundOptions { listening: true })
        .map(Arc::new)
        .unwrap_or_else(|error| fail("could not start the event door and folder watchers", &error));
    app.state::<talk::Talk>().listening.attach(background.clone(), host.clone());
    // The Twitch chat the player connected last time connects again (issue 36); its state comes as events.
    tauri::async_runtime::spawn(async move {
        if let Err(error) = host.twitch_resume().await {
            eprintln!("Desktop Companion Plugins could not connect the Twitch chat again: {error}");
        }
    });
    // The guard lives as long as the app: dropping it stops the door and the watchers.
    app.run(move |_, _| {
        let _ = &background;
    });
}

/// The hand-over of a second launch with this profile: its paths are
/// opened here and the window comes to the front.
fn single_instance(bus_id: String) -> tauri::plugin::TauriPlugin<tauri::Wry> {
    tauri_plugin_single_instance::Builder::new()
        .dbus_id(bus_id)
        .callback(|app, argv, cwd| {
            opened::open_files(app, opened::paths_from_args(argv.into_iter().skip(1), cwd.as_ref()));
            if let Some(window) = app.get_webview_window(window::MAIN) {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
        })
        .build()
}

fn fail(what: &str, error: &dyn std::fmt::Display) -> ! {
    eprintln!("Desktop Companion Plugins {what}: {error}");
    std::process::exit(1);
}
#[cfg(test)]
mod tests {
    use crate::commands::consent::{cancel_of, import_path_of, install_of};
    use crate::handed::Handed;
    use crate::help::link_to_open;
    use dcp_host::{ApiError, Host, HostOptions, Review, SwitchesPatch};
    use dcp_vault::testing::MemoryKeyStore;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    /// A host over a new profile in `profile`, its secrets in memory (the other modules' tests use it too).
    pub(crate) fn host(profile: &Path) -> Host {
        let options = HostOptions {
            profile: Some(profile.to_path_buf()),
            key_store: Some(Arc::new(MemoryKeyStore::new())),
            ..HostOptions::default()
        };
        Host::open(options).expect("host")
    }

    fn example(name: &str) -> String {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins-examples").join(name).display().to_string()
    }

    /// Imports `path` as the window does: handed to it first (a picker, a launch, a drop).
    fn import(host: &Host, handed: &Handed, path: &str) -> Result<Review, ApiError> {
        handed.paths([&path.to_owned()]);
        host.block_on(import_path_of(host, handed, path.to_owned()))
    }

    /// A refusal in a new profile: its code, and the codes of its problems.
    fn refusal(path: &str) -> (String, Vec<String>) {
        let dir = tempfile::tempdir().expect("profile");
        let error = import(&host(dir.path()), &Handed::default(), path).expect_err("refused");
        (error.code.as_str().to_owned(), error.problems.iter().map(|p| p.code.as_str().to_owned()).collect())
    }

    #[test]
    fn an_example_manifest_can_be_imported() {
        let dir = tempfile::tempdir().expect("profile");
        let review = import(&host(dir.path()), &Handed::default(), &example("exchange-rates/manifest.json"));
        assert_eq!(review.expect("review").slug, "fx");
    }

    /// §19: a folder is loaded, not imported, and only in developer mode.
    #[test]
    fn s19_a_folder_is_not_imported_while_developer_mode_is_off() {
        let (code, problems) = refusal(&example("exchange-rates"));
        assert_eq!((code.as_str(), problems), ("unsupported_package", vec!["unsupported_package".to_owned()]));
    }

    /// §15: a plugin that talks to the PC needs developer mode, which is off in a new profile.
    #[test]
    fn s15_a_pc_plugin_is_refused_while_developer_mode_is_off() {
        let dir = tempfile::tempdir().expect("profile");
        let error =
            import(&host(dir.path()), &Handed::default(), &example("local-server/manifest.json")).expect_err("refused");
        assert_eq!(error.code.as_str(), "dev_mode_required");
        assert_eq!(error.problems[0].path, "permissions.network.local.ports");
    }

    #[test]
    fn a_file_that_is_not_json_is_refused_with_the_engines_code() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("broken.json");
        std::fs::write(&file, b"{ not json").expect("write");
        assert_eq!(refusal(&file.display().to_string()), ("not_json".to_owned(), vec!["not_json".to_owned()]));
    }

    #[test]
    fn a_missing_path_is_a_refusal_not_a_panic() {
        let (code, problems) = refusal("/nonexistent/dcp-app-test/plugin.json");
        assert_eq!((code.as_str(), problems), ("read_failed", vec!["read_failed".to_owned()]));
    }

    /// A path the window was not given (no picker, launch or drop) is not
    /// read: no review starts, and nothing of the file reaches the page.
    #[test]
    fn a_path_the_window_was_not_given_is_refused_unread() {
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        let handed = Handed::default();
        let path = example("exchange-rates/manifest.json");
        let error = host.block_on(import_path_of(&host, &handed, path.clone())).expect_err("not handed");
        assert_eq!((error.code.as_str(), error.problems.len()), ("bad_input", 0));
        let quarantined = std::fs::read_dir(dir.path().join("quarantine")).expect("quarantine").count();
        assert_eq!(quarantined, 0, "no review was started");
        handed.paths([&example("my-tasks/manifest.json")]);
        let error = host.block_on(import_path_of(&host, &handed, path)).expect_err("another path was handed");
        assert_eq!(error.code.as_str(), "bad_input");
    }

    /// §18: Install and Cancel act only on a review the window was shown,
    /// and only once; another pending review (say, one `dcplugin import`
    /// started) is refused `unknown_review` and stays pending.
    #[test]
    fn s18_install_and_cancel_take_only_a_review_the_window_was_shown() {
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        let handed = Handed::default();
        let fx = PathBuf::from(example("exchange-rates/manifest.json"));
        let unseen = host.block_on(host.import_path(fx)).expect("a review the window never showed");
        let options = dcp_host::InstallOptions::default;
        let refused = host.block_on(install_of(&host, &handed, &unseen.review, options())).expect_err("not shown");
        assert_eq!(refused.code.as_str(), "unknown_review");
        let refused = host.block_on(cancel_of(&host, &handed, &unseen.review)).expect_err("not shown");
        assert_eq!(refused.code.as_str(), "unknown_review");
        assert_eq!(host.block_on(host.review(&unseen.review)).expect("still pending").slug, "fx");
        assert!(host.block_on(host.cards()).expect("cards").is_empty(), "nothing installed");

        let shown = import(&host, &handed, &example("exchange-rates/manifest.json")).expect("shown");
        let installed = host.block_on(install_of(&host, &handed, &shown.review, options())).expect("installed");
        assert_eq!(installed.slug, "fx");
        let again = host.block_on(install_of(&host, &handed, &shown.review, options())).expect_err("used");
        assert_eq!(again.code.as_str(), "unknown_review");

        let cancelled = import(&host, &handed, &example("recipe-search/manifest.json")).expect("shown");
        host.block_on(cancel_of(&host, &handed, &cancelled.review)).expect("cancelled");
        let again = host.block_on(cancel_of(&host, &handed, &cancelled.review)).expect_err("used");
        assert_eq!(again.code.as_str(), "unknown_review");
    }

    /// §10: the app opens only a help link a setting shown in the window
    /// declares (consent screen or Options), checked again as §10 checks it.
    #[test]
    fn s10_help_opens_only_a_help_link_the_window_shows() {
        const LINK: &str = "https://tasks.example.com/help/api-token";
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        let handed = Handed::default();
        assert_eq!(link_to_open(&handed, LINK).expect_err("not shown yet").code.as_str(), "bad_input");

        let review = import(&host, &handed, &example("my-tasks/manifest.json")).expect("review");
        assert!(review.settings.iter().any(|s| s.help_url.as_deref() == Some(LINK)), "{:?}", review.settings);
        assert_eq!(link_to_open(&handed, LINK).expect("a shown help link").as_str(), LINK);
        for other in ["https://example.com/", "https://tasks.example.com/help/other", "file:///etc/passwd"] {
            assert_eq!(link_to_open(&handed, other).expect_err(other).code.as_str(), "bad_input", "{other}");
        }
    }

    /// A help link the window was given but §10 refuses (the shown details
    /// can only hold checked links; this guards the check itself).
    #[test]
    fn s10_a_shown_link_is_still_checked_as_the_validator_checks_it() {
        let handed = Handed::default();
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        let mut review = import(&host, &handed, &example("my-tasks/manifest.json")).expect("review");
        for bad in ["http://example.com/help", "https://example.com:8443/help", "https://user:pw@example.com/"] {
            review.settings[0].help_url = Some(bad.to_owned());
            review = handed.review(review);
            assert_eq!(link_to_open(&handed, bad).expect_err(bad).code.as_str(), "bad_input", "{bad}");
        }
    }

    /// §11: where no keyring keeps secrets past a restart, the panel gets the
    /// engine's sentence; where one does, nothing.
    #[test]
    fn s11_the_panel_is_told_when_secrets_last_only_until_a_restart() {
        use dcp_vault::Persistence;
        for (persistence, shown) in [(Persistence::UntilRestart, true), (Persistence::Persistent, false)] {
            let dir = tempfile::tempdir().expect("profile");
            let keys = MemoryKeyStore::new().with_persistence(persistence);
            let options = HostOptions {
                profile: Some(dir.path().to_path_buf()),
                key_store: Some(Arc::new(keys)),
                ..HostOptions::default()
            };
            let host = Host::open(options).expect("host");
            let warning = host.block_on(crate::commands::app::secrets_warning_of(&host));
            assert_eq!(warning.is_some(), shown, "{persistence:?}: {warning:?}");
            if let Some(text) = warning {
                assert!(text.contains("restart"), "{text}");
            }
        }
    }

    /// §19: in developer mode a folder handed to the window is Load a folder.
    #[test]
    fn s19_a_folder_handed_in_developer_mode_is_loaded() {
        let dir = tempfile::tempdir().expect("profile");
        let host = host(dir.path());
        host.block_on(host.set_switches(SwitchesPatch { dev_mode: Some(true), ..Default::default() })).expect("on");
        let review = import(&host, &Handed::default(), &example("exchange-rates")).expect("loaded");
        assert_eq!((review.slug.as_str(), review.origin), ("fx", dcp_host::Origin::Folder));
    }
}
