// The webview's whole surface, declared once: every command the window may
// invoke, with its arguments (as the page names them) and its answer.
//
// Read twice: `lib.rs` includes it to register the handler and (in tests)
// to write the UI's wrappers `ui/src/bindings/api.ts`; `build.rs` includes it
// for the commands' ACL. Neither may keep a list of its own.
//
// `module::name(arg: Type, …) -> Answer` is the function
// `commands::module::name(&AppHandle, arg, …)` answering
// `Result<Answer, ApiError>`. A command that does what a `Host` method does
// has that method's name; the others name the desktop thing they do.
// `as "…"` writes an argument's TypeScript where its Rust type has none.
//
// Not a module (no `//!`): `include!` takes only items.

app_commands! {
    app::switches() -> AppSwitches;
    app::set_switches(patch: SwitchesPatch) -> AppSwitches;
    app::secrets_warning() -> Option<String>;
    app::take_opened_files() -> Vec<String>;
    app::ui_ready() -> u64;
    plugins::cards() -> Vec<Card>;
    plugins::card(slug: String) -> Card;
    plugins::icon(slug: String) -> Option<String>;
    plugins::details(slug: String) -> PluginDetails;
    plugins::reload() -> Vec<Card>;
    plugins::set_enabled(slug: String, on: bool) -> Card;
    plugins::set_action_enabled(slug: String, tool: String, on: bool) -> Card;
    plugins::uninstall(slug: String) -> ();
    plugins::keep(slug: String) -> Card;
    plugins::open_plugin_folder(slug: String) -> ();
    consent::catalog() -> Vec<CatalogEntry>;
    consent::import_path(path: String) -> Review;
    consent::load_folder(path: String) -> Review;
    consent::import_official(slug: String) -> Review;
    consent::install(review: String, options: InstallOptions) -> Installed;
    consent::cancel(review: String) -> ();
    consent::pick_plugin_file(filter: String) -> Option<String>;
    consent::pick_folder() -> Option<String>;
    options::save_settings(slug: String, values: Vec<(String, Value)> as "Array<[string, unknown]>") -> Card;
    options::set_secret(slug: String, key: String, value: Sensitive as "string") -> Card;
    options::clear_secret(slug: String, key: String) -> Card;
    options::set_cloud(slug: String, choice: CloudChoice) -> Card;
    options::set_twitch(slug: String, allowed: bool) -> Card;
    options::test_plugin(slug: String) -> PluginTest;
    options::open_help(url: String) -> ();
    events::events_page(slug: String) -> EventsPage;
    events::set_event_enabled(slug: String, event: String, on: bool) -> Card;
    events::copy_event_token(slug: String) -> ();
    events::new_event_token(slug: String) -> ();
    developer::try_action(tool: String, args: Value as "Record<string, unknown>", source: Source, model: Place) -> TriedAction;
    developer::journal(query: JournalQuery) -> Vec<JournalLine>;
    developer::open_plugins_folder() -> String;
    ai::ai() -> AiSettings;
    ai::set_ai(url: Option<String>, model: Option<String>) -> AiSettings;
    ai::set_ai_key(key: Sensitive as "string") -> AiSettings;
    ai::clear_ai_key() -> AiSettings;
    ai::set_ai_max_tokens(max_tokens: Option<String>) -> AiSettings;
    ai::ai_test(probe: bool) -> AiTest;
    ai::find_pc_ai() -> Vec<FoundAi>;
    ai::pc_servers() -> Vec<KnownServer>;
    companion::companion_say(text: String, live: bool) -> ();
    companion::companion_stop() -> ();
    companion::companion_new_conversation() -> ();
    companion::companion_answer(id: u64, yes: bool) -> ();
    companion::paused_while_live() -> Vec<String>;
    companion::not_offered(live: bool) -> Vec<NotOffered>;
    companion::companion_typing(typing: bool) -> ();
    companion::open_answer_link(url: String) -> ();
    twitch::twitch_status() -> ChatStatus;
    twitch::twitch_connect(channel: String) -> ChatStatus;
    twitch::twitch_disconnect() -> ChatStatus;
    twitch::twitch_settings(prefix: Option<String>, paused: Option<bool>, ignore: Option<String>, unignore: Option<String>) -> ChatStatus;
}
