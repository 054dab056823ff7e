//! Thin entry point: parse arguments, then serve or bench. Stdout carries protocol
//! frames only; everything human-readable goes to stderr.

use std::io::{self, BufReader, BufWriter};
use std::path::Path;
use std::process::ExitCode;

use deskgate_capture::cli::{parse_args, Command, USAGE};
use deskgate_capture::inbox::Inbox;
use deskgate_capture::service::Service;
use deskgate_capture::x11::BackendChoice;
use deskgate_capture::{bench, encode_bench, listen, server};

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            eprintln!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::Serve {
            display,
            listen: None,
        }) => serve(display.as_deref()),
        Ok(Command::Serve {
            display,
            listen: Some(path),
        }) => serve_socket(display.as_deref(), &path),
        Ok(Command::Bench {
            display,
            iterations,
        }) => match bench::run(display.as_deref(), iterations) {
            Ok(line) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("deskgate-capture bench: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(Command::Encoders {
            display,
            frame,
            iterations,
        }) => match encode_bench::run(display.as_deref(), frame, iterations) {
            Ok(line) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("deskgate-capture encoders: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("deskgate-capture: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn serve(display: Option<&str>) -> ExitCode {
    let mut service = match Service::connect(display, BackendChoice::from_env()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("deskgate-capture: cannot start encoder: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Requests are read on a thread of their own (see inbox.rs) so a settle wait hears a cancel.
    let inbox = Inbox::spawn(BufReader::new(io::stdin()));
    let output = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    match server::serve(&mut service, inbox, output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("deskgate-capture: protocol pipe failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--listen PATH`: the same protocol on a Unix socket, one connection at a time (listen.rs).
fn serve_socket(display: Option<&str>, path: &Path) -> ExitCode {
    // Before Service::connect spawns the damage thread: every thread inherits the mask.
    if let Err(e) = listen::block_exit_signals() {
        eprintln!("deskgate-capture: cannot block exit signals: {e}");
        return ExitCode::FAILURE;
    }
    let mut service = match Service::connect(display, BackendChoice::from_env()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("deskgate-capture: cannot start encoder: {e}");
            return ExitCode::FAILURE;
        }
    };
    match listen::serve_socket(&mut service, path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("deskgate-capture: cannot serve {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}
