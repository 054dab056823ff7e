#!/usr/bin/env bash
# Creates the Secret `deskgate-secrets` in both namespaces (nothing secret is committed):
#   REDIS_PASSWORD, REDIS_URL      a random password; the URL the services use (with it)
#   DESKGATE_FLEET_TOKEN           the autoscaler's bearer token for GET /v1/fleet/demand
#   DESKGATE_API_KEY, DESKGATE_OPERATOR_KEY   only with --pin-keys: the first keys, which the
#                                  bootstrap Job then uses instead of minting (and printing) its own
# An existing Secret is kept (a new Redis password would lock the services out of the data).
#
#   scripts/k8s/make-secrets.sh [--redis-host HOST] [--redis-url URL] [--pin-keys]
#   --redis-url: an external Redis (then drop the StatefulSet: docs/kubernetes.md)
# Uses kubectl from PATH or .deskgate/k8s/bin, and the current KUBECONFIG.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
kubectl=$(command -v "$K8S_BIN/kubectl" || command -v kubectl)
redis_host=redis.deskgate.svc.cluster.local; redis_url=""; pin=0
while [ $# -gt 0 ]; do
  case $1 in
    --redis-host) redis_host=$2; shift 2 ;;
    --redis-url) redis_url=$2; shift 2 ;;
    --pin-keys) pin=1; shift ;;
    *) echo "usage: $0 [--redis-host HOST] [--redis-url URL] [--pin-keys]" >&2; exit 2 ;;
  esac
done
if "$kubectl" -n deskgate get secret deskgate-secrets >/dev/null 2>&1; then
  say "deskgate-secrets exists in deskgate: kept (delete it in both namespaces to start over)"; exit 0
fi
random() { openssl rand -hex "$1"; }
password=$(random 24)
literals=(--from-literal=REDIS_PASSWORD="$password"
  --from-literal=REDIS_URL="${redis_url:-redis://:$password@$redis_host:6379}"
  --from-literal=DESKGATE_FLEET_TOKEN="$(random 24)")
if [ "$pin" = 1 ]; then
  literals+=(--from-literal=DESKGATE_API_KEY="dg_$(random 24)" --from-literal=DESKGATE_OPERATOR_KEY="dg_$(random 24)")
fi
for namespace in deskgate deskgate-workers; do
  "$kubectl" get namespace "$namespace" >/dev/null 2>&1 || "$kubectl" apply -f deploy/k8s/base/namespaces.yaml >/dev/null
  "$kubectl" -n "$namespace" create secret generic deskgate-secrets "${literals[@]}" >/dev/null
done
say "deskgate-secrets created in deskgate and deskgate-workers"
