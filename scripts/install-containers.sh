#!/usr/bin/env bash
# What container desktops (DESKGATE_DESKTOP_PROVIDER=container) and `docker compose up` need
# on a Debian machine, each made only when missing or out of date: the Docker engine (started
# when it is not running), the locally made Debian base image (nothing can be pulled), the
# desktop image, Compose v2 and the stack's service images (docs/images.md, docs/compose.md).
# Needs what scripts/install.sh makes (the capture helper's build is copied into the image).
#
# `npm test` runs it in the background while the host suites run; on a fresh machine it takes
# minutes (the images' Debian packages, Compose's Go build).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[deskgate containers]\033[0m %s\n' "$*" >&2; }
source scripts/lib/debian-packages.sh
source scripts/lib/docker-engine.sh
source scripts/lib/docker-compose.sh

started=$SECONDS
ensure_docker_engine
ensure_base_image
ensure_desktop_image
ensure_docker_compose
say "ready in $((SECONDS - started)) s"
