# Sourced by the scripts in scripts/k8s: where the Kubernetes tools are cached and how they are
# made. Everything is built from published Go modules (the Go proxy) and one PyPI package, so a
# fresh machine of this kind needs no registry but those (docs/kubernetes.md).

K8S_VERSION=${DESKGATE_K8S_VERSION:-v1.34.12}   # 1.34: the last kubelet that runs on cgroup v1 + containerd 1.6
ETCD_VERSION=${DESKGATE_ETCD_VERSION:-v3.6.8}
KUBECONFORM_VERSION=v0.7.0
SCHEMAS_PACKAGE=kubernetes-validate==1.37.0    # ships the JSON schemas of v1.25–v1.37
K8S_HOME=${DESKGATE_K8S_HOME:-$PWD/.deskgate/k8s}
K8S_BIN=$K8S_HOME/bin
K8S_SCHEMAS=$K8S_HOME/schemas

say() { echo "[k8s $(date -u +%T)] $*" >&2; }

_go_build_env() { export GOWORK=off GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0; }

# Builds each NAME=./package of the module copy in src into $K8S_BIN/NAME, once (a .partial
# file renamed when the link is done, so a killed build leaves nothing that looks built), at the
# lowest priority (the machine is shared), with a line a minute while the compiler runs.
go_build_into() { # src ldflags NAME=./package...
  local src=$1 ldflags=$2 spec name t build; shift 2
  for spec in "$@"; do
    name=${spec%%=*}
    [ -x "$K8S_BIN/$name" ] && continue
    t=$SECONDS
    say "building $name (nice'd; a line a minute while it compiles)"
    ( cd "$src" && exec nice -n 19 go build -trimpath -ldflags "$ldflags" -o "$K8S_BIN/$name.partial" "${spec#*=}" ) &
    build=$!
    while ! wait_up_to 60 "$build"; do say "  $name still compiling ($((SECONDS - t)) s)"; done
    wait "$build" || { rm -f "$K8S_BIN/$name.partial"; say "$name failed to build"; return 1; }
    mv "$K8S_BIN/$name.partial" "$K8S_BIN/$name"
    say "$name built ($((SECONDS - t)) s)"
  done
}

# The module's source, copied somewhere writable (the module cache is read-only).
_module_copy() { # module@version dest
  local dir
  dir=$(go mod download -json "$1" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])') || return 1
  rm -rf "$2"; mkdir -p "$(dirname "$2")"; cp -r "$dir" "$2"; chmod -R u+w "$2"
}

# The module copied to src and its dependencies downloaded, once per version.
_module_ready() { # module version src
  [ -f "$3/.prepared-$2" ] && return 0
  local t=$SECONDS
  _module_copy "$1@$2" "$3" || return 1
  ( cd "$3" && go mod download ) || return 1
  touch "$3/.prepared-$2"
  say "$1 $2 sources ready ($((SECONDS - t)) s)"
}

ensure_kubeconform() {
  [ -x "$K8S_BIN/kubeconform" ] && return 0
  local t=$SECONDS
  GOBIN=$K8S_BIN go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" || return 1
  say "kubeconform $KUBECONFORM_VERSION built ($((SECONDS - t)) s)"
}

# kubernetes-validate's schemas refer to one shared definitions file that kubeconform cannot
# resolve; standalone-schemas.py makes one self-contained file per kind.
ensure_schemas() {
  [ -f "$K8S_SCHEMAS/v1.34.0-standalone-strict/deployment-apps-v1.json" ] && return 0
  local t=$SECONDS venv=$K8S_HOME/venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" || return 1
  "$venv/bin/pip" install -q "$SCHEMAS_PACKAGE" || return 1
  "$venv/bin/python" scripts/k8s/standalone-schemas.py "$K8S_SCHEMAS" v1.34.0 || return 1
  say "schemas for v1.34.0 made ($((SECONDS - t)) s)"
}

# etcd's modules replace their siblings with ../ paths: point them at the published versions.
ensure_etcd() {
  [ -x "$K8S_BIN/etcd" ] && return 0
  local t=$SECONDS src=$K8S_HOME/src/etcd-server m
  _go_build_env
  _module_copy "go.etcd.io/etcd/server/v3@$ETCD_VERSION" "$src" || return 1
  ( cd "$src" || exit 1
    go mod edit -dropreplace=go.etcd.io/etcd -dropreplace=go.etcd.io/tests/v3 2>/dev/null
    for m in api/v3 client/pkg/v3 client/v3 pkg/v3; do
      if grep -q "go.etcd.io/etcd/$m =>" go.mod; then go mod edit -replace="go.etcd.io/etcd/$m=go.etcd.io/etcd/$m@$ETCD_VERSION"; fi
    done
    go build -trimpath -ldflags "-s -w" -o "$K8S_BIN/etcd" . ) || return 1
  say "etcd $ETCD_VERSION built ($((SECONDS - t)) s)"
}

# k8s.io/kubernetes as a module has no staging/ and no vendor/: each staging replace is pointed
# at the published k8s.io/X@v0.MINOR.PATCH, then each command is built on its own.
ensure_kubernetes() { # command...
  local missing=() c
  for c in "$@"; do [ -x "$K8S_BIN/$c" ] || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local src=$K8S_HOME/src/kubernetes staging=v0${K8S_VERSION#v1} t=$SECONDS
  _go_build_env
  if [ ! -f "$src/.prepared-$K8S_VERSION" ]; then
    _module_copy "k8s.io/kubernetes@$K8S_VERSION" "$src" || return 1
    ( cd "$src" || exit 1
      rm -rf vendor go.work go.work.sum
      for m in $(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' go.mod); do
        go mod edit -replace="$m=$m@$staging"
      done
      go mod download ) || return 1
    touch "$src/.prepared-$K8S_VERSION"
    say "kubernetes $K8S_VERSION sources ready ($((SECONDS - t)) s)"
  fi
  local minor; minor=$(echo "$staging" | cut -d. -f2)
  local ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1"
  ldflags="$ldflags -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  ldflags="$ldflags -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
  local specs=()
  for c in "${missing[@]}"; do specs+=("$c=./cmd/$c"); done
  go_build_into "$src" "$ldflags" "${specs[@]}"
}

# KEDA's CRDs (ScaledObject, TriggerAuthentication), from its published module, so the server
# dry run checks the keda-workers component against the real schemas.
KEDA_VERSION=v2.21.0
ensure_keda_crds() {
  [ -f "$K8S_HOME/crds/keda.sh_scaledobjects.yaml" ] && return 0
  local t=$SECONDS dir
  dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])') || return 1
  mkdir -p "$K8S_HOME/crds"
  cp "$dir/config/crd/bases/keda.sh_scaledobjects.yaml" "$dir/config/crd/bases/keda.sh_triggerauthentications.yaml" "$K8S_HOME/crds/"
  say "KEDA $KEDA_VERSION CRDs fetched ($((SECONDS - t)) s)"
}

VALIDATE_TOOLS=(kube-apiserver kubectl)
CLUSTER_TOOLS=(kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet kube-proxy)

# A free TCP port on loopback (the kernel's pick), so checks run beside a cluster or each other.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Service-account keys and a token file for an API server in folder $1 (made once).
api_credentials() { # state
  mkdir -p "$1/pki"
  [ -f "$1/pki/sa.key" ] || { openssl genrsa -out "$1/pki/sa.key" 2048 && openssl rsa -in "$1/pki/sa.key" -pubout -out "$1/pki/sa.pub"; } 2>/dev/null
  local token; token=$(openssl rand -hex 16)
  echo "$token,admin,uid-admin,\"system:masters\"" > "$1/pki/tokens.csv"
  printf 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:%s", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: "%s"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n' "$2" "$token" > "$1/admin.kubeconfig"
}

# True once process $2 has ended, false when it still runs after $1 seconds.
wait_up_to() { # seconds pid
  local i
  for ((i = 0; i < $1 * 2; i++)); do kill -0 "$2" 2>/dev/null || return 0; sleep 0.5; done
  return 1
}

# keda-operator and keda-adapter (the external-metrics API server), built from the same module.
# Its go.mod has replace and exclude directives, so `go install` refuses it: copy, then build.
# ~10 min cold on 2 busy cores (the operator links most of the cloud SDKs its scalers use).
ensure_keda() {
  [ -x "$K8S_BIN/keda-operator" ] && [ -x "$K8S_BIN/keda-adapter" ] && return 0
  local src=$K8S_HOME/src/keda
  _go_build_env
  _module_ready github.com/kedacore/keda/v2 "$KEDA_VERSION" "$src" || return 1
  go_build_into "$src" "-s -w -X github.com/kedacore/keda/v2/version.Version=$KEDA_VERSION" \
    keda-operator=./cmd/operator keda-adapter=./cmd/adapter
}

# metrics-server (the resource-metrics API, metrics.k8s.io, that the gateway's CPU HPA reads):
# 371 s cold here (load 4 on 2 cores). v0.9.0's go.mod has no replace directives, but it is
# built like KEDA (a copy, then go build) so its version is stamped the way its Makefile does.
METRICS_SERVER_VERSION=${DESKGATE_METRICS_SERVER_VERSION:-v0.9.0}
ensure_metrics_server() {
  [ -x "$K8S_BIN/metrics-server" ] && return 0
  local src=$K8S_HOME/src/metrics-server
  _go_build_env
  _module_ready sigs.k8s.io/metrics-server "$METRICS_SERVER_VERSION" "$src" || return 1
  go_build_into "$src" "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$METRICS_SERVER_VERSION" \
    metrics-server=./cmd/metrics-server
}

# kube-network-policies (what kind runs to enforce NetworkPolicies): nftables + nfqueue on the
# node. Its module has no replace directives, so `go install` builds it (its command is ./cmd).
NETPOL_VERSION=v0.8.0
ensure_network_policies() {
  [ -x "$K8S_BIN/kube-network-policies" ] && return 0
  local t=$SECONDS gobin=$K8S_HOME/src/netpol-bin
  say "building kube-network-policies $NETPOL_VERSION (nice'd)"
  mkdir -p "$gobin"
  GOBIN=$gobin CGO_ENABLED=0 nice -n 10 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kube-network-policies/cmd@$NETPOL_VERSION" || return 1
  mv "$gobin/cmd" "$K8S_BIN/kube-network-policies"
  say "kube-network-policies built ($((SECONDS - t)) s)"
}

# For the scripts that drive the one-node cluster (cluster-up.sh makes it): its state folder
# ($ST), its admin kubeconfig, kubectl from the cache, the node's address ($NODE_IP).
use_cluster() {
  ST=$K8S_HOME/cluster
  export KUBECONFIG=$ST/admin.kubeconfig
  kubectl() { "$K8S_BIN/kubectl" "$@"; }
  NODE_IP=$(ip -4 route get 1.1.1.1 | sed -n 's/.* src \([0-9.]*\).*/\1/p')
}
