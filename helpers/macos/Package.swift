// swift-tools-version:5.9
// deskgate's macOS helper: one long-lived process that speaks the capture helper's framed
// protocol and the input runtime's JSON lines (packages/helper-protocol) on two Unix sockets.
// DeskgateHelperCore is platform-independent (protocols, geometry, keys, app classification)
// and is built and tested on Linux too; the executable's platform code is macOS-only.
import PackageDescription

let package = Package(
    name: "deskgate-macos",
    platforms: [.macOS(.v14)],  // SCScreenshotManager
    products: [
        .executable(name: "deskgate-macos-helper", targets: ["deskgate-macos-helper"]),
        .library(name: "DeskgateHelperCore", targets: ["DeskgateHelperCore"]),
    ],
    targets: [
        .target(name: "DeskgateHelperCore"),
        .executableTarget(name: "deskgate-macos-helper", dependencies: ["DeskgateHelperCore"]),
        .testTarget(name: "DeskgateHelperCoreTests", dependencies: ["DeskgateHelperCore"]),
    ]
)
