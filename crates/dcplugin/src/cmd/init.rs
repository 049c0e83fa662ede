//! `dcplugin init [DIR]`: a new plugin from a few answers (a terminal, or
//! flags for scripts). What it writes passes `dcplugin validate` at once:
//! it is checked by the engine's validator before anything is written.

use super::shell_word;
use crate::choice::{Auth, Kind};
use crate::output::{print_json, print_problems};
use crate::shown::{err, errln, outln};
use dcp_host::ToolRef;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The answers given by flags; the others are asked, or take their default.
pub struct Answers {
    pub dir: Option<PathBuf>,
    pub name: Option<String>,
    pub kind: Option<Kind>,
    pub auth: Option<Auth>,
    pub host: Option<String>,
    pub port: Option<u16>,
    pub action: Option<String>,
}

/// Every answer, decided.
struct Plan {
    dir: PathBuf,
    name: String,
    pc: bool,
    auth: Auth,
    host: String,
    port: u16,
    action: String,
}

/// `dcplugin init --json`.
#[derive(Serialize)]
struct InitJson<'a> {
    ok: bool,
    dir: &'a Path,
    slug: &'a str,
    files: &'a [&'a str],
    next: &'a [String],
}

pub fn run(answers: Answers, yes: bool, json: bool) -> anyhow::Result<ExitCode> {
    let dir = answers.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if dir.join("manifest.json").exists() {
        let message = format!(
            "{} already holds a manifest.json: nothing written (dcplugin init starts a new plugin in an empty or new folder)",
            dir.display()
        );
        if json {
            print_json(&json!({ "ok": false, "code": null, "message": message, "errors": [] }));
        } else {
            errln!("{message}");
        }
        return Ok(ExitCode::from(super::REFUSED));
    }
    let plan = ask(answers, dir, !yes)?;
    let (slug, manifest) = manifest_that_validates(&plan)?;
    std::fs::create_dir_all(&plan.dir).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", plan.dir.display()))?;
    let mut files = vec!["manifest.json", "readme.md"];
    let text = serde_json::to_string_pretty(&manifest)? + "\n";
    write_new(&plan.dir.join("manifest.json"), &text)?;
    // The manifest validated, so its slug and action make a tool name.
    let tool = ToolRef::new(&slug, &plan.action)?;
    let next = next_steps(&plan, &tool);
    write_new(&plan.dir.join("readme.md"), &readme(&plan, &tool, &next))?;
    if plan.pc {
        write_new(&plan.dir.join("server.py"), &server_py(&plan))?;
        files.push("server.py");
    }
    if json {
        print_json(&InitJson { ok: true, dir: &plan.dir, slug: &slug, files: &files, next: &next });
    } else {
        outln!("created {}: {}", plan.dir.display(), files.join(", "));
        outln!("valid: {slug} ({} 0.1.0)", plan.name);
        outln!("next:");
        for line in &next {
            outln!("  {line}");
        }
        outln!("(the same steps are in {})", plan.dir.join("readme.md").display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Asks each question not answered by a flag (on standard error, read from
/// standard input; an empty answer or the end of input takes the default).
fn ask(a: Answers, dir: PathBuf, interactive: bool) -> anyhow::Result<Plan> {
    let mut input = std::io::stdin().lock();
    let mut question = |text: &str, default: &str, given: Option<String>| -> anyhow::Result<String> {
        if let Some(value) = given {
            return Ok(value);
        }
        if !interactive {
            return Ok(default.to_owned());
        }
        err!("{text} [{default}]: ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        input.read_line(&mut line)?;
        let line = line.trim();
        Ok(if line.is_empty() { default.to_owned() } else { line.to_owned() })
    };
    let folder_name = std::fs::canonicalize(&dir)
        .ok()
        .or_else(|| Some(dir.clone()))
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| n.chars().any(|c| c.is_ascii_alphanumeric()))
        .map(|n| title(&n))
        .unwrap_or_else(|| "My plugin".to_owned());
    let name = question("Name shown to players", &folder_name, a.name)?;
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 40 {
        anyhow::bail!("the name must be 1 to 40 characters (--name)");
    }
    let kind =
        question("A web service (web) or a program on this PC (pc)", "web", a.kind.map(|k| k.as_str().to_owned()))?;
    let pc = match Kind::parse(&kind) {
        Some(kind) => kind == Kind::Pc,
        None => anyhow::bail!("{kind}: answer web or pc (--kind web|pc)"),
    };
    let auth = if pc {
        match a.auth {
            None | Some(Auth::Bearer) => Auth::Bearer,
            Some(other) => anyhow::bail!(
                "--auth {other}: a program on this PC always checks a bearer token (other programs and web pages \
                 can reach 127.0.0.1 too): leave --auth out or give --auth bearer"
            ),
        }
    } else {
        let auth = question(
            "Authentication: none, bearer (a token header) or query (an API key in the URL)",
            "none",
            a.auth.map(|k| k.as_str().to_owned()),
        )?;
        match Auth::parse(&auth) {
            Some(auth) => auth,
            None => anyhow::bail!("{auth}: answer none, bearer or query (--auth none|bearer|query)"),
        }
    };
    let (host, port) = if pc {
        let port = question("Port of your program on 127.0.0.1", "8420", a.port.map(|p| p.to_string()))?;
        let port: u16 = port.parse().map_err(|_| anyhow::anyhow!("{port}: a port is a number from 1024 to 65535"))?;
        if port < 1024 {
            anyhow::bail!("port {port} is reserved for system services: pick one from 1024 to 65535 (--port)");
        }
        if let Some(what) = dcp_host::author::reserved_port(port) {
            anyhow::bail!("port {port} is reserved ({what}): pick another one (--port), for example 8420");
        }
        (String::new(), port)
    } else {
        let host = question("Domain of the web service (HTTPS)", "api.example.com", a.host)?.to_lowercase();
        (host, 0)
    };
    let action = question("The first action's name (a-z, 0-9, _)", "get_status", a.action)?;
    let action: String = action
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .trim_matches('_')
        .chars()
        .take(40)
        .collect();
    if action.is_empty() {
        anyhow::bail!("the action needs a name made of a-z, 0-9 and _ (--action)");
    }
    Ok(Plan { dir, name, pc, auth, host, port, action })
}

/// The manifest, checked by the validator; a slug the app keeps for itself
/// gets a `my` in front.
fn manifest_that_validates(plan: &Plan) -> anyhow::Result<(String, Value)> {
    let base: String = plan.name.to_lowercase().chars().filter(char::is_ascii_alphanumeric).take(20).collect();
    let base = if base.len() < 2 { "myplugin".to_owned() } else { base };
    let mut last = None;
    for slug in [base.clone(), format!("my{base}").chars().take(20).collect()] {
        let manifest = manifest(plan, &slug);
        let problems = dcp_host::author::validate_manifest(serde_json::to_string(&manifest)?.as_bytes());
        if problems.is_ok() {
            return Ok((slug, manifest));
        }
        let slug_refused = problems.errors.iter().all(|p| p.path == "slug" || p.code.as_str() == "reserved_slug");
        last = Some(problems);
        if !slug_refused {
            break;
        }
    }
    let problems = last.unwrap_or_default();
    print_problems(&problems);
    anyhow::bail!("these answers do not make a valid plugin (see the problems above): nothing written")
}

fn manifest(plan: &Plan, slug: &str) -> Value {
    let words = plan.action.replace('_', " ");
    let (url, subject) = if plan.pc {
        (format!("http://127.0.0.1:{}/{}", plan.port, plan.action), "the program running on the user's computer")
    } else {
        (format!("https://{}/{}", plan.host, plan.action), "the web service")
    };
    let mut description = format!("{} from {subject}.", sentence(&words));
    description.truncate(200);
    let mut hint: String = format!("{words} from {}", if plan.pc { "your PC" } else { "the service" });
    hint.truncate(60);
    let mut tool = json!({
        "description": description,
        "hint": { "en": hint },
    });
    if matches!(plan.auth, Auth::Bearer | Auth::Query) && !plan.pc {
        // A token or key opens the player's own account: reading it is R1.
        tool["risk"] = json!("R1");
    }
    tool["inputSchema"] = json!({ "type": "object", "properties": {} });
    tool["request"] = json!({ "method": "GET", "url": url });
    let mut companion = json!({
        "apiVersion": 1,
        "kind": "declarative",
        "slug": slug,
    });
    companion["permissions"] = if plan.pc {
        json!({ "network": { "local": { "ports": [plan.port] } } })
    } else {
        json!({ "network": { "hosts": [plan.host] } })
    };
    let mut user_config = None;
    match plan.auth {
        Auth::None => {}
        Auth::Bearer if plan.pc => {
            user_config = Some(json!({ "token": {
                "type": "string",
                "title": "Server token",
                "description": "Printed by server.py when it starts, and saved in token.txt next to it.",
                "sensitive": true,
                "required": true,
                "maxLength": 200
            }}));
            companion["auth"] = json!({ "in": "header", "name": "Authorization", "value": "Bearer {{secret.token}}" });
        }
        Auth::Bearer => {
            user_config = Some(json!({ "api_token": {
                "type": "string",
                "title": "API token",
                "description": "In your account on the service, developer settings: create a token and paste it here.",
                "sensitive": true,
                "required": true,
                "maxLength": 500
            }}));
            companion["auth"] =
                json!({ "in": "header", "name": "Authorization", "value": "Bearer {{secret.api_token}}" });
        }
        Auth::Query => {
            user_config = Some(json!({ "api_key": {
                "type": "string",
                "title": "API key",
                "description": "In your account on the service, developer settings: copy your API key and paste it here.",
                "sensitive": true,
                "required": true,
                "maxLength": 500
            }}));
            companion["auth"] = json!({ "in": "query", "name": "apikey", "value": "{{secret.api_key}}" });
        }
    }
    if tool.get("risk").is_some() {
        companion["data"] = json!({ "cloudModels": "ask" });
    }
    companion["tools"] = json!({ plan.action.clone(): tool });
    let technical: String = plan
        .name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let mut root = json!({
        "name": if technical.is_empty() { slug.to_owned() } else { technical },
        "version": "0.1.0",
        "display_name": plan.name,
        "description": format!("{}: {}.", plan.name, if plan.pc { "talks to a program on your PC" } else { "reads a web service" }),
        "author": { "name": "Your name" },
    });
    if let Some(config) = user_config {
        root["user_config"] = config;
    }
    root["_meta"] = json!({ "com.desktopaicompanion": companion });
    root
}

/// The commands from here to a plugin tried by hand.
fn next_steps(plan: &Plan, tool: &ToolRef) -> Vec<String> {
    let me = crate::me();
    let dir = shell_word(&plan.dir.to_string_lossy());
    let mut lines = vec![format!("{me} validate {dir}")];
    if plan.pc {
        lines.push(format!(
            "python3 {} (in its own terminal: prints the server token)",
            plan.dir.join("server.py").display()
        ));
    }
    lines.push(format!("{me} dev-mode on"));
    let load = format!("{me} load-folder {dir} --yes");
    lines.push(match plan.auth {
        Auth::None => load,
        Auth::Bearer if plan.pc => {
            format!(
                "printf 'token=%s\\n' \"$(cat {})\" | {load} --secrets-stdin",
                shell_word(&plan.dir.join("token.txt").to_string_lossy())
            )
        }
        Auth::Bearer => format!("printf 'api_token=%s\\n' \"$API_TOKEN\" | {load} --secrets-stdin --cloud allow"),
        Auth::Query => format!("printf 'api_key=%s\\n' \"$API_KEY\" | {load} --secrets-stdin --cloud allow"),
    });
    lines.push(format!("{me} serve (in its own terminal: reloads the plugin at each save of manifest.json)"));
    lines.push(format!("{me} call {tool}"));
    lines.push(format!("{me} pack {dir} (a .zip to share, once it works)"));
    lines
}

fn readme(plan: &Plan, tool: &ToolRef, next: &[String]) -> String {
    let what = if plan.pc {
        format!(
            "a program on this PC: `server.py` (Python standard library only) listens on 127.0.0.1:{} and \
             checks a token. Desktop Companion never runs it: start it yourself. The plugin needs developer mode.",
            plan.port
        )
    } else {
        format!("the web service at `{}`, over HTTPS.", plan.host)
    };
    let steps: String = next.iter().enumerate().map(|(i, l)| format!("{}. `{l}`\n", i + 1)).collect();
    format!(
        "# {name} (slug `{slug}`)\n\nStarted with `dcplugin init`. One action, `{tool}`, talks to {what}\n\n\
         ## Next\n\n{steps}\n\
         Then make it yours: edit `manifest.json` (the action's description is what the AI reads to choose it; \
         `request.url` is where it goes; `response.pick` keeps only the fields the AI needs) and save: while \
         `dcplugin serve` runs, the plugin reloads, and a save with an error prints the error.\n\n\
         The guide for plugin authors is in the plugin host's repository: `docs/guide.md` (tutorial), \
         `docs/reference.md` (every manifest field), `docs/errors.md` (every error code and its fix).\n",
        name = plan.name,
        slug = tool.slug(),
    )
}

fn server_py(plan: &Plan) -> String {
    SERVER_PY
        .replace("{{PORT}}", &plan.port.to_string())
        .replace("{{ACTION}}", &plan.action)
        .replace("{{NAME}}", &plan.name)
}

/// A small server to start from: Python standard library only, 127.0.0.1
/// only, a token created on the first start and checked on every request,
/// browser requests refused. A file of its own, so that it is read, edited
/// and checked as the Python it is; `{{NAME}}`, `{{ACTION}}` and `{{PORT}}`
/// are replaced by [`server_py`].
const SERVER_PY: &str = include_str!("init/server.py");

/// Writes a file that must not exist yet.
fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    file.write_all(text.as_bytes()).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

/// `my-weather` → `My weather`.
fn title(folder: &str) -> String {
    let words = folder.replace(['-', '_', '.'], " ");
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    sentence(&words).chars().take(40).collect()
}

/// The first letter in capitals.
fn sentence(words: &str) -> String {
    let mut chars = words.chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}
