#!/usr/bin/env bash
# Builds (once, cached under .deskgate/k8s) what the Kubernetes checks need:
#   scripts/k8s/build-tools.sh validate   kubeconform, the schemas, etcd, kube-apiserver, kubectl (~3.5 min cold on 2 cores)
#   scripts/k8s/build-tools.sh cluster    the above + controller-manager, scheduler, kubelet, kube-proxy (~1.5 min more)
# Safe to run beside other suites; a second run only checks that the binaries are there.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
mkdir -p "$K8S_BIN"
started=$SECONDS
ensure_kubeconform
ensure_schemas
ensure_etcd
ensure_keda_crds
case ${1:-validate} in
  validate) ensure_kubernetes "${VALIDATE_TOOLS[@]}" ;;
  cluster) ensure_kubernetes "${CLUSTER_TOOLS[@]}" ;;
  *) echo "usage: $0 [validate|cluster]" >&2; exit 2 ;;
esac
say "tools ready in $K8S_BIN ($((SECONDS - started)) s)"
