#!/usr/bin/env bash
# metrics-server on the one-node cluster of scripts/k8s/cluster-up.sh, for the cluster test:
# the resource-metrics API (metrics.k8s.io: `kubectl top`, the gateway's CPU autoscaler) served
# by a metrics-server process on the node, registered by the APIService v1beta1.metrics.k8s.io
# whose caBundle the API server checks. It runs as KEDA does here (scripts/k8s/keda-up.sh: a
# process, not a pod — the node has no cluster DNS), but with its own identity and upstream's
# RBAC, not the admin's: the ServiceAccount kube-system/metrics-server (a token of it in its
# kubeconfig, the API server's certificate checked) and, towards the kubelet, a client
# certificate of the user deskgate:metrics-server bound to the same ClusterRole (the kubelet
# asks the API server what each client may do). The kubelet's serving certificate is checked
# against the CA cluster-up.sh made it from: no --kubelet-insecure-tls.
# Stopped by scripts/k8s/cluster-down.sh (its pid in .deskgate/k8s/cluster).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
use_cluster
started=$SECONDS
PORT=16444

[ -f "$ST/metrics-server.pid" ] && kill -0 "$(cat "$ST/metrics-server.pid")" 2>/dev/null && { say "metrics-server already runs"; exit 0; }
mkdir -p "$K8S_BIN"
ensure_metrics_server   # once: cached in .deskgate/k8s/bin
CERTS=$ST/metrics-server-certs
rm -rf "$CERTS"; mkdir -p "$CERTS" "$ST/logs"; chmod 700 "$CERTS"

# Upstream's RBAC (manifests/base/rbac.yaml of v0.9.0), with the kubelet client's user added to
# the binding that lets it read node metrics.
kubectl apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ServiceAccount
metadata: { name: metrics-server, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:aggregated-metrics-reader
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
rules:
  - { apiGroups: [metrics.k8s.io], resources: [pods, nodes], verbs: [get, list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: metrics-server-auth-reader, namespace: kube-system }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: extension-apiserver-authentication-reader }
subjects: [{ kind: ServiceAccount, name: metrics-server, namespace: kube-system }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "metrics-server:system:auth-delegator" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:auth-delegator" }
subjects: [{ kind: ServiceAccount, name: metrics-server, namespace: kube-system }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:metrics-server" }
rules:
  - { apiGroups: [""], resources: [nodes/metrics], verbs: [get] }
  - { apiGroups: [""], resources: [pods, nodes], verbs: [get, list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:metrics-server" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:metrics-server" }
subjects:
  - { kind: ServiceAccount, name: metrics-server, namespace: kube-system }
  - { apiGroup: rbac.authorization.k8s.io, kind: User, name: "deskgate:metrics-server" }
YAML

# Its kubeconfig: a day's token of its ServiceAccount, the API server's certificate checked.
token=$(kubectl -n kube-system create token metrics-server --duration=24h)
umask 077
cat > "$CERTS/kubeconfig" <<K
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://$NODE_IP:6443", certificate-authority: "$ST/pki/apiserver.crt"}}]
users: [{name: metrics-server, user: {token: "$token"}}]
contexts: [{name: c, context: {cluster: c, user: metrics-server}}]
current-context: c
K
# Its serving certificate (the API server reaches it as metrics-server.kube-system.svc) and its
# client certificate towards the kubelet (the kubelet trusts kubelet-ca for clients).
( cd "$CERTS"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -subj /CN=deskgate-metrics-server-ca -days 2
  openssl req -newkey rsa:2048 -nodes -keyout tls.key -out tls.csr -subj /CN=metrics-server.kube-system.svc
  printf 'subjectAltName=DNS:metrics-server.kube-system.svc\nextendedKeyUsage=serverAuth\n' > tls.ext
  openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -extfile tls.ext -out tls.crt -days 2
  openssl req -newkey rsa:2048 -nodes -keyout kubelet-client.key -out kubelet-client.csr -subj /CN=deskgate:metrics-server
  printf 'extendedKeyUsage=clientAuth\n' > kubelet-client.ext
  openssl x509 -req -in kubelet-client.csr -CA "$ST/pki/kubelet-ca.crt" -CAkey "$ST/pki/kubelet-ca.key" -CAcreateserial \
    -extfile kubelet-client.ext -out kubelet-client.crt -days 2
  rm -f ca.key ca.srl ./*.csr ./*.ext ) >/dev/null 2>&1
umask 022

# Every 10 s (upstream: 15 s; 10 s is its floor, and must exceed the kubelet request's timeout),
# so the test's autoscaler sees the load sooner.
setsid nohup nice -n 5 "$K8S_BIN/metrics-server" --kubeconfig="$CERTS/kubeconfig" \
  --authentication-kubeconfig="$CERTS/kubeconfig" --authorization-kubeconfig="$CERTS/kubeconfig" \
  --secure-port=$PORT --bind-address="$NODE_IP" --tls-cert-file="$CERTS/tls.crt" --tls-private-key-file="$CERTS/tls.key" \
  --kubelet-preferred-address-types=InternalIP --kubelet-use-node-status-port \
  --kubelet-certificate-authority="$ST/pki/kubelet-serving-ca.crt" \
  --kubelet-client-certificate="$CERTS/kubelet-client.crt" --kubelet-client-key="$CERTS/kubelet-client.key" \
  --metric-resolution=10s --kubelet-request-timeout=5s >>"$ST/logs/metrics-server.log" 2>&1 </dev/null &
echo $! >"$ST/metrics-server.pid"

kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: { name: metrics-server, namespace: kube-system }
spec:
  ports: [{ name: https, port: 443, targetPort: $PORT, protocol: TCP }]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: metrics-server-node
  namespace: kube-system
  labels: { kubernetes.io/service-name: metrics-server }
addressType: IPv4
ports: [{ name: https, port: $PORT, protocol: TCP }]
endpoints: [{ addresses: ["$NODE_IP"], conditions: { ready: true } }]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: { name: v1beta1.metrics.k8s.io }
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  caBundle: $(base64 -w0 "$CERTS/ca.crt")
  service: { name: metrics-server, namespace: kube-system, port: 443 }
YAML
pid=$(cat "$ST/metrics-server.pid")
for _ in $(seq 120); do
  kill -0 "$pid" 2>/dev/null || { tail -n 5 "$ST/logs/metrics-server.log" >&2; say "metrics-server stopped: $ST/logs/metrics-server.log"; exit 1; }
  [ "$(kubectl get apiservice v1beta1.metrics.k8s.io -o 'jsonpath={.status.conditions[?(@.type=="Available")].status}')" = True ] && break
  sleep 0.5
done
if ! kubectl wait --for=condition=Available --timeout=1s apiservice/v1beta1.metrics.k8s.io >/dev/null; then
  kubectl get apiservice v1beta1.metrics.k8s.io -o jsonpath='{.status.conditions}' >&2; echo >&2
  say "the resource-metrics API is not available: $ST/logs/metrics-server.log"; exit 1
fi
# Available means it answers; the node's first figures take a scrape or two.
for _ in $(seq 60); do kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes/node1 >/dev/null 2>&1 && break; sleep 1; done
kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes/node1 >/dev/null || { say "metrics-server has no figures for node1: $ST/logs/metrics-server.log"; exit 1; }
say "metrics-server up: metrics.k8s.io available, node1 measured ($((SECONDS - started)) s)"
