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

# Each line says how far in it is: the test run keeps this log, and a slow step shows itself.
say() { printf '\033[1m[deskgate containers +%ss]\033[0m %s\n' "$SECONDS" "$*" >&2; }
source scripts/lib/debian-packages.sh
source scripts/lib/docker-engine.sh
source scripts/lib/docker-compose.sh

started=$SECONDS
ensure_docker_engine
ensure_base_image
ensure_desktop_image
ensure_docker_compose

# The stack's own images (docker-compose.yml: the service image of the gateway and worker, and
# Redis), so `docker compose up` starts at once; Docker's layer cache makes this quick when
# nothing changed. A TLS-intercepting proxy's CA, if this host trusts one, goes to the build
# stages only (docs/compose.md).
say "building the compose stack's images (service, redis)"
export COMPOSE_BAKE=false DESKGATE_CAPTURE_HELPER=prebuilt
if [ -z "${DESKGATE_BUILD_CA_CERTS+set}" ]; then
  DESKGATE_BUILD_CA_CERTS=$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)
  export DESKGATE_BUILD_CA_CERTS
fi
build_log=$(mktemp)
if ! docker compose -p deskgate build --progress plain worker redis >"$build_log" 2>&1; then
  tail -40 "$build_log" >&2; rm -f "$build_log"
  say "the compose images did not build"; exit 1
fi
rm -f "$build_log"
say "ready in $((SECONDS - started)) s"
