# Sourced: etcd + kube-apiserver on loopback ports of their own, for server-side dry runs
# (scripts/k8s/validate.sh). start_api_server STATE sets KUBECONFIG; stop_api_server stops
# exactly the two processes it started (by pid) and removes STATE.

start_api_server() { # state
  local state=$1 etcd_port peer_port api_port
  etcd_port=$(free_port); peer_port=$(free_port); api_port=$(free_port)
  api_credentials "$state" "$api_port"
  "$K8S_BIN/etcd" --data-dir "$state/etcd" --log-level warn \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" --listen-metrics-urls "" >"$state/etcd.log" 2>&1 &
  ETCD_PID=$!
  "$K8S_BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" --bind-address 127.0.0.1 --secure-port "$api_port" \
    --advertise-address 127.0.0.1 --cert-dir "$state/pki" --token-auth-file "$state/pki/tokens.csv" --authorization-mode Node,RBAC \
    --service-account-key-file "$state/pki/sa.pub" --service-account-signing-key-file "$state/pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local --service-cluster-ip-range 10.96.0.0/16 \
    --allow-privileged=true >"$state/apiserver.log" 2>&1 &
  API_PID=$!
  export KUBECONFIG=$state/admin.kubeconfig
  local waited=0
  until "$K8S_BIN/kubectl" get --raw /readyz >/dev/null 2>&1; do
    if [ $waited -ge 600 ] || ! kill -0 "$API_PID" 2>/dev/null; then
      say "kube-apiserver did not become ready; the end of its log:"; tail -n 20 "$state/apiserver.log" >&2; return 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  say "etcd + kube-apiserver ready on 127.0.0.1:$api_port ($((waited / 10)).$((waited % 10)) s)"
}

stop_api_server() { # state
  local pid
  for pid in ${API_PID:-} ${ETCD_PID:-}; do
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  API_PID=; ETCD_PID=
  rm -rf "$1"
}
