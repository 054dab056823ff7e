#!/usr/bin/env bash
# Installs what deskgate needs on a Debian machine and builds its helpers. Idempotent and
# quiet when everything is already there, so `npm start` and `npm test` can call it each time.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[deskgate]\033[0m %s\n' "$*" >&2; }
source scripts/lib/debian-packages.sh

# Debian packages: the desktop (Xvfb, openbox), X tools, Redis, the Python input layer's
# libraries, and whatever the helpers list in their APT_PACKAGES files.
packages=(xvfb openbox x11-utils x11-xserver-utils xauth redis-server python3-xlib python3-tk python3-pytest xterm xclip pkg-config)
for list in helpers/*/APT_PACKAGES runtime/APT_PACKAGES; do
  [ -f "$list" ] && while read -r pkg; do [ -n "$pkg" ] && packages+=("$pkg"); done < <(grep -v '^#' "$list")
done
ensure_debian_packages "Debian packages" "${packages[@]}"

# npm workspaces.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The Rust capture helper (cargo rebuilds only what changed).
if ! command -v cargo >/dev/null; then
  say "cargo is missing: install Rust (https://rustup.rs) to build helpers/linux-capture"; exit 1
fi
if [ ! -x helpers/linux-capture/target/release/deskgate-capture ] || [ -n "$(find helpers/linux-capture/src helpers/linux-capture/Cargo.toml -newer helpers/linux-capture/target/release/deskgate-capture 2>/dev/null | head -1)" ]; then
  say "building the capture helper (cargo build --release)"
  cargo build --release --quiet --manifest-path helpers/linux-capture/Cargo.toml
fi
