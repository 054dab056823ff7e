//! The helper's integration tests, as one test crate: each file below was a crate of its own,
//! and every crate is linked separately with the release profile's LTO — nine links cost a
//! cold `cargo test --release` more than half its time (docs/testing.md).

mod common;

mod bench;
mod capture;
mod compare;
mod encoders;
mod listen;
mod monitors;
mod protocol;
mod settle;
mod vectors;
