#!/usr/bin/env bash
# Enforced NetworkPolicies on the one-node cluster of scripts/k8s/cluster-up.sh: the bridge CNI
# plugin ignores them, so kube-network-policies v0.8.0 (sigs.k8s.io; what kind runs) runs on the
# node as a process: it watches pods, namespaces and policies and queues the first packet of each
# connection of a selected pod to itself (nftables + nfqueue), which accepts or drops it.
# Stopped by scripts/k8s/cluster-down.sh (pid in .deskgate/k8s/cluster); on SIGTERM it deletes
# its nftables tables itself.
#
# It reads only the in-cluster configuration (a service account's token and CA at
# /var/run/secrets/kubernetes.io/serviceaccount, the API server from KUBERNETES_SERVICE_*). So it
# runs in a mount namespace of its own where a private /run holds its account's token (the
# ClusterRole of its install.yaml: list/watch pods, namespaces, NetworkPolicies): nothing of
# that is written to the host's /run.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
use_cluster
started=$SECONDS

[ -f "$ST/netpol.pid" ] && kill -0 "$(cat "$ST/netpol.pid")" 2>/dev/null && { say "kube-network-policies already runs"; exit 0; }
# Its rules send a connection's first packet to user space with nftables' `queue` statement,
# which needs the kernel's nft_queue (CONFIG_NFT_QUEUE). Without it every sync fails with
# "netlink receive: no such file or directory" (ENOENT for the expression). Exit 3: unsupported.
if [ -r /proc/config.gz ] && ! zcat /proc/config.gz | grep -q '^CONFIG_NFT_QUEUE=[ym]'; then
  say "NetworkPolicies cannot be enforced here: this kernel ($(uname -r)) has no nftables queue expression (CONFIG_NFT_QUEUE is not set), which kube-network-policies needs"
  exit 3
fi
ensure_network_policies

kubectl apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ServiceAccount
metadata: { name: kube-network-policies, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: kube-network-policies }
rules:
  - { apiGroups: [""], resources: [pods, namespaces, nodes], verbs: [get, list, watch] }
  - { apiGroups: [networking.k8s.io], resources: [networkpolicies], verbs: [list, watch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: kube-network-policies }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kube-network-policies }
subjects: [{ kind: ServiceAccount, name: kube-network-policies, namespace: kube-system }]
YAML
account=$ST/netpol-account
rm -rf "$account"; mkdir -m 700 -p "$account"
kubectl -n kube-system create token kube-network-policies --duration=4h > "$account/token"
cp "$ST/pki/apiserver.crt" "$account/ca.crt"
echo kube-system > "$account/namespace"

mkdir -p "$ST/logs"
KUBERNETES_SERVICE_HOST=$NODE_IP KUBERNETES_SERVICE_PORT=6443 setsid nohup unshare --mount --propagation private \
  sh -c 'mount -t tmpfs -o mode=0755 netpol-run /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
         cp "$0"/token "$0"/ca.crt "$0"/namespace /run/secrets/kubernetes.io/serviceaccount/ &&
         exec "$1" --hostname-override=node1 --disable-nri --metrics-bind-address=127.0.0.1:19080 --v=2' \
  "$account" "$K8S_BIN/kube-network-policies" >>"$ST/logs/netpol.log" 2>&1 </dev/null &
echo $! > "$ST/netpol.pid"
# Ready once its informers synced and it installed its nftables table.
for _ in $(seq 120); do
  grep -q "Syncing nftables rules" "$ST/logs/netpol.log" 2>/dev/null && break
  kill -0 "$(cat "$ST/netpol.pid")" 2>/dev/null || { tail -20 "$ST/logs/netpol.log" >&2; say "kube-network-policies stopped: $ST/logs/netpol.log"; exit 1; }
  sleep 0.5
done
grep -q "Syncing nftables rules" "$ST/logs/netpol.log" || { tail -20 "$ST/logs/netpol.log" >&2; say "kube-network-policies did not sync: $ST/logs/netpol.log"; exit 1; }
# A failed sync is logged after the attempt: give it a moment, then stop it if its rules failed.
sleep 2
if grep -q '"syncing nftables rules" error' "$ST/logs/netpol.log"; then
  grep -A1 '"syncing nftables rules" error' "$ST/logs/netpol.log" | head -2 >&2
  pid=$(cat "$ST/netpol.pid"); kill "$pid"; wait_up_to 10 "$pid" || kill -9 "$pid"; rm -f "$ST/netpol.pid"
  say "kube-network-policies could not install its nftables rules: $ST/logs/netpol.log"; exit 1
fi
say "kube-network-policies enforcing ($((SECONDS - started)) s)"
