//! deskgate-capture: a long-lived per-desktop helper that captures the X11 screen
//! (MIT-SHM, falling back to GetImage), crops, masks, scales and encodes it, speaking a
//! framed JSON+payload protocol on stdin/stdout. See docs/capture-helper.md.

pub mod bench;
pub mod cli;
pub mod compare;
pub mod contract;
pub mod convert;
pub mod encode;
pub mod encode_bench;
pub mod error;
pub mod frame;
mod geometry;
pub mod inbox;
pub mod listen;
pub mod mask;
pub mod request;
pub mod scale;
pub mod server;
pub mod service;
pub mod settle;
pub mod slots;
mod synthetic;
pub mod x11;
