//! Where the AI of a turn runs (§13): on this PC or online. One type for
//! the companion's AI (decided by its URL, `dcp-ai`), a turn's AI (what the
//! courtier judges "kept on this PC" by, `dcp-call`), `dcplugin mcp --ai`
//! and the window; the lowest crate both need holds it.

crate::spelled! {
    /// Where the AI runs.
    pub enum Place {
        /// On this PC: a loopback URL, an AI app's model on this PC.
        Pc => "pc",
        /// An online service.
        Online => "online",
    }
}
