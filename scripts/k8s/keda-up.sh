#!/usr/bin/env bash
# KEDA v2.21.0 on the one-node cluster of scripts/k8s/cluster-up.sh, for the cluster test, as
# pods: keda-operator and keda-adapter (the external-metrics API server) in the namespace
# `keda` (Pod Security restricted), each with its own ServiceAccount and least-privilege RBAC
# (scripts/k8s/keda/keda.yaml says how it differs from upstream's), from an image made here of
# the binaries scripts/k8s/build-keda.sh builds (FROM scratch, loaded into the node's
# containerd; nothing is pulled), with KEDA's CRDs and the APIService
# v1beta1.external.metrics.k8s.io, whose caBundle the operator keeps (the API server checks
# the adapter's certificate). Stopped with the cluster (scripts/k8s/cluster-down.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
source scripts/lib/debian-packages.sh
source scripts/lib/docker-engine.sh
use_cluster
started=$SECONDS
IMAGE=deskgate-local/keda:$KEDA_VERSION

kubectl -n keda get deployment keda-operator >/dev/null 2>&1 && { say "KEDA already runs"; exit 0; }
scripts/k8s/build-keda.sh

# The image: the two static binaries and nothing else (uid 1000 is set by the pods).
ensure_docker_engine
context=$K8S_HOME/src/keda-image
mkdir -p "$context"
cp -f "$K8S_BIN/keda-operator" "$context/keda"
cp -f "$K8S_BIN/keda-adapter" "$context/keda-adapter"
printf 'FROM scratch\nCOPY keda /keda\nCOPY keda-adapter /keda-adapter\nUSER 1000:1000\nENTRYPOINT ["/keda"]\n' > "$context/Dockerfile"
docker build -q -t "$IMAGE" "$context" >/dev/null
docker save "$IMAGE" | ctr --address /run/deskgate-containerd/containerd.sock -n k8s.io images import - >/dev/null
say "image $IMAGE loaded into the node ($((SECONDS - started)) s)"

kubectl apply --server-side -f "$K8S_HOME/src/keda/config/crd/bases/" >/dev/null
# (Just created, a CRD has no conditions yet, and kubectl wait fails on that rather than waiting.)
for _ in $(seq 120); do
  kubectl wait --for condition=established --timeout=30s crd/scaledobjects.keda.sh crd/triggerauthentications.keda.sh >/dev/null 2>&1 && break
  sleep 0.5
done
# KEDA's Roles live in the namespace it scales.
kubectl apply -f deploy/k8s/base/namespaces.yaml >/dev/null
kubectl apply -f scripts/k8s/keda/keda.yaml >/dev/null

# First start: the operator makes its CA and certificate into the Secret keda/kedaorg-certs,
# which its pod mounts (optional) and the adapter's needs. The kubelet would refresh the mount
# within a minute or so; a new operator pod mounts it at once.
for _ in $(seq 240); do kubectl -n keda get secret kedaorg-certs >/dev/null 2>&1 && break; sleep 0.5; done
kubectl -n keda get secret kedaorg-certs >/dev/null || { kubectl -n keda logs deploy/keda-operator --tail=20 >&2; say "keda-operator made no certificate"; exit 1; }
kubectl -n keda delete pod -l app=keda-operator --wait=false >/dev/null
kubectl -n keda rollout status deployment/keda-operator --timeout=180s >/dev/null
kubectl -n keda rollout status deployment/keda-metrics-apiserver --timeout=180s >/dev/null
say "keda-operator and keda-metrics-apiserver ready ($((SECONDS - started)) s)"
if ! kubectl wait --for=condition=Available --timeout=120s apiservice/v1beta1.external.metrics.k8s.io >/dev/null; then
  kubectl get apiservice v1beta1.external.metrics.k8s.io -o jsonpath='{.status.conditions}' >&2; echo >&2
  kubectl -n keda logs deploy/keda-metrics-apiserver --tail=20 >&2
  say "the external-metrics API is not available"; exit 1
fi
say "KEDA up: operator and adapter pods, external.metrics.k8s.io available ($((SECONDS - started)) s)"
