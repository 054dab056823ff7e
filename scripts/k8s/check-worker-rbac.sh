#!/usr/bin/env bash
# The worker's API rights on a real API server (scripts/k8s/validate.sh runs this against its
# own etcd + kube-apiserver; KUBECONFIG is that server's admin): the rendered overlay's
# ServiceAccount, Role, RoleBinding and admission policy applied for real, two worker pods
# created (never scheduled: no node), then PATCHes sent as the worker's service account with
# the pod name its bound token would carry (impersonation, as the admin may). Prints
# `ok - …` / `not ok - …: …` lines like check-rendered.py.
#
#   check-worker-rbac.sh RENDERED.yaml
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
rendered=$1
kubectl() { "$K8S_BIN/kubectl" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

server=$(sed -n 's/.*server: "\([^"]*\)".*/\1/p' "$KUBECONFIG")
token=$(sed -n 's/.*token: "\([^"]*\)".*/\1/p' "$KUBECONFIG")
ns=deskgate-workers
# A PATCH as the worker's service account whose token is bound to pod $1: prints the status,
# the answer in $work/answer.
patch_as() { # own-pod target-namespace target-pod patch [content-type]
  curl -sk -o "$work/answer" -w '%{http_code}' -X PATCH "$server/api/v1/namespaces/$2/pods/$3?dryRun=All" \
    -H "Authorization: Bearer $token" -H "Content-Type: ${5:-application/merge-patch+json}" \
    -H "Impersonate-User: system:serviceaccount:$ns:deskgate-worker" \
    -H 'Impersonate-Group: system:serviceaccounts' -H "Impersonate-Group: system:serviceaccounts:$ns" -H 'Impersonate-Group: system:authenticated' \
    -H "Impersonate-Extra-authentication.kubernetes.io%2fpod-name: $1" \
    --data "$4"
}
expect() { # title status-wanted message-pattern own-pod namespace target patch [content-type]
  local title=$1 want=$2 pattern=$3 got; shift 3
  got=$(patch_as "$@")
  if [ "$got" = "$want" ] && grep -Eq -- "$pattern" "$work/answer"; then echo "ok - $title"
  else echo "not ok - $title: HTTP $got $(head -c 300 "$work/answer")"; fi
}

# The worker's RBAC and admission policy, for real (the rest stays a dry run).
python3 - "$rendered" "$work/rbac.yaml" <<'PY'
import sys, yaml
keep = {"ServiceAccount", "Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] in keep]
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
PY
kubectl apply -f "$work/rbac.yaml" >"$work/out" 2>&1 || { echo "not ok - the worker's RBAC and admission policy apply: $(tr '\n' ' ' <"$work/out")"; exit 0; }
for pod in worker-a worker-b; do
  kubectl -n "$ns" run "$pod" --image=deskgate/worker --restart=Never --labels=app.kubernetes.io/name=worker \
    --annotations=controller.kubernetes.io/pod-deletion-cost=0 --annotations=other=kept >/dev/null 2>&1
done
kubectl create namespace rbac-elsewhere >/dev/null 2>&1
kubectl -n rbac-elsewhere create serviceaccount default >/dev/null 2>&1
kubectl -n rbac-elsewhere run not-a-worker --image=deskgate/worker --restart=Never >/dev/null 2>&1

cost='{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"3"}}}'
# The policy takes effect once the API server has loaded it (a second or so).
for _ in $(seq 60); do
  [ "$(patch_as worker-a $ns worker-b "$cost")" = 403 ] && break
  sleep 0.5
done
expect "worker RBAC: a worker sets its own pod's deletion cost" 200 '"controller.kubernetes.io/pod-deletion-cost": ?"3"' worker-a $ns worker-a "$cost"
expect "worker RBAC: another worker's pod is refused (the admission policy: its token names its pod)" 403 'only its own pod' worker-a $ns worker-b "$cost"
expect "worker RBAC: its pod's image is refused" 403 'may not change its pod' worker-a $ns worker-a '{"spec":{"containers":[{"name":"worker-a","image":"evil/image"}]}}' application/strategic-merge-patch+json
expect "worker RBAC: its pod's labels are refused" 403 'may not change its pod' worker-a $ns worker-a '{"metadata":{"labels":{"app.kubernetes.io/name":"gateway"}}}'
expect "worker RBAC: any other annotation is refused" 403 'only its pod.s controller.kubernetes.io/pod-deletion-cost' worker-a $ns worker-a '{"metadata":{"annotations":{"other":null}}}'
expect "worker RBAC: a cost that is not a count is refused" 403 'count of desktops' worker-a $ns worker-a '{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"-2147483648"}}}'
expect "worker RBAC: a pod in another namespace is forbidden (a Role, not a ClusterRole)" 403 'cannot patch resource' worker-a rbac-elsewhere not-a-worker "$cost"
# Nothing but patch: reading pods is forbidden too.
got=$(curl -sk -o "$work/answer" -w '%{http_code}' "$server/api/v1/namespaces/$ns/pods" -H "Authorization: Bearer $token" \
  -H "Impersonate-User: system:serviceaccount:$ns:deskgate-worker" -H 'Impersonate-Group: system:serviceaccounts' -H 'Impersonate-Group: system:authenticated')
if [ "$got" = 403 ]; then echo "ok - worker RBAC: listing pods is forbidden (patch is its only verb)"; else echo "not ok - worker RBAC: listing pods is forbidden: HTTP $got"; fi
kubectl -n "$ns" delete pod worker-a worker-b --wait=false >/dev/null 2>&1
kubectl delete namespace rbac-elsewhere --wait=false >/dev/null 2>&1
exit 0
