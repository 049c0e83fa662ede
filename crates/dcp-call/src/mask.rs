//! Secrets replaced by `[secret]` in any answer or error that would contain
//! them (§11): dcp-vault's [`Masker`], the one masker of the engine (the
//! companion's AI key is masked by it too, in dcp-ai, below this crate:
//! issue 32), under the path dcp-call's modules and tests use.

pub use dcp_vault::mask::*;
