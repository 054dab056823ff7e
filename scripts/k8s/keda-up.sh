#!/usr/bin/env bash
# KEDA v2.21.0 on the one-node cluster of scripts/k8s/cluster-up.sh, for the cluster test:
# its CRDs, keda-operator and keda-adapter (the external-metrics API server) run on the node as
# processes, not pods (docs/kubernetes.md, "KEDA on the test node": why), and the
# APIService v1beta1.external.metrics.k8s.io pointing at the adapter through the aggregation
# layer cluster-up.sh configured. Stopped by scripts/k8s/cluster-down.sh (pids in
# .deskgate/k8s/cluster). Binaries: scripts/k8s/build-keda.sh (cached, ~10 min cold).
#
# The two processes use the cluster's admin kubeconfig (system:masters), not KEDA's
# ClusterRoles: this is a throwaway test node; in a real cluster KEDA runs from its Helm chart
# or release manifests with its own service accounts.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
use_cluster
started=$SECONDS

[ -f "$ST/keda-adapter.pid" ] && kill -0 "$(cat "$ST/keda-adapter.pid")" 2>/dev/null && { say "KEDA already runs"; exit 0; }
scripts/k8s/build-keda.sh
CERTS=$ST/keda-certs
rm -rf "$CERTS"; mkdir -p "$CERTS" "$ST/logs"; chmod 700 "$CERTS"

kubectl apply --server-side -f "$K8S_HOME/src/keda/config/crd/bases/" >/dev/null
# (Just created, a CRD has no conditions yet, and kubectl wait fails on that rather than waiting.)
for _ in $(seq 120); do
  kubectl wait --for condition=established --timeout=30s crd/scaledobjects.keda.sh crd/triggerauthentications.keda.sh >/dev/null 2>&1 && break
  sleep 0.5
done
kubectl get namespace keda >/dev/null 2>&1 || kubectl create namespace keda >/dev/null

# What a KEDA pod gets from its Deployment: its namespace, all namespaces watched.
export WATCH_NAMESPACE="" POD_NAMESPACE=keda KEDA_CLUSTER_OBJECT_NAMESPACE=keda
bg() { local name=$1; shift; setsid nohup nice -n 5 "$@" >>"$ST/logs/$name.log" 2>&1 </dev/null & echo $! >"$ST/$name.pid"; }
operator=("$K8S_BIN/keda-operator" --kubeconfig="$KUBECONFIG" --enable-cert-rotation=true --cert-dir="$CERTS"
  --enable-webhook-patching=false --enable-apiservice-patching=false --leader-elect=false
  --metrics-bind-address=127.0.0.1:18080 --health-probe-bind-address=127.0.0.1:18081
  --metrics-service-bind-address=127.0.0.1:19666)

# First run: the operator makes its CA and certificate into the Secret keda/kedaorg-certs and
# then exits to load them (in a pod that Secret is a mounted volume). Here they are copied out.
bg keda-operator "${operator[@]}"
for _ in $(seq 240); do kubectl -n keda get secret kedaorg-certs >/dev/null 2>&1 && break; sleep 0.5; done
kubectl -n keda get secret kedaorg-certs >/dev/null || { say "keda-operator made no certificate: $ST/logs/keda-operator.log"; exit 1; }
pid=$(cat "$ST/keda-operator.pid")
wait_up_to 30 "$pid" || { kill "$pid"; wait_up_to 10 "$pid" || kill -9 "$pid"; }
for key in ca.crt tls.crt tls.key; do
  kubectl -n keda get secret kedaorg-certs -o "jsonpath={.data.${key//./\\.}}" | base64 -d > "$CERTS/$key"
done
chmod 600 "$CERTS"/*
bg keda-operator "${operator[@]}"
for _ in $(seq 240); do (exec 3<>/dev/tcp/127.0.0.1/19666) 2>/dev/null && break; sleep 0.5; done
(exec 3<>/dev/tcp/127.0.0.1/19666) 2>/dev/null || { say "keda-operator's metrics service is not listening: $ST/logs/keda-operator.log"; exit 1; }
say "keda-operator ready ($((SECONDS - started)) s)"

# The adapter serves external.metrics.k8s.io on the node's address; the API server reaches it
# through the Service below (no selector: an EndpointSlice names the node) and the APIService.
bg keda-adapter "$K8S_BIN/keda-adapter" --kubeconfig="$KUBECONFIG" --lister-kubeconfig="$KUBECONFIG" \
  --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" \
  --secure-port=16443 --bind-address="$NODE_IP" --cert-dir="$CERTS" \
  --tls-cert-file="$CERTS/tls.crt" --tls-private-key-file="$CERTS/tls.key" \
  --metrics-service-address=127.0.0.1:19666 \
  --metrics-service-grpc-authority=keda-operator.keda.svc.cluster.local --port=18082
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: { name: keda-metrics-apiserver, namespace: keda }
spec:
  ports: [{ name: https, port: 443, targetPort: 16443, protocol: TCP }]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: keda-metrics-apiserver-node
  namespace: keda
  labels: { kubernetes.io/service-name: keda-metrics-apiserver }
addressType: IPv4
ports: [{ name: https, port: 16443, protocol: TCP }]
endpoints: [{ addresses: ["$NODE_IP"], conditions: { ready: true } }]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: { name: v1beta1.external.metrics.k8s.io }
spec:
  group: external.metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  caBundle: $(base64 -w0 "$CERTS/ca.crt")
  service: { name: keda-metrics-apiserver, namespace: keda, port: 443 }
YAML
if ! kubectl wait --for=condition=Available --timeout=120s apiservice/v1beta1.external.metrics.k8s.io >/dev/null; then
  kubectl get apiservice v1beta1.external.metrics.k8s.io -o jsonpath='{.status.conditions}' >&2; echo >&2
  say "the external-metrics API is not available: $ST/logs/keda-adapter.log"; exit 1
fi
say "KEDA up: operator, adapter, external.metrics.k8s.io available ($((SECONDS - started)) s)"
