# Sourced by scripts (install.sh, test.sh): Docker Compose v2, the `docker compose` CLI plugin
# that docker-compose.yml needs (docs/compose.md). Needs `say`; run from anywhere.
#
#   ensure_docker_compose   `docker compose version` answers, else Compose v2 is built from
#                           the Go module proxy into ~/.docker/cli-plugins/docker-compose
#
# Why build it: Debian bookworm packages only Compose v1 (docker-compose 1.29, Python), which
# rejects this file's top-level `name:` and lacks `--wait`; no v2 package exists for bookworm
# and no binary download is reachable here, but the Go module proxy is. `go install …@v2.x`
# fails on the module's exclude directives, so the module is downloaded, copied somewhere
# writable and built with `go build ./cmd` (~100 s idle, ~500 s on a busy 2-core machine).

DESKGATE_COMPOSE_VERSION=${DESKGATE_COMPOSE_VERSION:-v2.40.3}
DESKGATE_COMPOSE_PLUGIN=${DESKGATE_COMPOSE_PLUGIN:-$HOME/.docker/cli-plugins/docker-compose}

_compose_sudo() { if [ "$(id -u)" -ne 0 ]; then echo sudo; fi; }

# The go command: on PATH, or the usual /usr/local/go; Debian's golang-go (1.19) is too old
# for Compose v2.40 (it needs Go ≥ 1.24), so it is not installed from apt.
_compose_go() {
  local go
  for go in "$(command -v go 2>/dev/null)" /usr/local/go/bin/go; do
    [ -n "$go" ] && [ -x "$go" ] && { echo "$go"; return 0; }
  done
  return 1
}

ensure_docker_compose() {
  local sudo; sudo=$(_compose_sudo)
  local have
  if have=$($sudo docker compose version --short 2>/dev/null) && [ -n "$have" ]; then
    case $have in
      v1.*|1.*) say "docker compose is $have (Compose v1): deskgate needs v2; building $DESKGATE_COMPOSE_VERSION" ;;
      *) return 0 ;;
    esac
  else
    say "docker compose is missing (Debian ships only Compose v1): building Compose $DESKGATE_COMPOSE_VERSION from the Go module proxy into $DESKGATE_COMPOSE_PLUGIN (~100–500 s: 100 s on an idle 2-core machine, 494 s measured on a busy one)"
  fi
  local go
  go=$(_compose_go) || { say "no Go toolchain (go on PATH or /usr/local/go): install Go ≥ 1.24 to build Compose v2"; return 1; }
  local started=$SECONDS work dir log
  work=$(mktemp -d "${TMPDIR:-/tmp}/deskgate-compose.XXXXXX") || return 1
  log="$work/build.log"
  say "  go mod download github.com/docker/compose/v2@$DESKGATE_COMPOSE_VERSION"
  dir=$("$go" mod download -json "github.com/docker/compose/v2@$DESKGATE_COMPOSE_VERSION" 2>"$log" |
    python3 -c 'import json, sys; print(json.load(sys.stdin).get("Dir", ""))' 2>>"$log") || dir=""
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    say "go mod download failed; the end of its output:"; tail -n 15 "$log" >&2; rm -rf "$work"; return 1
  fi
  # The module cache is read-only, and plain `go install` refuses the module's excludes.
  say "  copying the module ($((SECONDS - started)) s so far) and compiling ./cmd (the long part)"
  cp -r "$dir" "$work/src" && chmod -R u+w "$work/src"
  mkdir -p "$(dirname "$DESKGATE_COMPOSE_PLUGIN")"
  if ! (cd "$work/src" && CGO_ENABLED=0 "$go" build -trimpath \
        -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$DESKGATE_COMPOSE_VERSION" \
        -o "$DESKGATE_COMPOSE_PLUGIN.tmp" ./cmd) >>"$log" 2>&1; then
    say "go build failed; the end of its output:"; tail -n 25 "$log" >&2; rm -rf "$work" "$DESKGATE_COMPOSE_PLUGIN.tmp"; return 1
  fi
  mv -f "$DESKGATE_COMPOSE_PLUGIN.tmp" "$DESKGATE_COMPOSE_PLUGIN"
  rm -rf "$work"
  if ! have=$($sudo docker compose version --short 2>&1); then
    say "built $DESKGATE_COMPOSE_PLUGIN, but \`docker compose version\` fails: $have"
    [ -n "$sudo" ] && say "(with sudo the plugin is looked up in root's ~/.docker/cli-plugins: copy it to /usr/local/lib/docker/cli-plugins)"
    return 1
  fi
  say "Compose $have built in $((SECONDS - started)) s ($DESKGATE_COMPOSE_PLUGIN)"
}
