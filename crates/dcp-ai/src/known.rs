//! The AI servers players run on their PC, which the app knows by their
//! usual port (§13): one table, read wherever they are named — the PC's
//! ports [`crate::discover`] asks, the hint of a refused URL, the advice
//! when nothing answers, and, as a [`KnownServer`] fact, the shells' words.

use serde::Serialize;

use crate::{AiUrl, Place};

dcp_format::spelled! {
    /// An AI server of this PC that the app knows.
    pub enum PcServer {
        /// Ollama.
        Ollama => "ollama",
        /// LM Studio's local server.
        LmStudio => "lm_studio",
        /// llama.cpp's server, `llama-server`.
        LlamaCpp => "llama_cpp",
    }
}

/// One row of the table.
struct Row {
    /// Its name, as players know it.
    name: &'static str,
    /// The ports it listens on unless told otherwise, the usual one first:
    /// a server whose default port moves keeps its old one here as long as
    /// its players run releases listening there (llama.cpp: 8080, and 9931
    /// announced, issue 34).
    ports: &'static [u16],
    /// What to do when nothing answers on those ports.
    start: &'static str,
    /// A model it serves that can use tools, to name when the one set cannot
    /// (issue 34): as the player would type or look for it there.
    tool_model: &'static str,
}

impl PcServer {
    /// The table.
    fn row(self) -> Row {
        match self {
            PcServer::Ollama => Row {
                name: "Ollama",
                ports: &[11434],
                start: "start Ollama (it listens on port 11434)",
                tool_model: "qwen2.5",
            },
            PcServer::LmStudio => Row {
                name: "LM Studio",
                ports: &[1234],
                start: "start LM Studio's local server (port 1234)",
                tool_model: "qwen2.5-7b-instruct",
            },
            PcServer::LlamaCpp => Row {
                name: "llama.cpp",
                ports: &[8080, 9931],
                start: "start llama.cpp's server, llama-server (port 8080, or 9931 in the releases that moved it)",
                tool_model: "Qwen2.5-7B-Instruct-GGUF",
            },
        }
    }

    /// Its name, as players know it ("LM Studio").
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The port it usually listens on unless told otherwise.
    pub fn port(self) -> u16 {
        self.row().ports[0]
    }

    /// Every port it listens on unless told otherwise, the usual one first.
    pub fn ports(self) -> &'static [u16] {
        self.row().ports
    }

    /// What to do when nothing answers on its port, for an error's advice.
    pub fn start(self) -> &'static str {
        self.row().start
    }

    /// A model it serves that can use tools, for advice when the one set
    /// cannot (`qwen2.5` for Ollama).
    pub fn tool_model(self) -> &'static str {
        self.row().tool_model
    }

    /// Its usual base URL (`http://127.0.0.1:11434/v1`).
    pub fn base_url(self) -> String {
        base_url(self.port())
    }

    /// Its base URL on each of its [`PcServer::ports`], the usual one first.
    pub fn base_urls(self) -> Vec<String> {
        self.ports().iter().copied().map(base_url).collect()
    }

    /// The server listening on `port` unless told otherwise.
    pub fn on_port(port: u16) -> Option<PcServer> {
        PcServer::ALL.into_iter().find(|s| s.ports().contains(&port))
    }

    /// The server usually behind `url`: an AI on this PC, on its port.
    pub fn at(url: &AiUrl) -> Option<PcServer> {
        (url.place() == Place::Pc).then(|| PcServer::on_port(url.port())).flatten()
    }

    /// Every server's name, for a sentence: `Ollama, LM Studio or llama.cpp`.
    pub fn names_or() -> String {
        let names = PcServer::ALL.map(PcServer::name);
        match names.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// Its fact, for a shell's words.
    pub fn known(self) -> KnownServer {
        KnownServer { server: self, name: self.name(), port: self.port(), ports: self.ports() }
    }
}

/// The base URL of a server of this PC on `port`.
fn base_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/v1")
}

/// A known server as it crosses to a shell: which, its name and its usual port.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KnownServer {
    /// Which.
    pub server: PcServer,
    /// Its name, as players know it.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub name: &'static str,
    /// The port it listens on unless told otherwise.
    pub port: u16,
    /// Every port it listens on unless told otherwise, the usual one first
    /// ([`PcServer::ports`]): what the shells say discovery asks (issue 34).
    #[cfg_attr(feature = "ts", ts(type = "number[]"))]
    pub ports: &'static [u16],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge_ai_url;

    #[test]
    fn a_server_is_known_on_this_pc_by_its_port() {
        let at = |url: &str| PcServer::at(&judge_ai_url(url).expect("a URL"));
        assert_eq!(at("http://127.0.0.1:11434/v1"), Some(PcServer::Ollama));
        assert_eq!(at("http://localhost:1234/v1"), Some(PcServer::LmStudio));
        assert_eq!(at("http://[::1]:8080/v1"), Some(PcServer::LlamaCpp));
        assert_eq!(at("http://127.0.0.1:9931/v1"), Some(PcServer::LlamaCpp), "llama.cpp's new default port");
        assert_eq!(
            PcServer::LlamaCpp.base_urls(),
            ["http://127.0.0.1:8080/v1", "http://127.0.0.1:9931/v1"],
            "discovery asks both"
        );
        assert!(PcServer::LlamaCpp.start().contains("9931"), "{}", PcServer::LlamaCpp.start());
        assert_eq!(at("http://127.0.0.1:9999/v1"), None);
        assert_eq!(at("https://api.example.com:11434/v1"), None, "online: no server of this PC");
        assert_eq!(PcServer::names_or(), "Ollama, LM Studio or llama.cpp");
        assert_eq!(PcServer::LmStudio.base_url(), "http://127.0.0.1:1234/v1");
        let known = serde_json::to_value(PcServer::Ollama.known()).expect("json");
        assert_eq!(known, serde_json::json!({"server": "ollama", "name": "Ollama", "port": 11434, "ports": [11434]}));
        let known = serde_json::to_value(PcServer::LlamaCpp.known()).expect("json");
        assert_eq!(known["ports"], serde_json::json!([8080, 9931]), "both ports it may listen on");
    }
}
