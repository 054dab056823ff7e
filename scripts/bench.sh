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

say "running the harness (about 2–3 minutes; BENCH_SCALE=0.3 for a quick run)"
exec node --import tsx bench/main.ts "$@"
