#if os(macOS)
import AppKit
import DeskgateHelperCore
import Foundation

/// Apps: `desktop_entries` describes each app bundle in /Applications and /System/Applications
/// as a .desktop entry (file id = bundle id, StartupWMClass = name, Exec = bundle id), which the
/// worker's open_application reads; `launch` with a bundle id opens it through NSWorkspace.
enum Launcher {
    static let folders = ["/Applications", "/System/Applications", "/System/Applications/Utilities", "/Applications/Utilities"]

    static func entries(user: Bool) -> JSON {
        var files: [JSON] = []
        var total = 0, truncated = false
        // ~/Applications is the console user's to write: listed only when asked (the worker never asks).
        let dirs = folders + (user ? [NSHomeDirectory() + "/Applications"] : [])
        for dir in dirs {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            for name in names.sorted() where name.hasSuffix(".app") {
                let path = "\(dir)/\(name)"
                guard let bundle = Bundle(path: path), let id = bundle.bundleIdentifier, isReverseDNS(id) else { continue }
                let display = (bundle.object(forInfoDictionaryKey: "CFBundleDisplayName") as? String) ?? (bundle.object(forInfoDictionaryKey: "CFBundleName") as? String) ?? String(name.dropLast(4))
                let text = "[Desktop Entry]\nType=Application\nName=\(display)\nExec=\(id)\nStartupWMClass=\(display)\n"
                if files.count >= InputLimits.maxDesktopFiles || total + text.utf8.count > InputLimits.maxDesktopTotalBytes { truncated = true; break }
                total += text.utf8.count
                files.append(.object([("path", .string("\(path)/\(id).desktop")), ("text", .string(text))]))
            }
        }
        return .object([("files", .array(files)), ("truncated", .bool(truncated))])
    }

    static func isReverseDNS(_ s: String) -> Bool {
        s.contains(".") && !s.contains("/") && !s.hasPrefix("-") && s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }
    }

    /// argv[0] a bundle id: the app, opened by NSWorkspace (an app already running is brought forward); an absolute path: that program.
    static func launch(argv: [String], env: [(String, String)], cwd: String?) throws -> JSON {
        let target = argv[0]
        if isReverseDNS(target) {
            guard let url = NSWorkspace.shared.urlForApplication(withBundleIdentifier: target) else {
                throw HelperFailure("not_found", "launch: cannot start \(target): no app with that bundle id is installed")
            }
            let configuration = NSWorkspace.OpenConfiguration()
            configuration.arguments = Array(argv.dropFirst())
            configuration.environment = Dictionary(env, uniquingKeysWith: { _, b in b })
            configuration.activates = true
            let app: NSRunningApplication = try blocking("launch_failed", "launch: cannot start \(target)") { try await NSWorkspace.shared.openApplication(at: url, configuration: configuration) }
            return .object([("pid", .int(Int64(app.processIdentifier)))])
        }
        guard target.hasPrefix("/") else { throw HelperFailure("not_found", "launch: cannot start \(target): give a bundle id or an absolute path") }
        guard FileManager.default.isExecutableFile(atPath: target) else { throw HelperFailure("not_found", "launch: cannot start \(target): no such executable") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: target)
        process.arguments = Array(argv.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(env, uniquingKeysWith: { _, b in b })
        if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        do { try process.run() } catch {
            let code = (error as NSError).code
            if code == Int(EAGAIN) { throw HelperFailure("quota_exceeded", "launch: cannot start \(target): the process limit is reached; close an app before starting another") }
            throw HelperFailure("launch_failed", "launch: cannot start \(target): \(error.localizedDescription)")
        }
        return .object([("pid", .int(Int64(process.processIdentifier)))])
    }
}
#endif
