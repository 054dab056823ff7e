#!/bin/bash
# The Swift toolchain on a Debian 12 build machine, and the macOS helper's platform-independent
# tests with it. Debian 12 (bookworm, and bookworm-backports) has no Swift; Debian 13 (trixie)
# packages swiftlang 6.0.3. So a minimal trixie root is made once with debootstrap from the
# machine's own Debian mirror, swiftlang installed in it, and `swift build` / `swift test` run
# inside it (chroot, root only) on a copy of helpers/macos and the shared vectors.
#
#   scripts/macos/swift-on-linux.sh install   # once: ~3 GB under $DESKGATE_SWIFT_ROOT, a few minutes cold
#   scripts/macos/swift-on-linux.sh test      # swift test (XCTest) of helpers/macos: the vectors, geometry, keys, classification
#   scripts/macos/swift-on-linux.sh build     # swift build: the library, and the executable's macOS code parsed (not type-checked)
set -euo pipefail

root=${DESKGATE_SWIFT_ROOT:-/var/cache/deskgate/swift-trixie}
here=$(cd "$(dirname "$0")/../.." && pwd)
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

[ "$(id -u)" = 0 ] || { echo "swift-on-linux.sh needs root (debootstrap, chroot)"; exit 2; }
say() { printf '\033[1m[deskgate swift]\033[0m %s\n' "$*" >&2; }
. "$here/scripts/lib/debian-packages.sh"

install() {
  if [ -x "$root/usr/libexec/swift/bin/swift-build" ] && [ -e "$root/usr/lib/x86_64-linux-gnu/crti.o" ]; then echo "swift: $root is ready"; return; fi
  ensure_debian_packages "debootstrap (for the Swift root)" debootstrap
  [ -e "$root/etc/debian_version" ] || debootstrap --variant=minbase trixie "$root" "$mirror"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  chroot "$root" apt-get update
  # swiftlang without its recommends, plus what its linker needs (crt files, libstdc++).
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends swiftlang libc6-dev libstdc++-14-dev libgcc-14-dev
  chroot "$root" apt-get clean
}

run() {
  [ -x "$root/usr/libexec/swift/bin/swift-build" ] || { echo "no toolchain in $root: run '$0 install' first"; exit 2; }
  rm -rf "$root/src" && mkdir -p "$root/src/helpers/macos" "$root/src/packages/helper-protocol"
  (cd "$here/helpers/macos" && tar -c --exclude=.build .) | tar -x -C "$root/src/helpers/macos"
  cp -r "$here/packages/helper-protocol/vectors" "$root/src/packages/helper-protocol/vectors"
  # Swift reads /proc (its own path, the CPU count): bound for the run, unmounted after.
  mountpoint -q "$root/proc" || { mount --bind /proc "$root/proc"; trap 'umount "$root/proc"' EXIT; }
  chroot "$root" env LD_LIBRARY_PATH=/usr/libexec/swift/lib/swift/linux HOME=/root sh -c "cd /src/helpers/macos && swift $1"
}

case "${1:-test}" in
  install) install ;;
  test) run test ;;
  build) run build ;;
  *) echo "usage: $0 install|test|build"; exit 2 ;;
esac
