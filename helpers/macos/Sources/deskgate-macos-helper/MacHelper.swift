#if os(macOS)
import DeskgateHelperCore
import Darwin
import Foundation

/// The process: checks the two TCC permissions (clear errors naming the missing one), then
/// serves each protocol on its own socket and thread, one connection at a time, until SIGTERM.
enum MacHelper {
    static func run(_ arguments: Arguments) -> Never {
        switch arguments.command {
        case "check-permissions":
            let missing = Permissions.missing()
            if missing.isEmpty { print("Accessibility and Screen Recording are granted"); exit(0) }
            for permission in missing { fputs("\(permission.advice)\n", stderr) }
            exit(1)
        case "request-permissions":
            Permissions.request()
            print("macOS was asked to show the Accessibility and Screen Recording prompts; grant both, then restart the helper")
            exit(0)
        default:
            break
        }
        let missing = Permissions.missing()
        for permission in missing { fputs("deskgate-macos-helper: \(permission.advice)\n", stderr) }
        signal(SIGPIPE, SIG_IGN)
        let capture = MacCapture()
        let input = MacInput(capture: capture)
        let servers = [
            SocketServer(path: arguments.captureSocket!) { CaptureSession(backend: capture) },
            SocketServer(path: arguments.inputSocket!) { InputSession(backend: input) },
        ]
        for server in servers {
            do { try server.bind() } catch {
                fputs("deskgate-macos-helper: \(error)\n", stderr)
                exit(1)
            }
        }
        for server in servers { Thread.detachNewThread { server.serve() } }
        // SIGTERM / SIGINT: remove the sockets and exit at once, whatever a request is doing.
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler {
                for server in servers { server.unlink() }
                exit(0)
            }
            source.resume()
            retained.append(source)
        }
        dispatchMain()
    }

    static var retained: [DispatchSourceSignal] = []
}

/// A session's serve loop over bytes: CaptureSession or InputSession.
protocol ByteSession: AnyObject {
    func receive(_ chunk: [UInt8]) -> [UInt8]
}
extension CaptureSession: ByteSession {}
extension InputSession: ByteSession {}

/// A Unix stream socket served one connection at a time, as the Linux helpers' `--listen`:
/// a stale socket is replaced (any other file is refused), the socket is mode 0660, and each
/// connection gets a fresh session (half a frame of a closed connection is forgotten).
final class SocketServer {
    let path: String
    let makeSession: () -> ByteSession
    private var fd: Int32 = -1

    init(path: String, makeSession: @escaping () -> ByteSession) {
        self.path = path
        self.makeSession = makeSession
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    func bind() throws {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw Failure(description: "\(path) exists and is not a socket; refusing to replace it") }
            Darwin.unlink(path)
        }
        fd = socket(AF_UNIX, SOCK_STREAM, 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let old = umask(0o177)
        defer { umask(old) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Darwin.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0 else { throw Failure(description: "bind \(path): \(String(cString: strerror(errno)))") }
        chmod(path, 0o660)
        guard listen(fd, 8) == 0 else { throw Failure(description: "listen \(path): \(String(cString: strerror(errno)))") }
    }

    func serve() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 { continue }
            let session = makeSession()
            while true {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                let out = session.receive(Array(buffer[0..<n]))
                if !writeAll(client, out) { break }
            }
            close(client)
        }
    }

    private func writeAll(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    func unlink() { Darwin.unlink(path) }
}
#endif
