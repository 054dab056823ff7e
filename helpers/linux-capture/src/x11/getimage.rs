//! Plain core-protocol GetImage: works against any X server, including one in another
//! container without shared IPC, at the cost of copying every pixel through the socket.

use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};

use super::{Backend, Display, RawFrame, X11Error};
use crate::contract::Rect;

#[derive(Default)]
pub struct GetImageBackend {
    data: Vec<u8>,
    width: u32,
    height: u32,
    stride: usize,
}

impl Backend for GetImageBackend {
    fn name(&self) -> &'static str {
        "getimage"
    }

    fn grab(&mut self, display: &Display, rect: &Rect) -> Result<(), X11Error> {
        let reply = display
            .conn()
            .get_image(
                ImageFormat::Z_PIXMAP,
                display.root(),
                rect.x as i16,
                rect.y as i16,
                rect.width as u16,
                rect.height as u16,
                !0,
            )?
            .reply()
            .map_err(X11Error::reply("GetImage"))?;
        let stride = display.layout().stride(rect.width);
        if reply.data.len() < stride * rect.height as usize {
            return Err(X11Error::Unsupported(format!(
                "GetImage returned {} bytes for a {}x{} image (expected {})",
                reply.data.len(),
                rect.width,
                rect.height,
                stride * rect.height as usize
            )));
        }
        self.data = reply.data;
        (self.width, self.height, self.stride) = (rect.width, rect.height, stride);
        Ok(())
    }

    fn frame(&mut self) -> RawFrame<'_> {
        RawFrame {
            data: &mut self.data,
            stride: self.stride,
            width: self.width,
            height: self.height,
        }
    }
}
