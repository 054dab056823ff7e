#!/usr/bin/env bash
# deskgate's images for Kubernetes, built from a commit (not the work tree): the service image
# (gateway, bootstrap), the worker image (the desktop image + the services) and Redis.
#
#   scripts/k8s/images.sh                     build deskgate/{service,worker,redis}:k8s-local from HEAD
#   scripts/k8s/images.sh --load              … and import them into the node's containerd (k8s.io
#                                             namespace; the `local` overlay uses them, never pulling)
#   scripts/k8s/images.sh --push REGISTRY TAG build, tag REGISTRY/deskgate/<name>:TAG and push
#   DESKGATE_K8S_REF=v1.2.3 scripts/k8s/images.sh …   another commit
#
# Needs the Docker engine and the locally made Debian base (made when missing, as
# scripts/install-containers.sh does). The capture helper is copied from the host's build
# (helpers/linux-capture/target/release) when present, else compiled in the image.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
source scripts/lib/debian-packages.sh
source scripts/lib/docker-engine.sh

ref=${DESKGATE_K8S_REF:-HEAD}; tag=k8s-local; load=0; registry=""
case ${1:-} in
  "") ;;
  --load) load=1 ;;
  --push) registry=${2:?"--push REGISTRY TAG"}; tag=${3:?"--push REGISTRY TAG"} ;;
  *) echo "usage: $0 [--load | --push REGISTRY TAG]" >&2; exit 2 ;;
esac

started=$SECONDS
ensure_docker_engine
ensure_base_image
context=$(mktemp -d /var/tmp/deskgate-k8s-context.XXXXXX)
trap 'rm -rf "$context"' EXIT
git archive "$ref" | tar -x -C "$context"
capture=source
if [ -x "$CAPTURE_BIN" ]; then
  mkdir -p "$context/$(dirname "$CAPTURE_BIN")"; cp "$CAPTURE_BIN" "$context/$CAPTURE_BIN"; capture=prebuilt
fi
say "building from $(git rev-parse --short "$ref") (capture helper: $capture)"
ca=${DESKGATE_BUILD_CA_CERTS-$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)}
build() { # name dockerfile args...
  local name=$1 file=$2 t=$SECONDS; shift 2
  docker build -q -f "$context/$file" -t "deskgate/$name:$tag" "$@" "$context" >/dev/null || { say "deskgate/$name did not build"; return 1; }
  say "deskgate/$name:$tag built ($((SECONDS - t)) s, $(docker image inspect -f '{{.Size}}' "deskgate/$name:$tag" | awk '{printf "%d MB", $1/1e6}'))"
}
build service images/service/Dockerfile --build-arg EXTRA_CA_CERTS="$ca"
build redis images/redis/Dockerfile
build linux-desktop images/linux-desktop/Dockerfile --build-arg CAPTURE_HELPER=$capture --build-arg EXTRA_CA_CERTS="$ca"
build worker images/worker/Dockerfile --build-arg SERVICE_IMAGE=deskgate/service:$tag --build-arg DESKTOP_IMAGE=deskgate/linux-desktop:$tag

if [ "$load" = 1 ]; then
  t=$SECONDS
  docker save deskgate/service:$tag deskgate/worker:$tag deskgate/redis:$tag | ctr --address /run/deskgate-containerd/containerd.sock -n k8s.io images import - >/dev/null
  say "loaded into containerd ($((SECONDS - t)) s)"
fi
if [ -n "$registry" ]; then
  for name in service worker redis; do
    docker tag "deskgate/$name:$tag" "$registry/deskgate/$name:$tag"
    docker push "$registry/deskgate/$name:$tag"
  done
fi
say "images ready ($((SECONDS - started)) s)"
