//! Request dispatch. Owns the X connection, the capture cascade, the kept slots and the
//! encoders for the life of the process; each op lives in its own file.

mod capture;
mod compare;
mod info;

use std::time::Instant;

use crate::contract::{Op, Rect, Reply};
use crate::convert::to_rgb;
use crate::mask::apply_masks;
use crate::encode::{EncodeError, Encoder};
use crate::error::ServiceError;
use crate::scale::Scaler;
use crate::slots::SlotStore;
use crate::x11::{BackendChoice, Cascade, Display};

/// The display and its capture backends, present once the connection is up.
pub struct Desktop {
    pub display: Display,
    pub cascade: Cascade,
}

impl Desktop {
    /// Grabs `region` as packed RGB with `masks` blacked out — the one way both capture and
    /// compare read pixels, so a kept frame and a live patch are always comparable. Returns
    /// the backend used, the grab time alone (ms), and the pixels.
    pub fn masked_rgb(
        &mut self,
        region: &Rect,
        masks: &[Rect],
    ) -> Result<(&'static str, f64, Vec<u8>), ServiceError> {
        let start = Instant::now();
        let (backend, frame) = self.cascade.capture(&self.display, region)?;
        let grab_ms = elapsed_ms(start);
        let mut rgb = Vec::new();
        to_rgb(
            frame.data,
            frame.stride,
            frame.width,
            frame.height,
            self.display.layout(),
            &mut rgb,
        );
        apply_masks(&mut rgb, region, masks);
        Ok((backend, grab_ms, rgb))
    }
}

/// Reusable per-process codecs.
pub struct Tools {
    pub encoder: Encoder,
    pub scaler: Scaler,
}

pub struct Service {
    desktop: Result<Desktop, String>,
    /// Set once the X connection has died; every later request reports it.
    lost: Option<String>,
    slots: SlotStore,
    tools: Tools,
}

/// A success: the reply header fields and the (possibly empty) payload.
pub type Outcome = (Reply, Vec<u8>);

impl Service {
    /// Connect to `display` (None = `$DISPLAY`). A failed connection does not stop the
    /// helper: requests are answered with `display_error` naming the cause.
    pub fn connect(display: Option<&str>, choice: BackendChoice) -> Result<Self, EncodeError> {
        let desktop = Display::connect(display)
            .map(|display| {
                let cascade = Cascade::new(&display, choice);
                Desktop { display, cascade }
            })
            .map_err(|e| {
                eprintln!("deskgate-capture: {e}");
                e.to_string()
            });
        let tools = Tools {
            encoder: Encoder::new()?,
            scaler: Scaler::default(),
        };
        Ok(Self {
            desktop,
            lost: None,
            slots: SlotStore::default(),
            tools,
        })
    }

    pub fn handle(&mut self, op: &Op) -> Result<Outcome, ServiceError> {
        if let Some(why) = &self.lost {
            return Err(ServiceError::Display(format!(
                "X connection lost earlier: {why}"
            )));
        }
        let desktop = self
            .desktop
            .as_mut()
            .map_err(|why| ServiceError::Display(why.clone()))?;
        let result = match op {
            Op::Ping => Ok((Reply::Pong {}, Vec::new())),
            Op::Info => info::run(desktop).map(|r| (Reply::Info(r), Vec::new())),
            Op::Capture(req) => capture::run(desktop, &mut self.slots, &mut self.tools, req),
            Op::Compare(req) => {
                compare::run(desktop, &mut self.slots, req).map(|r| (Reply::Compare(r), Vec::new()))
            }
        };
        if let Err(ServiceError::Display(why)) = &result {
            eprintln!("deskgate-capture: {why}; answering display_error from now on");
            self.lost = Some(why.clone());
        }
        result
    }
}

/// Milliseconds since `start`, to the microsecond.
pub(crate) fn elapsed_ms(start: Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 1e6).round() / 1e3
}
