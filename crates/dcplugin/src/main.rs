//! `dcplugin`: the command-line tool for plugin authors and for scripting the
//! host. Glue only: every rule lives in the engine crates; this file parses
//! arguments, calls the engine and prints. Its commands, flags, `--json`
//! shapes and exit codes are a public contract (see docs/cli.md).

// Text mode prints through `shown`, which makes outside text safe for a
// terminal (issue 32): `println!` and its siblings are refused here.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod choice;
mod cmd;
mod localtime;
mod output;
mod shown;
mod words;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Command-line tool for Desktop Companion plugins.
#[derive(Parser)]
#[command(name = "dcplugin", version, about)]
struct Cli {
    /// The profile folder (default: $DCPLUGIN_PROFILE, else the app's data folder).
    #[arg(long, global = true, value_name = "DIR")]
    profile: Option<PathBuf>,
    /// Print JSON instead of text: one object (serve: one object per line).
    ///
    /// Declared once for every command, so `dcplugin --json list` and
    /// `dcplugin list --json` are the same command.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

/// Who asked, and which AI answers: the turn of `tools` and `call`.
#[derive(clap::Args, Clone)]
struct TurnArgs {
    /// Who started the turn; by default a test of yours, as the journal then says (issue 23).
    #[arg(long, default_value = "test", value_parser = choice::of::<dcp_host::Source>())]
    source: dcp_host::Source,
    /// Where the AI runs.
    #[arg(long, default_value = "local", value_parser = choice::of::<choice::ModelFlag>())]
    model: choice::ModelFlag,
    /// The player's Twitch chat is connected (stream mode).
    #[arg(long)]
    live: bool,
    /// Built-in tools already offered (they come first).
    #[arg(long, default_value_t = 0, value_name = "N")]
    builtin: usize,
    /// Calls giving the same turn id belong to one turn.
    #[arg(long, value_name = "ID")]
    turn: Option<String>,
    /// The tool step of the turn, from 1 (up to 5): calls an online model asks for at once share a step. Default: the turn's next step.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    step: Option<u32>,
}

/// The options of the consent screen, for `install`, `import --yes` and
/// `load-folder --yes`.
#[derive(clap::Args, Clone, Default)]
struct InstallArgs {
    /// A setting, KEY=VALUE (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Read secrets from standard input: one KEY=VALUE line per secret, KEY being the setting's key (api_token=abc123); blank lines are skipped.
    #[arg(long)]
    pub secrets_stdin: bool,
    /// The answer to the online-AI question.
    #[arg(long, value_parser = choice::of::<dcp_host::CloudChoice>())]
    pub cloud: Option<dcp_host::CloudChoice>,
}

#[derive(Subcommand)]
enum Command {
    /// Check a plugin (.json, .zip or folder) and list every problem.
    ///
    /// With --json: one object, {"ok", "slug", "errors", "warnings"}.
    Validate {
        /// A .json manifest, a .zip package or a folder holding manifest.json.
        path: PathBuf,
        /// The app version minAppVersion is checked against (x.y.z).
        #[arg(long, value_name = "X.Y.Z", value_parser = cmd::parse_version)]
        app_version: Option<dcp_host::Version>,
    },
    /// Check a package, keep it in quarantine and print its review (consent screen).
    Import {
        /// A .json or .zip package.
        path: PathBuf,
        /// Install at once with the options given.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        install: InstallArgs,
    },
    /// Install the plugin of a review.
    Install {
        /// The review id printed by import or load-folder.
        review: String,
        #[command(flatten)]
        install: InstallArgs,
    },
    /// Cancel a review and delete its quarantined copy.
    Cancel {
        /// The review id.
        review: String,
    },
    /// Load a plugin folder in place (developer mode).
    LoadFolder {
        /// The folder holding manifest.json.
        dir: PathBuf,
        /// Load at once with the options given.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        install: InstallArgs,
    },
    /// The official plugins bundled with the app.
    Catalog {
        /// Start installing this official plugin: prints its review.
        #[arg(long, value_name = "SLUG")]
        import: Option<String>,
        /// With --import: install at once with the options given.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        install: InstallArgs,
    },
    /// The installed plugins with their statuses.
    List,
    /// One plugin in full (secrets only as set / not set).
    Show { slug: String },
    /// Switch a plugin, or one action, on.
    Enable {
        slug: String,
        /// Only this action (tool name).
        #[arg(long, value_name = "TOOL")]
        action: Option<String>,
    },
    /// Switch a plugin, or one action, off.
    Disable {
        slug: String,
        /// Only this action (tool name).
        #[arg(long, value_name = "TOOL")]
        action: Option<String>,
    },
    /// Save settings, KEY=VALUE each.
    Set {
        slug: String,
        #[arg(required = true, value_name = "KEY=VALUE")]
        values: Vec<String>,
    },
    /// Replace a secret, read from standard input (never from the command line).
    ///
    /// Standard input holds the raw value only, not KEY=VALUE (that is the
    /// format of `install --secrets-stdin`); one trailing newline is dropped.
    /// Example: printf '%s' "$TOKEN" | dcplugin secret SLUG token
    Secret {
        slug: String,
        key: String,
        /// Clear the secret instead.
        #[arg(long)]
        clear: bool,
    },
    /// Allow with online AI models, or keep on this PC only.
    Cloud {
        slug: String,
        #[arg(value_parser = choice::of::<dcp_host::CloudChoice>())]
        choice: dcp_host::CloudChoice,
    },
    /// Use while live on Twitch.
    Twitch {
        slug: String,
        #[arg(value_parser = choice::of::<choice::Permit>())]
        choice: choice::Permit,
    },
    /// Keep an unsigned plugin (the review banner's Keep).
    Keep { slug: String },
    /// Remove a plugin, its settings and its secrets (a folder's files stay).
    Uninstall { slug: String },
    /// Re-read every installed file and print the statuses.
    Reload,
    /// Turn developer mode on or off.
    DevMode {
        #[arg(value_parser = choice::of::<choice::OnOff>())]
        state: choice::OnOff,
    },
    /// Set app switches: plugins_enabled, tools_enabled, dev_mode, language (KEY=VALUE each); none prints them.
    Prefs {
        #[arg(value_name = "KEY=VALUE")]
        values: Vec<String>,
    },
    /// Print the plugins folder (Open the plugins folder).
    PluginsFolder,
    /// What the AI is offered for a turn: tools, abilities, and what is left out and why.
    Tools {
        #[command(flatten)]
        turn: TurnArgs,
    },
    /// Run one tool call through the whole pipeline and print what the AI reads.
    ///
    /// With --json: one object, {"outcome", "code", "reason", "retryable", "for_ai"}.
    Call {
        /// The full tool name, <slug>__<tool>.
        tool: String,
        /// The AI's arguments, a JSON object.
        #[arg(long, value_name = "JSON")]
        args: Option<String>,
        #[command(flatten)]
        turn: TurnArgs,
    },
    /// The action journal, newest first.
    Journal {
        /// How many entries.
        #[arg(long, default_value_t = 50, value_name = "N")]
        limit: usize,
        /// Only this plugin.
        #[arg(long, value_name = "SLUG")]
        plugin: Option<String>,
        /// Only this outcome.
        #[arg(long, value_parser = choice::of::<dcp_host::JournalOutcome>())]
        outcome: Option<dcp_host::JournalOutcome>,
        /// Only tool calls, or only events.
        #[arg(long, value_parser = choice::of::<dcp_host::JournalKind>())]
        kind: Option<dcp_host::JournalKind>,
        /// Only entries older than this id (the next page).
        #[arg(long, value_name = "ID")]
        before: Option<i64>,
    },
    /// A plugin's events (§16): switches, the door's state; `on|off EVENT`; `token [--new]` prints the event token.
    Events {
        slug: String,
        /// on, off (with EVENT) or token.
        #[arg(value_parser = choice::of::<choice::EventsWhat>())]
        what: Option<choice::EventsWhat>,
        /// The event to switch.
        event: Option<String>,
        /// With token: New token (the old one stops working at once).
        #[arg(long)]
        new: bool,
        /// The door's port shown (for tests).
        #[arg(long, default_value_t = dcp_host::DEFAULT_DOOR_PORT, value_name = "N")]
        door_port: u16,
    },
    /// Run the host without a window: the event door and the folder watchers; prints each event, refusal, drop and event turn. Stops on Ctrl-C or SIGTERM.
    Serve {
        /// A companion always listening: waiting events are said at once.
        #[arg(long)]
        listening: bool,
        /// The door's port (default 8440; for tests).
        #[arg(long, default_value_t = dcp_host::DEFAULT_DOOR_PORT, value_name = "N")]
        door_port: u16,
    },
    /// The companion's AI: show it, or set the URL and the model of an OpenAI-compatible service.
    ///
    /// Where the AI runs is its URL's: a loopback host (127.0.0.1, ::1,
    /// localhost) is an AI on this PC, plain http allowed; anything else is
    /// online and must be https on a public address. With nothing set, shows
    /// what answers on this PC's usual ports (Ollama, LM Studio, llama.cpp).
    ///
    /// With --json: {"url", "model", "where": "pc"|"online", "key_set", "max_tokens"}.
    #[command(args_conflicts_with_subcommands = true)]
    Ai {
        #[command(subcommand)]
        what: Option<AiWhat>,
        /// The service's base URL, e.g. http://127.0.0.1:11434/v1 (Ollama) or https://openrouter.ai/api/v1.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        /// The model's name, as the service lists it.
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// The most tokens one answer may have, from 16 to 32768 (2048 unless set); `default` goes back to 2048.
        /// Set alone: a refused value changes nothing.
        #[arg(long, value_name = "N|default", conflicts_with_all = ["url", "model"])]
        max_tokens: Option<String>,
    },
    /// Talk with the companion: each line of standard input is one turn of the player (or --once TEXT, one turn).
    ///
    /// On a terminal a readable chat: the answer streams, each tool call is
    /// one line (the plugin, the action's hint, the outcome). While
    /// developer mode is on (and without --once), also runs the event door
    /// as serve does and says each event turn between the player's turns.
    /// Exit 0 when standard input ends; with --once, 1 when the turn failed.
    ///
    /// With --twitch CHANNEL, also the player's Twitch chat: its viewers'
    /// messages addressed to the companion are said between the player's
    /// turns, and every turn is live (stream mode).
    ///
    /// With --json: one object per line, each with a "type": turn, delta,
    /// tool, confirm, reply, event, viewer, error, end.
    Chat(cmd::chat::ChatArgs),
    /// The player's Twitch chat (read only, no account): connect CHANNEL (saved, then checked), disconnect, status.
    ///
    /// Connects to Twitch's chat at irc.chat.twitch.tv port 6697 (TLS).
    /// connect and status check the saved channel: connected, or why not,
    /// then hang up (the channel stays saved for the window and chat
    /// --twitch). Exit 0 connected (or nothing saved), 1 not, or refused.
    TwitchChat {
        #[command(subcommand)]
        what: cmd::twitch::TwitchChat,
    },
    /// Start a new plugin in a folder: a manifest that validates, a readme, and for a program on this PC a small Python server.
    ///
    /// Asks a few questions (read from standard input; an empty answer takes
    /// the default shown), or takes them from flags: with --yes, every
    /// question not given by a flag takes its default.
    ///
    /// With --json: one object, {"ok", "dir", "slug", "files", "next"}.
    Init {
        /// The new plugin's folder (created; default: the current folder). It must not hold a manifest.json yet.
        dir: Option<PathBuf>,
        /// The plugin's name, shown to players (40 characters at most).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// A web service (HTTPS) or a program on this PC (developer mode).
        #[arg(long, value_parser = choice::of::<choice::Kind>())]
        kind: Option<choice::Kind>,
        /// How requests prove who sends them: none, a bearer token header, or an API key in the query.
        #[arg(long, value_parser = choice::of::<choice::Auth>())]
        auth: Option<choice::Auth>,
        /// The web service's domain (kind web), e.g. api.example.com.
        #[arg(long, value_name = "DOMAIN")]
        host: Option<String>,
        /// The port of the program on this PC (kind pc).
        #[arg(long, value_name = "N")]
        port: Option<u16>,
        /// The first action's name ([a-z0-9_]), e.g. get_status.
        #[arg(long, value_name = "NAME")]
        action: Option<String>,
        /// Ask nothing: every answer not given by a flag takes its default.
        #[arg(long)]
        yes: bool,
    },
    /// Serve the installed plugins' actions to an AI app over the Model Context Protocol, on standard input and output.
    ///
    /// An AI app (Claude Desktop, VS Code, LM Studio, …) starts it as a
    /// command. Its tools are what the companion would be offered for a turn
    /// of the player's own; each call goes through the same courtier,
    /// network filter and journal (who: mcp). An R3 action is offered only
    /// to a client that can ask its user (elicitation), and asked every
    /// time. The tool list follows the profile: a change is announced to
    /// the client. Exit 0 when the client closes standard input.
    Mcp {
        /// Where the client's model runs: online (the default: an AI app's model is usually a service) or pc (only when it runs on this PC). A plugin kept on this PC is offered only with pc.
        #[arg(long, default_value = "online", value_parser = choice::of::<dcp_host::Place>())]
        ai: dcp_host::Place,
    },
    /// Build a .zip package from a plugin folder, refusing an invalid one.
    Pack {
        /// The plugin folder (manifest.json, icon.png, readme.md, license).
        folder: PathBuf,
        /// Where to write the package (default: <slug>-<version>.zip).
        #[arg(short, long, value_name = "OUT.zip")]
        output: Option<PathBuf>,
    },
}

/// `ai key` and `ai test`.
#[derive(Subcommand)]
enum AiWhat {
    /// The service's API key, read from standard input (the raw value); never printed.
    Key {
        /// Forget the key instead.
        #[arg(long)]
        clear: bool,
    },
    /// Reach the AI and list its models; exit 0 only when it answers and knows the model.
    ///
    /// With --json: {"ok", "where", "models": [..], "code"?, "message"?}.
    Test,
}

/// How this program was started, for the commands a hint tells to run:
/// `dcplugin`, with `--profile DIR` when one was given.
pub fn me() -> &'static str {
    ME.get().map_or("dcplugin", String::as_str)
}

static ME: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _ = ME.set(match &cli.profile {
        Some(dir) => format!("dcplugin --profile {}", cmd::shell_word(&dir.to_string_lossy())),
        None => "dcplugin".to_owned(),
    });
    let json = cli.json;
    let outcome = match cli.command {
        Command::Validate { path, app_version } => cmd::validate::run(&path, json, app_version),
        Command::Pack { folder, output } => cmd::pack::run(&folder, output.as_deref(), json),
        Command::Init { dir, name, kind, auth, host, port, action, yes } => {
            cmd::init::run(cmd::init::Answers { dir, name, kind, auth, host, port, action }, yes, json)
        }
        Command::Serve { listening, door_port } => cmd::host::open(cli.profile, Some(door_port))
            .and_then(|host| cmd::events::serve(&host, listening, door_port, json)),
        Command::Chat(args) => {
            cmd::host::open(cli.profile, Some(args.door_port())).and_then(|host| cmd::chat::run(&host, args, json))
        }
        Command::Mcp { ai } => cmd::host::open(cli.profile, None).and_then(|host| cmd::mcp::run(&host, ai)),
        Command::TwitchChat { what } => {
            cmd::host::open(cli.profile, None).map(|host| cmd::twitch::run(&host, what, json))
        }
        Command::Ai { what, url, model, max_tokens } => {
            let command = match what {
                None => cmd::ai::AiCommand::Set { url, model, max_tokens },
                Some(AiWhat::Key { clear }) => cmd::ai::AiCommand::Key { clear },
                Some(AiWhat::Test) => cmd::ai::AiCommand::Test,
            };
            cmd::host::open(cli.profile, None).and_then(|host| cmd::ai::run(&host, command, json))
        }
        other => {
            let door_port = match &other {
                Command::Events { door_port, .. } => Some(*door_port),
                _ => None,
            };
            cmd::host::open(cli.profile, door_port).and_then(|host| cmd::plugins::run(&host, other, json))
        }
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            shown::errln!("dcplugin: {e:#}");
            ExitCode::from(2)
        }
    }
}
