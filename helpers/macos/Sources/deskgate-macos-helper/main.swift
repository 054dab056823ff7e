// deskgate-macos-helper: one long-lived process serving the capture protocol and the input
// protocol of packages/helper-protocol on two Unix sockets (one connection at a time each,
// like `deskgate-capture --listen` and `deskgate_runtime --listen`), so the worker's
// bare-metal provider drives a Mac exactly as it drives a Linux console (docs/macos.md).
//
//   deskgate-macos-helper --capture-listen PATH --input-listen PATH
//   deskgate-macos-helper check-permissions      # exit 0 when Accessibility and Screen Recording are granted
//   deskgate-macos-helper request-permissions    # asks macOS to show both prompts (run once in the console session)
import DeskgateHelperCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Arguments {
    var command = "serve"
    var captureSocket: String?
    var inputSocket: String?
}

func usage(_ message: String) -> Never {
    var err = StandardError()
    print("deskgate-macos-helper: \(message)\nusage: deskgate-macos-helper --capture-listen PATH --input-listen PATH | check-permissions | request-permissions", to: &err)
    exit(2)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { fputs(string, stderr) }
}

func parseArguments(_ args: [String]) -> Arguments {
    var parsed = Arguments()
    var rest = args[...]
    while let arg = rest.popFirst() {
        switch arg {
        case "--capture-listen", "--input-listen":
            guard let path = rest.popFirst(), path.hasPrefix("/") else { usage("\(arg) needs an absolute path") }
            if arg == "--capture-listen" { parsed.captureSocket = path } else { parsed.inputSocket = path }
        case "check-permissions", "request-permissions": parsed.command = arg
        default: usage("unknown argument \(arg)")
        }
    }
    if parsed.command == "serve", parsed.captureSocket == nil || parsed.inputSocket == nil { usage("both --capture-listen and --input-listen are required") }
    return parsed
}

let arguments = parseArguments(Array(CommandLine.arguments.dropFirst()))

#if os(macOS)
MacHelper.run(arguments)
#else
var err = StandardError()
print("deskgate-macos-helper runs on macOS only (ScreenCaptureKit, CGEvent, NSWorkspace); on Linux use helpers/linux-capture and runtime/", to: &err)
exit(2)
#endif
