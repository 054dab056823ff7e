//! Command-line parsing (small enough not to need a parser crate).

use std::path::PathBuf;

use crate::encode_bench::Frame;

pub const USAGE: &str = "usage: deskgate-capture [--display :N] [--listen PATH]
       deskgate-capture bench [--display :N] [--iterations N]
       deskgate-capture encoders [--display :N | --photo WxH] [--iterations N]

Serves the framed capture protocol on stdin/stdout, or with --listen on a Unix socket
at PATH, one connection at a time (see docs/capture-helper.md); logs go to stderr. Environment: DESKGATE_CAPTURE_BACKEND=auto|shm|getimage; DESKGATE_CAPTURE_AUTO_MS_PER_MEGAPIXEL=N (the `auto` format's time budget, default 12).";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Serve {
        display: Option<String>,
        /// Serve a Unix socket at this path instead of stdin/stdout.
        listen: Option<PathBuf>,
    },
    Bench {
        display: Option<String>,
        iterations: usize,
    },
    /// Bytes and time of each output format on the screen or the synthetic photo.
    Encoders {
        display: Option<String>,
        frame: Frame,
        iterations: usize,
    },
    Help,
}

pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter().peekable();
    let sub = args.next_if(|a| a == "bench" || a == "encoders");
    let bench = sub.is_some();
    let encoders = sub.as_deref() == Some("encoders");
    let (mut display, mut iterations, mut frame) = (None, 50usize, Frame::Screen);
    let mut listen = None;
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--display" => display = Some(value("--display")?),
            "--listen" if !bench => {
                let v = value("--listen")?;
                if v.is_empty() {
                    return Err("--listen needs a socket path".into());
                }
                listen = Some(PathBuf::from(v));
            }
            "--iterations" if bench => {
                let v = value("--iterations")?;
                iterations =
                    v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("--iterations must be a positive integer, got {v:?}")
                    })?;
            }
            "--photo" if encoders => {
                let v = value("--photo")?;
                let size = v
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(u32, u32)| {
                        (1..=8192).contains(&w) && (1..=8192).contains(&h)
                    });
                let (width, height) =
                    size.ok_or_else(|| format!("--photo wants WIDTHxHEIGHT (1-8192), got {v:?}"))?;
                frame = Frame::Photo { width, height };
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    Ok(if encoders {
        Command::Encoders {
            display,
            frame,
            iterations,
        }
    } else if bench {
        Command::Bench {
            display,
            iterations,
        }
    } else {
        Command::Serve { display, listen }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_serve_and_bench() {
        assert_eq!(
            parse(&[]),
            Ok(Command::Serve {
                display: None,
                listen: None
            })
        );
        assert_eq!(
            parse(&["--display", ":7"]),
            Ok(Command::Serve {
                display: Some(":7".into()),
                listen: None
            })
        );
        assert_eq!(
            parse(&["--display", ":0", "--listen", "/run/deskgate/capture.sock"]),
            Ok(Command::Serve {
                display: Some(":0".into()),
                listen: Some("/run/deskgate/capture.sock".into())
            })
        );
        assert_eq!(
            parse(&["bench", "--iterations", "5", "--display", ":3"]),
            Ok(Command::Bench {
                display: Some(":3".into()),
                iterations: 5
            })
        );
        assert_eq!(
            parse(&["encoders", "--photo", "1280x800", "--iterations", "3"]),
            Ok(Command::Encoders {
                display: None,
                frame: Frame::Photo {
                    width: 1280,
                    height: 800
                },
                iterations: 3
            })
        );
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(parse(&["--display"]).is_err());
        assert!(parse(&["--iterations", "5"]).is_err());
        assert!(parse(&["bench", "--iterations", "0"]).is_err());
        assert!(parse(&["--frobnicate"]).is_err());
        assert!(parse(&["--photo", "10x10"]).is_err());
        assert!(parse(&["encoders", "--photo", "10"]).is_err());
        assert!(parse(&["encoders", "--photo", "0x10"]).is_err());
        assert!(parse(&["--listen"]).is_err());
        assert!(parse(&["--listen", ""]).is_err());
        assert!(parse(&["bench", "--listen", "/tmp/x.sock"]).is_err());
    }
}
