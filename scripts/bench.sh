#!/usr/bin/env bash
# `npm run bench`: installs what is missing (deskgate's own dependencies, then the peer tools
# the bench compares against), then runs the harness. The table goes to stdout, progress to
# stderr; JSON, text and an SVG chart land in bench-results/ (gitignored).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh

say() { printf '\033[1m[deskgate bench]\033[0m %s\n' "$*" >&2; }
source scripts/lib/debian-packages.sh

# Peers: xdotool (clicks), scrot (screenshots), ImageMagick (convert -resize).
ensure_debian_packages "peer tools" xdotool scrot imagemagick

# The peer measured side by side over MCP (bench/peer-cua.ts): trycua's cua-computer-server,
# pinned, in a venv under .deskgate/ (gitignored). It needs Python 3.12 or 3.13 (CUA_PYTHON,
# else python3.12/python3.13 on PATH, else pyenv's). Without one the bench says why and skips
# the side-by-side rows; BENCH_SKIP_PEER_INSTALL=1 skips this step.
CUA_SPEC=(cua-computer-server==0.3.46 fastapi==0.144.0)
CUA_VENV=.deskgate/peers/cua-venv
install_cua_peer() {
  local stamp="$CUA_VENV/.installed" python=""
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${CUA_SPEC[*]}" ] && return 0
  for candidate in "${CUA_PYTHON:-}" python3.12 python3.13 "$HOME"/.pyenv/versions/3.12*/bin/python3.12 "$HOME"/.pyenv/versions/3.13*/bin/python3.13; do
    [ -n "$candidate" ] && command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(not ((3, 12) <= sys.version_info[:2] < (3, 14)))' 2>/dev/null && { python=$candidate; break; }
  done
  if [ -z "$python" ]; then
    say "no Python 3.12/3.13 found: the cua-computer-server side-by-side rows will be skipped (set CUA_PYTHON)"
    return 0
  fi
  say "installing the peer ${CUA_SPEC[*]} into $CUA_VENV ($python)"
  rm -rf "$CUA_VENV"
  mkdir -p "$(dirname "$CUA_VENV")"
  if "$python" -m venv "$CUA_VENV" && "$CUA_VENV/bin/pip" install --quiet "${CUA_SPEC[@]}"; then
    echo "${CUA_SPEC[*]}" > "$stamp"
  else
    say "installing cua-computer-server failed: its side-by-side rows will say so"
  fi
}
[ -n "${BENCH_SKIP_PEER_INSTALL:-}" ] || install_cua_peer

say "running the harness (BENCH_SCALE=0.3 for a quicker run: ~6 minutes on 2 cores; the full one samples more)"
exec node --import tsx bench/main.ts "$@"
