// The shapes the host sends: the types generated from the Rust DTOs
// (ui/src/bindings, by scripts/gen-bindings), re-exported for the UI.
export type * from './bindings';
