#!/usr/bin/env bash
# Stops what scripts/k8s/cluster-up.sh (and keda-up.sh, metrics-server-up.sh, netpol-up.sh) started and puts the host back: the workloads first (so
# the kubelet tears their containers down), then each process by its recorded pid, in reverse
# order, waiting for each; then kube-proxy's iptables chains, the pods' mounts, the cni0
# bridge, the CNI config and the containerd folders. Safe to run twice.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
ST=$K8S_HOME/cluster
export KUBECONFIG=$ST/admin.kubeconfig
started=$SECONDS
if [ -f "$ST/kubelet.pid" ] && "$K8S_BIN/kubectl" get --raw /readyz >/dev/null 2>&1; then
  # KEDA's objects first, while KEDA may still act in deskgate-workers (its Role is in that
  # namespace): deleted with it, their finalizers would hold the namespace.
  "$K8S_BIN/kubectl" -n deskgate-workers delete scaledobject,triggerauthentication --all --ignore-not-found --wait=true --timeout=30s >/dev/null 2>&1
  "$K8S_BIN/kubectl" delete namespace deskgate deskgate-workers --ignore-not-found --wait=true --timeout=60s >/dev/null 2>&1
  "$K8S_BIN/kubectl" delete pod --all -A --grace-period=5 --wait=true --timeout=30s >/dev/null 2>&1
fi
for name in netpol metrics-server kube-proxy kubelet containerd scheduler controller-manager apiserver etcd; do
  pid=$(cat "$ST/$name.pid" 2>/dev/null) || continue
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    say "stopped $name ($pid)"
  fi
  rm -f "$ST/$name.pid"
done
# Shims of containers the kubelet did not get to (their parent was our containerd).
for shim in $(pgrep -f "containerd-shim.*-address /run/deskgate-containerd/" || true); do kill -9 "$shim" 2>/dev/null; done
[ -x "$K8S_BIN/kube-proxy" ] && "$K8S_BIN/kube-proxy" --cleanup >/dev/null 2>&1
grep -E " (/var/lib/kubelet|/run/deskgate-containerd|$ST)[/ ]" /proc/mounts | awk '{print $2}' | sort -r | while read -r mount; do umount -l "$mount" 2>/dev/null; done
ip link show cni0 >/dev/null 2>&1 && ip link delete cni0
# The bridge plugin's masquerade rules (chains CNI-…, commented with our network's name) of
# pods whose teardown did not run.
iptables -t nat -S POSTROUTING 2>/dev/null | grep 'name: \\"deskgate-pods\\"' | while read -r rule; do
  chain=$(sed -n 's/.* -j \(CNI-[0-9a-f]*\).*/\1/p' <<<"$rule")
  eval "iptables -t nat ${rule/-A /-D }"
  [ -n "$chain" ] && iptables -t nat -F "$chain" && iptables -t nat -X "$chain"
done
# The kubelet's own chains (kube-proxy --cleanup leaves them): KUBE-FIREWALL with its jumps
# from INPUT and OUTPUT, the canaries, the mangle hint.
for tool in iptables ip6tables; do
  for hook in INPUT OUTPUT; do while $tool -w -D "$hook" -j KUBE-FIREWALL 2>/dev/null; do :; done; done
  for table in filter nat mangle; do
    for chain in KUBE-FIREWALL KUBE-KUBELET-CANARY KUBE-IPTABLES-HINT; do
      $tool -w -t "$table" -F "$chain" 2>/dev/null && $tool -w -t "$table" -X "$chain" 2>/dev/null
    done
  done
done
for dir in -i -o; do
  while iptables -w -D FORWARD $dir cni0 -m comment --comment deskgate-k8s -j ACCEPT 2>/dev/null; do :; done
done
rm -f /etc/cni/net.d/10-deskgate.conflist
rm -rf /run/deskgate-containerd "$ST/containerd" "$ST/cni" "$ST/etcd" "$ST/metrics-server-certs" "$ST/netpol-account"
# The host folders cluster-up.sh made (none of them is left mounted by now).
if [ -f "$ST/created-dirs" ]; then
  while read -r dir; do
    grep -q " $dir[/ ]" /proc/mounts || rm -rf "$dir"
  done < "$ST/created-dirs"
  rm -f "$ST/created-dirs"
fi
say "cluster down ($((SECONDS - started)) s)"
