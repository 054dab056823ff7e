//! `info`: screen size, depth, active backend and monitor layout.

use super::Desktop;
use crate::contract::InfoReply;
use crate::error::ServiceError;
use crate::x11::monitors;

pub fn run(desktop: &Desktop) -> Result<InfoReply, ServiceError> {
    let screen = desktop.display.root_rect()?;
    Ok(InfoReply {
        width: screen.width,
        height: screen.height,
        depth: desktop.display.depth(),
        backend: desktop.cascade.active(),
        monitors: monitors(&desktop.display, &screen)?,
    })
}
