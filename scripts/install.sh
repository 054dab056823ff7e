#!/usr/bin/env bash
# Installs what deskgate needs on a Debian machine and builds its helpers. Idempotent and
# quiet when everything is already there, so `npm start` and `npm test` can call it each time.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[deskgate]\033[0m %s\n' "$*" >&2; }
# Local state (the private Redis's data, the services' logs, the bench's and tests' tools) is root's alone: the
# process provider's desktops run as other users on this host (scripts/lib/state-dir.ts).
mkdir -p .deskgate && chmod 700 .deskgate
source scripts/lib/debian-packages.sh

# Debian packages, in one list: the desktop (Xvfb, openbox, the tint2 panel, xauth for the X
# cookies), the apps every desktop offers (chromium, mousepad, pcmanfm, xterm; see
# docs/desktop.md), X tools, Redis, the Python input layer's libraries, and whatever the
# helpers list in their APT_PACKAGES files. xdotool: tests/e2e/displays-and-apps drives the
# desktop with it; iproute2: tests/e2e/browser-agent serves its page from a network namespace;
# imagemagick: the peers the tests and bench compare against (import, convert).
packages=(
  xvfb openbox tint2 xauth x11-utils x11-xserver-utils
  chromium mousepad pcmanfm xterm xclip
  redis-server python3-xlib python3-tk python3-pytest pkg-config xdotool iptables iproute2 imagemagick
)
for list in helpers/*/APT_PACKAGES runtime/APT_PACKAGES; do
  [ -f "$list" ] && while read -r pkg; do [ -n "$pkg" ] && packages+=("$pkg"); done < <(grep -v '^#' "$list")
done
ensure_debian_packages "Debian packages" "${packages[@]}"

# Desktop users: every desktop runs as one of these (a slot each), never as root, so two
# sessions' apps cannot signal, ptrace or read each other: deskgate-desktop-0 … -63 (the prefix
# is DESKGATE_DESKTOP_USER, the count DESKGATE_DESKTOP_USERS). No login shell, no home (each
# desktop gets a fresh private HOME), no sudo; a group of their own each, and the shared group
# the firewall rule below matches.
desktop_group=${DESKGATE_DESKTOP_USER:-deskgate-desktop}
ensure_desktop_users() {
  local count=$1 sudo="" i user missing=()
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  getent group "$desktop_group" >/dev/null || $sudo groupadd --system "$desktop_group"
  local known; known=$(getent passwd | cut -d: -f1)
  for ((i = 0; i < count; i++)); do
    grep -qx "$desktop_group-$i" <<<"$known" || missing+=("$desktop_group-$i")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "creating ${#missing[@]} desktop users ($desktop_group-N, no login shell)"
  for user in "${missing[@]}"; do
    $sudo useradd --system --user-group --groups "$desktop_group" --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin --comment "deskgate desktop" "$user"
  done
}
ensure_desktop_users "${DESKGATE_DESKTOP_USERS:-64}"

# Desktops may not reach this host's own services (Redis, the gateway, the worker's health
# port): code running on a desktop (an xterm, a script saved and run from the file manager)
# would otherwise talk to Redis directly. One rule sends the desktop users' traffic through a
# chain that rejects local destinations except DNS; the web stays open to the browser.
guard_local_services() {
  local sudo="" tool
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  for tool in iptables ip6tables; do
    command -v "$tool" >/dev/null || { say "$tool is missing: desktops can reach this host's services"; continue; }
    $sudo "$tool" -w -C OUTPUT -m owner --gid-owner "$desktop_group" --suppl-groups -j DESKGATE-DESKTOP 2>/dev/null && continue
    say "$tool: rejecting desktop users' connections to this host's own addresses"
    { $sudo "$tool" -w -N DESKGATE-DESKTOP 2>/dev/null || $sudo "$tool" -w -F DESKGATE-DESKTOP; } &&
      $sudo "$tool" -w -A DESKGATE-DESKTOP -p udp --dport 53 -j RETURN &&
      $sudo "$tool" -w -A DESKGATE-DESKTOP -p tcp --dport 53 -j RETURN &&
      $sudo "$tool" -w -A DESKGATE-DESKTOP -m addrtype --dst-type LOCAL -j REJECT &&
      $sudo "$tool" -w -I OUTPUT -m owner --gid-owner "$desktop_group" --suppl-groups -j DESKGATE-DESKTOP ||
      say "$tool failed (no NET_ADMIN here?): desktops can reach this host's services"
  done
}
guard_local_services

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
