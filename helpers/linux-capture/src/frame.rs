//! Length-prefixed framing on stdin/stdout.
//! Request:  u32 LE length N, N bytes JSON.
//! Response: u32 LE header length H, H bytes JSON, u32 LE payload length P, P bytes.

use std::io::{self, ErrorKind, Read, Write};

/// One read from the request stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    Frame(Vec<u8>),
    /// A frame longer than the limit; its body has been skipped so the stream stays in sync.
    TooLarge(u32),
    /// The worker closed stdin (possibly mid-frame): time to exit.
    Eof,
}

pub fn read_frame(r: &mut impl Read, max_len: usize) -> io::Result<Incoming> {
    let mut len = [0u8; 4];
    if !read_full(r, &mut len)? {
        return Ok(Incoming::Eof);
    }
    let len = u32::from_le_bytes(len);
    if len as usize > max_len {
        let skipped = io::copy(&mut r.take(len.into()), &mut io::sink())?;
        return Ok(if skipped < len.into() {
            Incoming::Eof
        } else {
            Incoming::TooLarge(len)
        });
    }
    let mut body = vec![0u8; len as usize];
    if !read_full(r, &mut body)? {
        return Ok(Incoming::Eof);
    }
    Ok(Incoming::Frame(body))
}

/// Like `read_exact`, but EOF (clean or mid-buffer) is `Ok(false)` rather than an error.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    match r.read_exact(buf) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

pub fn write_frame(w: &mut impl Write, header: &[u8], payload: &[u8]) -> io::Result<()> {
    let len = |n: usize| {
        u32::try_from(n)
            .map(u32::to_le_bytes)
            .map_err(|_| io::Error::new(ErrorKind::InvalidInput, "frame part exceeds 4 GiB"))
    };
    w.write_all(&len(header.len())?)?;
    w.write_all(header)?;
    w.write_all(&len(payload.len())?)?;
    w.write_all(payload)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut v = (body.len() as u32).to_le_bytes().to_vec();
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn reads_frames_in_order_then_eof() {
        let mut input = framed(b"{\"a\":1}");
        input.extend(framed(b"{}"));
        let mut r = &input[..];
        assert_eq!(
            read_frame(&mut r, 100).unwrap(),
            Incoming::Frame(b"{\"a\":1}".to_vec())
        );
        assert_eq!(
            read_frame(&mut r, 100).unwrap(),
            Incoming::Frame(b"{}".to_vec())
        );
        assert_eq!(read_frame(&mut r, 100).unwrap(), Incoming::Eof);
    }

    #[test]
    fn skips_oversized_frame_and_stays_in_sync() {
        let mut input = framed(&[b'x'; 50]);
        input.extend(framed(b"{}"));
        let mut r = &input[..];
        assert_eq!(read_frame(&mut r, 10).unwrap(), Incoming::TooLarge(50));
        assert_eq!(
            read_frame(&mut r, 10).unwrap(),
            Incoming::Frame(b"{}".to_vec())
        );
    }

    #[test]
    fn truncated_frames_are_eof() {
        assert_eq!(read_frame(&mut &[1u8, 0][..], 10).unwrap(), Incoming::Eof);
        assert_eq!(
            read_frame(&mut &[5u8, 0, 0, 0, b'{'][..], 10).unwrap(),
            Incoming::Eof
        );
        assert_eq!(
            read_frame(&mut &[50u8, 0, 0, 0, b'{'][..], 10).unwrap(),
            Incoming::Eof
        );
    }

    #[test]
    fn writes_header_and_payload_lengths() {
        let mut out = Vec::new();
        write_frame(&mut out, b"{}", b"abc").unwrap();
        assert_eq!(out, [2, 0, 0, 0, b'{', b'}', 3, 0, 0, 0, b'a', b'b', b'c']);
    }
}
