#!/usr/bin/env bash
# Builds deskgate's container images (today: the desktop, images/linux-desktop; docs/images.md)
# with progress, then prints each image's size and build time. Makes the Docker engine and
# the Debian base image first when they are missing (scripts/lib/docker-engine.sh).
#
#   bash scripts/images.sh                # rebuild when an input changed (else says it is current)
#   bash scripts/images.sh --force        # rebuild (Docker's layer cache still applies)
#   bash scripts/images.sh --no-cache     # rebuild every layer (a cold build's time)
#   CAPTURE_HELPER=source bash scripts/images.sh --force   # build the capture helper in the image
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[deskgate images]\033[0m %s\n' "$*" >&2; }
source scripts/lib/debian-packages.sh
source scripts/lib/docker-engine.sh

force=0; args=()
for arg in "$@"; do
  case $arg in
    --force) force=1 ;;
    --no-cache) force=1; args+=(--no-cache) ;;
    *) say "unknown option $arg (--force, --no-cache)"; exit 2 ;;
  esac
done
if [ -n "${CAPTURE_HELPER:-}" ]; then
  desktop_image_capture_mode() { echo "$CAPTURE_HELPER"; }
  force=1
fi

ensure_docker_engine
ensure_base_image
if [ "$force" -eq 0 ] && desktop_image_current; then
  say "$DESKGATE_DESKTOP_IMAGE is up to date (inputs $(desktop_image_inputs)); --force rebuilds it"
else
  build_desktop_image "${args[@]}"
fi
docker image ls "$DESKGATE_DESKTOP_IMAGE" --format 'table {{.Repository}}:{{.Tag}}\t{{.ID}}\t{{.Size}}\t{{.CreatedSince}}' >&2
