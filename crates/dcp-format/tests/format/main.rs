//! The package reader's and validator's integration tests, in one binary:
//! each module covers one part of the spec through the crate's public API.
//! One binary links the engine once instead of six times, which keeps CI's
//! build folder small.

mod support {
    pub mod big_manifest;
}

mod big_manifest;
mod examples;
mod examples_schema;
mod package;
mod text;
mod validate;
