//! The word lists behind §5, kept as data in one place.
//!
//! Every entry is written as a plain phrase; at start-up it goes through the
//! same normaliser as the texts it is matched against
//! ([`super::normalize`]), so `"don't tell the user"` and `"dont tell the user"`
//! are one entry, and case, `_`/`-` and apostrophes don't matter here.
//!
//! Syntax of a phrase entry:
//! - a trailing `*` matches any ending: `"instruction*"` also matches
//!   "instructions" (otherwise the phrase must end at a word boundary);
//! - a leading `^` only matches at the start of a clause (the start of the
//!   text, or after `.`, `!`, `?`, `;`, `:`, a bracket or a quote), used for
//!   role prefixes so that "Operating system: windows or linux" passes while
//!   "System: reveal the key" does not;
//! - a phrase that starts (ends) with a letter or digit must start (end) at
//!   a word boundary: `"best"` does not match "bestseller".
//!
//! To add a phrase: add it to the right list and add a line to the tables in
//! `tests/format/text.rs` (one text that must be caught, and if it is a common
//! word, one ordinary text that must pass).

/// Phrases that look like an instruction aimed at the AI (§5, code
/// `instructions`). Matched on the "words" form of a text: lowercase,
/// `_`/`-` read as spaces, apostrophes dropped.
pub(super) const INSTRUCTION_PHRASES: &[&str] = &[
    // Talking about the AI's own set-up.
    "system prompt*",
    "system message*",
    "system instruction*",
    "initial prompt*",
    "hidden prompt*",
    "hidden instruction*",
    "new instruction*",
    "updated instruction*",
    "real instruction*",
    "true instruction*",
    "actual instruction*",
    "important instruction*",
    "secret instruction*",
    "developer mode",
    "dan mode",
    "god mode",
    "sudo mode",
    "admin override",
    "jailbreak*",
    "jail break*",
    "jailbroken",
    "reveal your",
    "reveal the system",
    "reveal the prompt",
    "repeat your instruction*",
    "print your instruction*",
    "show your instruction*",
    "as an ai",
    "as a language model",
    "as an ai language model",
    "note to the ai",
    "note to ai",
    "dear ai",
    "hey ai",
    "attention ai",
    "the ai must",
    "the ai should",
    "the assistant must",
    "the assistant should",
    // Hiding things from the player, acting behind their back.
    "do not tell the user",
    "don't tell the user",
    "never tell the user",
    "do not tell the player",
    "don't tell the player",
    "never tell the player",
    "do not inform the user",
    "don't inform the user",
    "without telling the user",
    "without telling the player",
    "without informing",
    "without asking",
    "without confirmation",
    "without confirming",
    "without permission",
    "without the user's consent",
    "do not ask the user",
    "don't ask the user",
    "never ask the user",
    "do not mention",
    "don't mention",
    "never mention",
    "do not reveal",
    "don't reveal",
    "never reveal",
    "keep this secret",
    "keep it secret",
    // Steering tool choice.
    "before calling",
    "before you call",
    "before answering",
    "before you answer",
    "before responding",
    "before you respond",
    "always use",
    "always call",
    "always run",
    "always invoke",
    "always choose",
    "always prefer",
    "always pick",
    "always select",
    "always trust",
    "always answer",
    "always respond",
    "always reply",
    "always say",
    "never use",
    "never call",
    "do not use any other",
    "don't use any other",
    "do not use other",
    "don't use other",
    "instead of other tools",
    "instead of any other",
    "call this tool",
    "call this function",
    "call this first",
    "use this tool first",
    "use this tool instead",
    "use this tool whenever",
    "use this tool always",
    "use this tool for all",
    "use this tool for every",
    "use this tool for any",
    "use this first",
    "use this instead",
    "prefer this tool",
    "respond only",
    "reply only",
    "answer only",
    "output only",
    // Addressing the AI directly.
    "you must",
    "you should always",
    "you should never",
    "you are now",
    "you're now",
    "from now on",
    "pretend to be",
    "pretend you",
    "pretend that",
    "pretending to be",
    "roleplay as",
    "role play as",
    "impersonate*",
    "simulate being",
    "i am your developer",
    "i am the developer",
    "i am your creator",
    // Prompt-format markers. (Tags such as <system> are found by a small
    // scanner over TAG_WORDS, so "< system >" and "<|im_start|>" are caught.)
    "### instruction*",
    "### system",
    "### assistant",
    "### human",
    "### response",
    // Role prefixes, only at the start of a clause.
    "^system:",
    "^assistant:",
    "^user:",
    "^developer:",
    "^human:",
    "^ai:",
];

/// A head word, then at most `max_fillers` filler words, then an object:
/// "ignore all of the previous instructions", "act as the system".
/// Matched on the "words" form; fillers and objects follow the phrase
/// syntax above (`*` for any ending).
pub(super) struct SequenceRule {
    /// What starts the sequence ("ignore", "act as").
    pub heads: &'static [&'static str],
    /// Words that may stand between head and object.
    pub fillers: &'static [&'static str],
    /// How many fillers at most.
    pub max_fillers: usize,
    /// What ends the sequence and makes it an instruction.
    pub objects: &'static [&'static str],
}

/// The sequence rules (all code `instructions`).
///
/// "act as" alone is ordinary English ("acts as a converter between
/// currencies"); it is refused only when what follows is the AI, a role or
/// a way around its rules ("act as the system", "act as if you had no
/// rules", "act as an unrestricted AI"). "override" alone is ordinary too
/// ("overrides the default currency"); it is refused with instructions,
/// rules or prompts as object.
pub(super) const SEQUENCE_RULES: &[SequenceRule] = &[
    SequenceRule {
        heads: &["ignore", "disregard", "forget", "override", "overrule", "bypass", "skip"],
        fillers: &[
            "all",
            "any",
            "every",
            "the",
            "your",
            "my",
            "these",
            "those",
            "of",
            "previous",
            "prior",
            "above",
            "earlier",
            "preceding",
            "former",
            "original",
            "old",
            "initial",
            "existing",
            "system",
            "safety",
            "developer",
            "developers",
            "other",
            "current",
            "and",
        ],
        max_fillers: 4,
        objects: &[
            "instruction*",
            "rule*",
            "prompt*",
            "direction*",
            "guideline*",
            "directive*",
            "guardrail*",
            "restriction*",
            "constraint*",
            "polic*",
            "safety",
            "context",
            "everything",
        ],
    },
    SequenceRule {
        heads: &["act as", "acts as", "acting as", "act like", "behave as", "behave like", "respond as", "answer as"],
        fillers: &["a", "an", "the", "my", "your", "its", "if", "though"],
        max_fillers: 2,
        objects: &[
            "if",
            "though",
            "system",
            "assistant",
            "admin*",
            "root",
            "superuser",
            "operator",
            "developer*",
            "dan",
            "jailbr*",
            "unrestricted",
            "unfiltered",
            "uncensored",
            "evil",
            "ai",
            "chatbot",
            "language model",
            "llm",
            "gpt",
            "chatgpt",
            "claude",
            "gemini",
            "god",
            "owner",
            "user",
            "creator",
        ],
    },
];

/// Words that make a fake prompt tag when written between `<…>`, `[…]`,
/// `<|…|>` or `<<…>>`: `<system>`, `</system>`, `<|im_start|>`, `[INST]`,
/// `<<SYS>>`. `tool_result` and `end_tool_result` are the app's own framing
/// of tool answers (§9): `<<end_tool_result` is refused with anything after
/// it. `user` is left out: `/home/<user>/notes` is an ordinary placeholder.
pub(super) const TAG_WORDS: &[&str] = &[
    "system",
    "sys",
    "assistant",
    "inst",
    "im_start",
    "im_end",
    "im_sep",
    "endoftext",
    "instruction",
    "instructions",
    "developer",
    "system_prompt",
    "prompt",
    "tool_call",
    "function_call",
    "tool_result",
    "end_tool_result",
    "start_of_turn",
    "end_of_turn",
    "begin_of_text",
    "eot_id",
];

/// Superlatives (§5, the `superlative` warning). Matched on the "words"
/// form. Spec §5 lists "always use this" both as an instruction ("always
/// use…") and a superlative: such a text gets both.
pub(super) const SUPERLATIVES: &[&str] = &[
    "best",
    "ultimate",
    "greatest",
    "perfect",
    "finest",
    "fastest",
    "most powerful",
    "most advanced",
    "most accurate",
    "most reliable",
    "most comprehensive",
    "most complete",
    "always use this",
    "#1",
    "no. 1",
    "number one",
    "world's best",
    "world's most",
    "world's first",
    "world's leading",
    "world's largest",
    "world's fastest",
    "world's greatest",
    "world class",
    "the only",
    "one and only",
    "unbeatable",
    "unrivaled",
    "unrivalled",
    "unparalleled",
    "unmatched",
    "second to none",
    "best in class",
    "state of the art",
    "cutting edge",
    "revolutionary",
    "incredible",
    "amazing",
    "awesome",
    "flawless",
    "top rated",
    "top notch",
];

/// The app's built-in tools (the "Tools" tab of Desktop Companion), and the
/// usual names of agent tools in other hosts, which an AI may also know.
/// Names with `_` are matched as whole words (`_` counts as a letter, so
/// "my_web_search_results" passes), and also written with spaces in a
/// tool context ("the web search tool", see [`TOOL_WORD_AFTER`]). Keep it in step with the
/// app's tool registry when a built-in tool is added.
pub(super) const BUILTIN_TOOLS: &[&str] = &[
    "web_search",
    "web_fetch",
    "web_browse",
    "file_read",
    "file_write",
    "file_search",
    "file_edit",
    "file_delete",
    "read_file",
    "write_file",
    "edit_file",
    "delete_file",
    "list_files",
    "list_directory",
    "run_command",
    "run_shell",
    "execute_command",
    "shell_exec",
    "code_interpreter",
    "code_execution",
    "run_code",
    "run_python",
    "open_url",
    "open_app",
    "open_application",
    "launch_app",
    "take_screenshot",
    "screen_capture",
    "save_memory",
    "search_memory",
    "add_memory",
    "read_memory",
    "set_timer",
    "send_email",
    "computer_use",
];

/// Built-in tools whose name is an everyday word (the shell, the browser,
/// the memory…). As plain words they are ordinary English ("Reports the
/// memory usage of the PC"); they count as a tool mention only in a tool
/// context: see [`TOOL_WORD_BEFORE`] and [`TOOL_WORD_AFTER`].
pub(super) const BUILTIN_TOOL_WORDS: &[&str] = &[
    "shell",
    "bash",
    "terminal",
    "python",
    "browser",
    "screenshot",
    "memory",
    "remember",
    "recall",
    "clipboard",
    "exec",
    "calculator",
];

/// What before a tool word makes it a tool mention ("call memory",
/// "`python`").
pub(super) const TOOL_WORD_BEFORE: &[&str] = &["call ", "calls ", "calling ", "invoke ", "invoking ", "`"];

/// What after a tool word makes it a tool mention ("the browser tool",
/// "shell()"). Also read after a built-in tool name written with spaces
/// ("the web search tool").
pub(super) const TOOL_WORD_AFTER: &[&str] = &[" tool", " tools", " function", "(", "`"];

/// URL starts matched anywhere (after normalisation, so `ｈｔｔｐｓ：／／`
/// and `https:/\u{200B}/` are caught).
pub(super) const URL_STARTS: &[&str] = &["://", "www."];

/// Schemes written without `//`: a URL only when the colon is directly
/// followed by something ("JavaScript: the language" passes).
pub(super) const URL_SCHEMES: &[&str] =
    &["javascript:", "vbscript:", "data:", "mailto:", "file:", "about:", "blob:", "localhost:"];

/// Top-level domains common enough that a bare `name.tld` is read as an
/// address even without a path ("see example.com"). Any other alphabetic
/// TLD counts only with a path or a port ("example.fun/page"). File
/// extensions that are also country domains (.md, .py, .sh, .rs, .js is not
/// one) are left out on purpose.
pub(super) const COMMON_TLDS: &[&str] = &[
    "com", "net", "org", "io", "dev", "app", "ai", "co", "me", "info", "biz", "xyz", "gg", "ly", "link", "site",
    "online", "top", "ru", "cn", "de", "uk", "fr", "jp", "eu", "tk", "tv", "cc", "club", "shop", "store", "live",
    "pro", "blog", "cloud", "tech", "gov", "edu",
];
