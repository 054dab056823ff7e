# Sourced by scripts/install.sh (and scripts/images.sh): a Docker engine, the Debian base
# image and deskgate's desktop image (docs/images.md, docs/containers.md), each made only when
# missing or out of date. Needs `say` and scripts/lib/debian-packages.sh; run from the repo root.
#
#   ensure_docker_engine   docker.io (+ debootstrap) installed, dockerd answering
#   ensure_base_image      debian:bookworm-slim in the engine (made locally: nothing is pulled)
#   ensure_desktop_image   deskgate/linux-desktop:dev built from the current inputs

DESKGATE_DESKTOP_IMAGE=${DESKGATE_DESKTOP_IMAGE:-deskgate/linux-desktop:dev}
DESKGATE_BASE_IMAGE=debian:bookworm-slim
DOCKERD_LOG=${DESKGATE_DOCKERD_LOG:-.deskgate/logs/dockerd.log}
CAPTURE_BIN=helpers/linux-capture/target/release/deskgate-capture

_docker_sudo() { if [ "$(id -u)" -ne 0 ]; then echo sudo; fi; }

ensure_docker_engine() {
  local sudo; sudo=$(_docker_sudo)
  if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null || ! command -v debootstrap >/dev/null; then
    ensure_debian_packages "the Docker engine" docker.io debootstrap || return 1
  fi
  $sudo docker info >/dev/null 2>&1 && return 0
  say "starting dockerd (log: $DOCKERD_LOG)"
  mkdir -p "$(dirname "$DOCKERD_LOG")"
  # Its own session, so a Ctrl-C of `npm start` does not take the engine (and its containers) down.
  $sudo setsid nohup dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
  local waited=0
  until $sudo docker info >/dev/null 2>&1; do
    if [ "$waited" -ge 300 ]; then
      say "dockerd did not answer within 30 s; the end of $DOCKERD_LOG:"
      tail -n 15 "$DOCKERD_LOG" >&2
      return 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  say "dockerd is up ($((waited / 10)).$((waited % 10)) s)"
}

# The mirror this machine's apt uses (deb822 sources first, then sources.list), for debootstrap.
_debian_mirror() {
  local uri
  uri=$(awk '/^URIs:/ {u=$2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  [ -z "$uri" ] && uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  echo "${uri:-http://deb.debian.org/debian}"
}

ensure_base_image() {
  local sudo; sudo=$(_docker_sudo)
  $sudo docker image inspect "$DESKGATE_BASE_IMAGE" >/dev/null 2>&1 && return 0
  local mirror started=$SECONDS rootfs
  mirror=$(_debian_mirror)
  rootfs=$($sudo mktemp -d /var/tmp/deskgate-rootfs.XXXXXX) || return 1
  say "making $DESKGATE_BASE_IMAGE locally (no registry here): debootstrap --variant=minbase bookworm from $mirror (~70 s)"
  # One line per debootstrap phase (retrieving, extracting, unpacking, configuring…), not per package.
  $sudo debootstrap --variant=minbase bookworm "$rootfs" "$mirror" 2>&1 | {
    local last="" verb line
    while IFS= read -r line; do
      case $line in
        I:*) verb=${line#I: }; verb=${verb%% *}
             [ "$verb" != "$last" ] && say "  debootstrap: ${line#I: }"; last=$verb ;;
        E:*|W:*) say "  debootstrap: $line" ;;
      esac
    done
  }
  local status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then
    say "debootstrap failed ($status); its log: $rootfs/debootstrap/debootstrap.log"
    return 1
  fi
  # apt inside the image uses this machine's sources (with bookworm-security when it has them)
  # and starts with no caches or lists, as the published slim image does.
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    $sudo cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
    $sudo rm -f "$rootfs/etc/apt/sources.list"
  fi
  $sudo rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* "$rootfs/debootstrap"
  say "  docker import"
  $sudo tar -C "$rootfs" -c . | $sudo docker import - "$DESKGATE_BASE_IMAGE" >/dev/null || { say "docker import failed"; return 1; }
  $sudo rm -rf "$rootfs"
  say "$DESKGATE_BASE_IMAGE is ready ($((SECONDS - started)) s)"
}

# How the capture helper gets into the image: the host's build when there is one, else from source.
desktop_image_capture_mode() { if [ -x "$CAPTURE_BIN" ]; then echo prebuilt; else echo source; fi; }

# A hash of everything the desktop image is built from: file names, exec bits and contents.
desktop_image_inputs() {
  local mode; mode=$(desktop_image_capture_mode)
  {
    echo "capture=$mode"
    find images/linux-desktop desktop runtime/deskgate_runtime .dockerignore -type f -not -path '*/__pycache__/*' -not -name '*.pyc'
    if [ "$mode" = prebuilt ]; then echo "$CAPTURE_BIN"; else find helpers/linux-capture/src helpers/linux-capture/Cargo.toml helpers/linux-capture/Cargo.lock -type f; fi
  } | LC_ALL=C sort | while IFS= read -r path; do
    case $path in
      capture=*) echo "$path" ;;
      *) printf '%s %s %s\n' "$path" "$( [ -x "$path" ] && echo x || echo -)" "$(sha256sum <"$path" | cut -c1-64)" ;;
    esac
  done | sha256sum | cut -c1-16
}

# build_desktop_image [docker build args…]: builds it, labelled with its inputs' hash, with progress.
build_desktop_image() {
  local sudo; sudo=$(_docker_sudo)
  local inputs mode started=$SECONDS
  inputs=$(desktop_image_inputs); mode=$(desktop_image_capture_mode)
  say "building $DESKGATE_DESKTOP_IMAGE (capture helper: $mode; a first build installs ~270 Debian packages, ~3-4 min)"
  # The legacy builder's "Step N/M : …" lines are the progress; the rest goes to the log.
  local log; log=$(mktemp)
  DOCKER_BUILDKIT=0 $sudo docker build -f images/linux-desktop/Dockerfile -t "$DESKGATE_DESKTOP_IMAGE" \
    --build-arg CAPTURE_HELPER="$mode" --label deskgate.inputs="$inputs" "$@" . 2>&1 | tee "$log" | {
    local line
    while IFS= read -r line; do
      case $line in
        Step*) line=${line%%&&*}; say "  ${line:0:110}" ;;
        "Setting up "*) ;;
      esac
    done
  }
  local status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ]; then
    say "docker build failed ($status); the end of its output:"; tail -n 25 "$log" >&2; rm -f "$log"; return 1
  fi
  rm -f "$log"
  local size; size=$($sudo docker image inspect -f '{{.Size}}' "$DESKGATE_DESKTOP_IMAGE")
  say "$DESKGATE_DESKTOP_IMAGE built in $((SECONDS - started)) s, $((size / 1000000)) MB (inputs $inputs)"
}

# Whether the engine's desktop image was built from exactly the current inputs.
desktop_image_current() {
  local sudo; sudo=$(_docker_sudo)
  local have
  have=$($sudo docker image inspect -f '{{index .Config.Labels "deskgate.inputs"}}' "$DESKGATE_DESKTOP_IMAGE" 2>/dev/null)
  [ -n "$have" ] && [ "$have" = "$(desktop_image_inputs)" ]
}

ensure_desktop_image() {
  desktop_image_current || build_desktop_image
}
