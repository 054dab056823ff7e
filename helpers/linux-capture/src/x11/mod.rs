//! Everything that talks to the X server. One connection per process (`Display`),
//! capture backends behind `Backend`, tried in order by `Cascade`.

mod backend;
mod cascade;
mod damage;
mod display;
mod error;
mod getimage;
mod monitors;
mod shm;

pub use backend::{Backend, RawFrame};
pub use cascade::{BackendChoice, Cascade, CascadeError};
pub use damage::{DamageSnapshot, DamageWatch};
pub use display::Display;
pub use error::X11Error;
pub use getimage::GetImageBackend;
pub use monitors::monitors;
pub use shm::ShmBackend;
