//! Tool calls (§3 "A tool call"): the AI's arguments (§7), the request
//! built from templates (§8, §11) and the answer the AI reads (§9); the
//! courtier and the pipeline that joins them to the store and the network
//! filter.

#![deny(missing_docs)]

pub mod answer;
pub mod arguments;
pub mod ask;
pub mod build;
pub mod busy;
pub mod courtier;
pub mod mask;
pub mod offer;
pub mod pipeline;
mod prepare;
pub mod rank;
pub mod turn;
mod verdict;
