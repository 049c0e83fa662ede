//! STUB: being written.

/// A validated plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin;
