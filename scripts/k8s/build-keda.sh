#!/usr/bin/env bash
# Builds keda-operator and keda-adapter (KEDA v2.21.0) into .deskgate/k8s/bin, once.
# 10–30 min cold on a busy 2-core machine (1842 s measured beside other builds); a second run only checks that they are there.
# Used by the cluster test (scripts/k8s/cluster-test.sh), never by `npm test`'s validate path.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
mkdir -p "$K8S_BIN"
started=$SECONDS
ensure_keda
say "KEDA $KEDA_VERSION ready in $K8S_BIN ($((SECONDS - started)) s)"
