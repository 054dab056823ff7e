#!/usr/bin/env bash
# A single-node Kubernetes 1.34 on this machine, from the binaries scripts/k8s/build-tools.sh
# makes: etcd, kube-apiserver, controller-manager, scheduler (loopback), a containerd of its
# own (Debian's 1.6, its own socket and folders), kubelet, kube-proxy (iptables) and the
# bridge CNI plugin. Stopped, and the host put back, by scripts/k8s/cluster-down.sh.
#
# What it changes on the host (cluster-down.sh undoes each): Debian packages
# containernetworking-plugins and conntrack (kept); /etc/cni/net.d/10-deskgate.conflist;
# the cni0 bridge and pod veths; two FORWARD rules accepting cni0 (comment deskgate-k8s);
# kube-proxy's KUBE-* iptables chains; mounts under
# /var/lib/kubelet, /var/lib/cni and /etc/cni (removed when it made them); /run/deskgate-containerd; the processes, pids in .deskgate/k8s/cluster.
#
# The fixes this machine needs (docs/kubernetes.md): containerd restrict_oom_score_adj (root
# has no CAP_SYS_RESOURCE, kubelet asks for oom_score_adj -998); kubelet on cgroup v1
# (failCgroupV1: false, cgroupfs); apiserver reaches the kubelet by InternalIP.
# For KEDA and metrics-server (scripts/k8s/keda-up.sh, metrics-server-up.sh): the aggregation
# layer's front-proxy flags, the kubelet's serving certificate from a CA they can check, and
# the HPA controller syncing every 5 s (15 s by default) so the cluster test's scaling is quick.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
source scripts/lib/debian-packages.sh
source scripts/lib/docker-engine.sh
ST=$K8S_HOME/cluster
export KUBECONFIG=$ST/admin.kubeconfig
CONTAINERD_RUN=/run/deskgate-containerd
kubectl() { "$K8S_BIN/kubectl" "$@"; }
started=$SECONDS

[ -f "$ST/apiserver.pid" ] && kill -0 "$(cat "$ST/apiserver.pid")" 2>/dev/null && { say "the cluster is already up (scripts/k8s/cluster-down.sh stops it)"; exit 0; }
for port in 2379 6443 10250 10256; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then say "port $port is taken: another cluster runs here?"; exit 1; fi
done
ensure_debian_packages "the node's network plugins" containernetworking-plugins conntrack
scripts/k8s/build-tools.sh cluster
mkdir -p "$ST/logs" "$ST/etcd"
# The host folders the node makes, noted when they do not exist yet, for cluster-down.sh.
for dir in /var/lib/kubelet /var/lib/cni /etc/cni/net.d /etc/cni; do
  [ -e "$dir" ] || grep -qx "$dir" "$ST/created-dirs" 2>/dev/null || echo "$dir" >> "$ST/created-dirs"
done
NODE_IP=$(ip -4 route get 1.1.1.1 | sed -n 's/.* src \([0-9.]*\).*/\1/p')
api_credentials "$ST" 6443
# The kubelet's own token.
kubelet_token=$(openssl rand -hex 16)
echo "$kubelet_token,system:node:node1,uid-node,\"system:nodes\"" >> "$ST/pki/tokens.csv"
sed "s/token: \"[^\"]*\"/token: \"$kubelet_token\"/" "$ST/admin.kubeconfig" > "$ST/kubelet.kubeconfig"

# The API server talks to the kubelet (logs, exec) with a client certificate the kubelet
# trusts, and checks the kubelet's; nobody else is let in (no anonymous access to port 10250).
if [ ! -f "$ST/pki/kubelet-client.crt" ]; then
  ( cd "$ST/pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout kubelet-ca.key -out kubelet-ca.crt -subj /CN=deskgate-kubelet-ca -days 30
    openssl req -newkey rsa:2048 -nodes -keyout kubelet-client.key -out kubelet-client.csr -subj "/O=system:masters/CN=kube-apiserver-kubelet-client"
    openssl x509 -req -in kubelet-client.csr -CA kubelet-ca.crt -CAkey kubelet-ca.key -CAcreateserial -out kubelet-client.crt -days 30 ) >/dev/null 2>&1
fi

# The kubelet's serving certificate, from a CA of our own, for its address and name: without it
# the kubelet signs one itself for its name only, which nobody can check — metrics-server
# (scripts/k8s/metrics-server-up.sh) and the API server verify this one. Made on every start
# (the node's address may have changed).
( cd "$ST/pki"
  [ -f kubelet-serving-ca.crt ] || openssl req -x509 -newkey rsa:2048 -nodes -keyout kubelet-serving-ca.key -out kubelet-serving-ca.crt -subj /CN=deskgate-kubelet-serving-ca -days 30
  openssl req -newkey rsa:2048 -nodes -keyout kubelet-serving.key -out kubelet-serving.csr -subj /CN=node1
  printf 'subjectAltName=IP:%s,DNS:node1\nextendedKeyUsage=serverAuth\n' "$NODE_IP" > kubelet-serving.ext
  openssl x509 -req -in kubelet-serving.csr -CA kubelet-serving-ca.crt -CAkey kubelet-serving-ca.key -CAcreateserial \
    -extfile kubelet-serving.ext -out kubelet-serving.crt -days 30 ) >/dev/null 2>&1

bg() { local name=$1; shift; setsid nohup "$@" >"$ST/logs/$name.log" 2>&1 </dev/null & echo $! >"$ST/$name.pid"; }
# The aggregation layer, for KEDA's external-metrics API server (scripts/k8s/keda-up.sh): the
# API server proxies /apis/external.metrics.k8s.io to it as front-proxy-client, a certificate
# of a CA of its own that the adapter trusts for the caller's identity headers.
if [ ! -f "$ST/pki/front-proxy-client.crt" ]; then
  ( cd "$ST/pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt -subj /CN=deskgate-front-proxy-ca -days 30
    openssl req -newkey rsa:2048 -nodes -keyout front-proxy-client.key -out front-proxy-client.csr -subj /CN=front-proxy-client
    printf 'extendedKeyUsage=clientAuth\n' > front-proxy-client.ext
    openssl x509 -req -in front-proxy-client.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key -CAcreateserial \
      -extfile front-proxy-client.ext -out front-proxy-client.crt -days 30 ) >/dev/null 2>&1
fi

bg etcd "$K8S_BIN/etcd" --data-dir "$ST/etcd" --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 --initial-cluster default=http://127.0.0.1:2380
bg apiserver "$K8S_BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 --secure-port=6443 --advertise-address="$NODE_IP" \
  --cert-dir="$ST/pki" --token-auth-file="$ST/pki/tokens.csv" --authorization-mode=Node,RBAC \
  --service-account-key-file="$ST/pki/sa.pub" --service-account-signing-key-file="$ST/pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local --service-cluster-ip-range=10.96.0.0/16 \
  --kubelet-preferred-address-types=InternalIP --allow-privileged=true \
  --kubelet-client-certificate="$ST/pki/kubelet-client.crt" --kubelet-client-key="$ST/pki/kubelet-client.key" \
  --kubelet-certificate-authority="$ST/pki/kubelet-serving-ca.crt" \
  --requestheader-client-ca-file="$ST/pki/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- --proxy-client-cert-file="$ST/pki/front-proxy-client.crt" \
  --proxy-client-key-file="$ST/pki/front-proxy-client.key" --enable-aggregator-routing=true
for _ in $(seq 240); do kubectl get --raw /readyz >/dev/null 2>&1 && break; sleep 0.25; done
kubectl get --raw /readyz >/dev/null || { say "kube-apiserver is not ready: $ST/logs/apiserver.log"; exit 1; }
say "API server ready ($((SECONDS - started)) s)"

bg controller-manager "$K8S_BIN/kube-controller-manager" --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
  --authorization-kubeconfig="$KUBECONFIG" --service-account-private-key-file="$ST/pki/sa.key" --root-ca-file="$ST/pki/apiserver.crt" \
  --use-service-account-credentials=false --cluster-cidr=10.244.0.0/16 --allocate-node-cidrs=true \
  --service-cluster-ip-range=10.96.0.0/16 --leader-elect=false --bind-address=127.0.0.1 \
  --horizontal-pod-autoscaler-sync-period=5s
bg scheduler "$K8S_BIN/kube-scheduler" --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
  --authorization-kubeconfig="$KUBECONFIG" --leader-elect=false --bind-address=127.0.0.1

mkdir -p /etc/cni/net.d
cat > /etc/cni/net.d/10-deskgate.conflist <<C
{"cniVersion": "0.4.0", "name": "deskgate-pods", "plugins": [
 {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
  "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.0.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}],
           "dataDir": "$ST/cni"}},
 {"type": "portmap", "capabilities": {"portMappings": true}}]}
C
# Docker sets the FORWARD policy to DROP, and bridged pod traffic goes through FORWARD
# (br_netfilter): pods could not reach each other through a Service. Two rules let the
# pods' bridge through, marked for cluster-down.sh.
for dir in -i -o; do
  iptables -w -C FORWARD $dir cni0 -m comment --comment deskgate-k8s -j ACCEPT 2>/dev/null ||
    iptables -w -I FORWARD 1 $dir cni0 -m comment --comment deskgate-k8s -j ACCEPT
done
mkdir -p "$CONTAINERD_RUN"
cat > "$ST/containerd.toml" <<C
version = 2
root = "$ST/containerd"
state = "$CONTAINERD_RUN/state"
[grpc]
  address = "$CONTAINERD_RUN/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "/etc/cni/net.d"
C
bg containerd containerd --config "$ST/containerd.toml"
for _ in $(seq 80); do [ -S "$CONTAINERD_RUN/containerd.sock" ] && break; sleep 0.25; done

# The pause image, compiled from the Kubernetes sources (nothing can be pulled).
if ! ctr --address "$CONTAINERD_RUN/containerd.sock" -n k8s.io images ls -q | grep -qx registry.k8s.io/pause:3.10; then
  ensure_docker_engine || exit 1
  pause=$(mktemp -d)
  cp "$K8S_HOME/src/kubernetes/build/pause/linux/pause.c" "$pause/"
  gcc -Os -static -DVERSION=v3.10-deskgate -o "$pause/pause" "$pause/pause.c" && strip "$pause/pause"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' > "$pause/Dockerfile"
  docker build -q -t registry.k8s.io/pause:3.10 "$pause" >/dev/null
  docker save registry.k8s.io/pause:3.10 | ctr --address "$CONTAINERD_RUN/containerd.sock" -n k8s.io images import - >/dev/null
  rm -rf "$pause"
fi

cat > "$ST/kubelet.yaml" <<C
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$CONTAINERD_RUN/containerd.sock
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: $ST/pki/kubelet-ca.crt}}
# Each client's right is asked of the API server (RBAC): metrics-server may read the node's
# metrics, not exec into its pods.
authorization: {mode: Webhook}
tlsCertFile: $ST/pki/kubelet-serving.crt
tlsPrivateKeyFile: $ST/pki/kubelet-serving.key
address: $NODE_IP
readOnlyPort: 0
resolvConf: /etc/resolv.conf
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
C
bg kubelet "$K8S_BIN/kubelet" --config="$ST/kubelet.yaml" --kubeconfig="$ST/kubelet.kubeconfig" --hostname-override=node1 \
  --node-ip="$NODE_IP" --root-dir=/var/lib/kubelet
printf 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclientConnection: {kubeconfig: %s}\nmode: iptables\nclusterCIDR: 10.244.0.0/16\nhostnameOverride: node1\nconntrack: {maxPerCore: 0}\nhealthzBindAddress: 127.0.0.1:10256\nmetricsBindAddress: 127.0.0.1:10249\n' "$KUBECONFIG" > "$ST/kube-proxy.yaml"
bg kube-proxy "$K8S_BIN/kube-proxy" --config="$ST/kube-proxy.yaml"
for _ in $(seq 120); do kubectl get node node1 >/dev/null 2>&1 && break; sleep 0.5; done
kubectl wait --for=condition=Ready node/node1 --timeout=90s >/dev/null
say "node1 Ready ($((SECONDS - started)) s); KUBECONFIG=$KUBECONFIG"
