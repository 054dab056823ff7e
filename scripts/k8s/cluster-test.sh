#!/usr/bin/env bash
# The cluster test (`npm run test:k8s`; docs/kubernetes.md): a one-node Kubernetes cluster on
# this machine (scripts/k8s/cluster-up.sh) with KEDA (scripts/k8s/keda-up.sh) and metrics-server
# (scripts/k8s/metrics-server-up.sh) on it, deskgate's images built from HEAD and loaded into it,
# the `local` overlay deployed and driven end to end with KEDA scaling the workers, the
# gateway's HPA scaling on CPU and a node drain held by the PodDisruptionBudgets
# (tests/k8s/cluster.test.ts), then the cluster stopped and the
# host put back (scripts/k8s/cluster-down.sh), pass or fail.
# Cold on a 2-core machine: ~5 min of Kubernetes builds, ~10 min of KEDA's and ~6 min of
# metrics-server's (cached in .deskgate/k8s), ~2 min of images, ~15 s for the node, then the
# test; 408 s in all with everything cached.
# Needs root (containerd, the kubelet, iptables).
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
[ "$(id -u)" -eq 0 ] || { echo "the cluster test needs root (containerd, kubelet, iptables)" >&2; exit 1; }
started=$SECONDS
trap 'scripts/k8s/cluster-down.sh; say "cluster test: $((SECONDS - started)) s in all"' EXIT
scripts/k8s/build-keda.sh || exit 1
scripts/k8s/cluster-up.sh || exit 1
scripts/k8s/keda-up.sh || exit 1
scripts/k8s/metrics-server-up.sh || exit 1
# NetworkPolicies enforced where the kernel allows it (docs/kubernetes.md); exit 3: it does not.
scripts/k8s/netpol-up.sh; netpol=$?
case $netpol in
  0) export DESKGATE_K8S_NETPOL=enforced ;;
  3) say "NetworkPolicies are not enforced on this node (above): their test is skipped" ;;
  *) exit 1 ;;
esac
scripts/k8s/images.sh --load || exit 1
KUBECONFIG=$K8S_HOME/cluster/admin.kubeconfig DESKGATE_K8S_BIN=$K8S_BIN \
  node --import tsx --test --test-reporter=tap --test-concurrency=1 tests/k8s/cluster.test.ts
