#!/bin/bash
# Builds deskgate-macos-helper on a Mac, signs it with a Developer ID and the hardened runtime,
# and (with DESKGATE_NOTARY_PROFILE) notarizes it. Runs on macOS only (Xcode 15+ / Swift 5.9+).
#
#   DESKGATE_SIGN_IDENTITY="Developer ID Application: Example Corp (TEAMID1234)" \
#   DESKGATE_NOTARY_PROFILE=deskgate-notary \
#   scripts/macos/build-and-sign.sh [OUT_DIR]
#
# Nothing secret lives in the repository: the identity is a certificate in the operator's login
# keychain, and the notary credentials a keychain profile made once with
#   xcrun notarytool store-credentials deskgate-notary --apple-id … --team-id … --password <app-specific password>
# The output is OUT_DIR/deskgate-macos-helper (default: helpers/macos/.build/signed) and a .zip
# of it that was sent to the notary service. docs/macos.md has the whole install.
set -euo pipefail

[ "$(uname -s)" = Darwin ] || { echo "build-and-sign.sh runs on macOS only (codesign, notarytool)"; exit 2; }
: "${DESKGATE_SIGN_IDENTITY:?set DESKGATE_SIGN_IDENTITY to a Developer ID Application identity (security find-identity -v -p codesigning)}"

here=$(cd "$(dirname "$0")/../.." && pwd)
pkg="$here/helpers/macos"
out="${1:-$pkg/.build/signed}"
mkdir -p "$out"

# The Info.plist goes into the binary (__TEXT,__info_plist): the TCC grants then follow the
# stable bundle id and Team ID, not the path or a hash of one build.
swift build --package-path "$pkg" -c release \
  -Xlinker -sectcreate -Xlinker __TEXT -Xlinker __info_plist -Xlinker "$here/deploy/macos/Info.plist"
swift test --package-path "$pkg"

bin="$out/deskgate-macos-helper"
cp "$pkg/.build/release/deskgate-macos-helper" "$bin"

codesign --force --timestamp --options runtime \
  --identifier dev.deskgate.helper \
  --entitlements "$here/deploy/macos/helper.entitlements" \
  --sign "$DESKGATE_SIGN_IDENTITY" "$bin"
codesign --verify --strict --verbose=2 "$bin"
codesign --display --verbose=2 "$bin" 2>&1 | grep -E '^(Identifier|TeamIdentifier|Runtime Version|Authority)=' || true

if [ -n "${DESKGATE_NOTARY_PROFILE:-}" ]; then
  # A bare Mach-O cannot be stapled; Gatekeeper finds the notarization ticket online.
  (cd "$out" && rm -f deskgate-macos-helper.zip && ditto -c -k --keepParent deskgate-macos-helper deskgate-macos-helper.zip)
  xcrun notarytool submit "$out/deskgate-macos-helper.zip" --keychain-profile "$DESKGATE_NOTARY_PROFILE" --wait
  spctl --assess --type execute --verbose "$bin" || echo "spctl: see docs/macos.md (a command-line tool is assessed when run from a quarantined download)"
else
  echo "DESKGATE_NOTARY_PROFILE not set: signed, not notarized (fine for a machine you install by hand; see docs/macos.md)"
fi
echo "signed: $bin"
