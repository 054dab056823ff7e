#!/usr/bin/env bash
# The manifests' checks, in the test command: both overlays of deploy/k8s rendered, validated
# offline (kubeconform -strict on the Kubernetes 1.34 schemas), dry-run against a real API
# server (etcd + kube-apiserver on loopback, started and stopped here) with no Pod Security
# warning, Pod Security shown to refuse what it must, deskgate's own rules
# (scripts/k8s/check-rendered.py) and the workers' API rights exercised on that server
# (scripts/k8s/check-worker-rbac.sh). Prints TAP with `# pass N` / `# fail N` counts.
# The tools are built once into .deskgate/k8s (scripts/k8s/build-tools.sh validate, ~3.5 min
# cold); run that first in the background to overlap it with other suites.
set -uo pipefail
cd "$(dirname "$0")/../.."
. scripts/k8s/lib.sh
. scripts/k8s/api-server.sh

scripts/k8s/build-tools.sh validate >&2 || { echo "not ok 1 - the Kubernetes tools could not be built (scripts/k8s/build-tools.sh validate)"; echo "# pass 0"; echo "# fail 1"; exit 1; }

count=0; pass=0; fail=0
report() { # status title [details file]
  count=$((count + 1))
  if [ "$1" = ok ]; then pass=$((pass + 1)); echo "ok $count - $2"
  else fail=$((fail + 1)); echo "not ok $count - $2"; [ -n "${3:-}" ] && sed 's/^/# /' "$3" | head -n 40; fi
}
check() { # title command...
  local title=$1; shift
  if "$@" >"$work/out" 2>&1; then report ok "$title"; else report "not ok" "$title" "$work/out"; fi
}
kubectl() { "$K8S_BIN/kubectl" "$@"; }
work=$(mktemp -d "$K8S_HOME/validate.XXXXXX")
trap 'stop_api_server "$work/api"; rm -rf "$work"' EXIT
overlays=(local production)

echo "TAP version 13"
for overlay in "${overlays[@]}"; do
  check "$overlay: kustomize renders deploy/k8s/overlays/$overlay" sh -c "'$K8S_BIN/kubectl' kustomize deploy/k8s/overlays/$overlay > '$work/$overlay.yaml'"
  # KEDA's kinds are not in the Kubernetes schemas: the server checks them against KEDA's CRDs.
  check "$overlay: kubeconform -strict (Kubernetes 1.34 schemas)" "$K8S_BIN/kubeconform" -strict -summary -kubernetes-version 1.34.0 \
    -skip ScaledObject,TriggerAuthentication \
    -schema-location "$K8S_SCHEMAS/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$work/$overlay.yaml"
done

mkdir -p "$work/api"
if ! start_api_server "$work/api" 2>"$work/out"; then
  report "not ok" "etcd + kube-apiserver start on loopback" "$work/out"
else
  report ok "etcd + kube-apiserver start on loopback"
  check "KEDA's CRDs are established" sh -c "'$K8S_BIN/kubectl' apply --server-side -f '$K8S_HOME/crds' && '$K8S_BIN/kubectl' wait --for condition=established --timeout=30s crd/scaledobjects.keda.sh crd/triggerauthentications.keda.sh"
  # The namespaces exist before anything is dry-run into them (else NotFound).
  # (and their default service accounts: no controller-manager makes them here).
  check "the namespaces are created" sh -c "'$K8S_BIN/kubectl' apply -f deploy/k8s/base/namespaces.yaml &&
    '$K8S_BIN/kubectl' -n deskgate create serviceaccount default && '$K8S_BIN/kubectl' -n deskgate-workers create serviceaccount default"
  for overlay in "${overlays[@]}"; do
    check "$overlay: kubectl apply --dry-run=server accepts every object" sh -c "'$K8S_BIN/kubectl' apply --dry-run=server -o json -f '$work/$overlay.yaml' > '$work/$overlay.json' 2> '$work/$overlay.warnings'"
    # A Deployment that breaks its namespace's Pod Security level is only warned about.
    if grep -i "would violate PodSecurity" "$work/$overlay.warnings" >"$work/out"; then report "not ok" "$overlay: no Pod Security warning" "$work/out"
    else report ok "$overlay: no Pod Security warning"; fi
    while IFS= read -r line; do
      case $line in
        "ok - local: "*) report ok "${line#ok - }" ;;
        "ok - "*) report ok "$overlay: ${line#ok - }" ;;
        *) echo "${line#not ok - }" >"$work/out"; report "not ok" "$overlay: ${line#not ok - }" ;;
      esac
    done < <(python3 scripts/k8s/check-rendered.py "$overlay" <"$work/$overlay.json" 2>&1 || echo "not ok - check-rendered.py failed")
  done
  # Pod Security does refuse: the worker's pod as a bare pod is refused in `deskgate`
  # (restricted) and admitted in `deskgate-workers` (baseline).
  python3 - "$work/local.json" "$work/worker-pod.json" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
worker = next(i for i in items if i["kind"] == "Deployment" and i["metadata"]["name"] == "deskgate-worker")
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "worker-probe"}, "spec": dict(worker["spec"]["template"]["spec"])}
# Its account exists only in the dry run (a pod naming a missing one is refused before Pod Security).
for field in ("serviceAccountName", "serviceAccount"):
    pod["spec"].pop(field, None)
json.dump(pod, open(sys.argv[2], "w"))
worker["metadata"]["namespace"] = "deskgate"
json.dump(worker, open(sys.argv[2].replace("pod", "deployment"), "w"))
PY
  # …and the warning this script fails on is real: the worker's Deployment in `deskgate` gets it.
  kubectl apply --dry-run=server -f "$work/worker-deployment.json" >/dev/null 2>"$work/out"
  if grep -q 'would violate PodSecurity "restricted' "$work/out"; then report ok "Pod Security: the worker's Deployment in deskgate is warned about (the warning checked above)"
  else report "not ok" "Pod Security: the worker's Deployment in deskgate is warned about (the warning checked above)" "$work/out"; fi
  if kubectl create --dry-run=server -n deskgate -f "$work/worker-pod.json" >"$work/out" 2>&1; then
    report "not ok" "Pod Security: a worker pod is refused in deskgate (restricted)" "$work/out"
  elif grep -q 'violates PodSecurity "restricted' "$work/out"; then report ok "Pod Security: a worker pod is refused in deskgate (restricted)"
  else report "not ok" "Pod Security: a worker pod is refused in deskgate (restricted), for Pod Security" "$work/out"; fi
  check "Pod Security: a worker pod is admitted in deskgate-workers (baseline)" kubectl create --dry-run=server -n deskgate-workers -f "$work/worker-pod.json"
  # The worker's API rights for real: its own pod's deletion cost, and nothing else.
  while IFS= read -r line; do
    case $line in
      "ok - "*) report ok "${line#ok - }" ;;
      *) echo "${line#not ok - }" >"$work/out"; report "not ok" "${line#not ok - }" "$work/out" ;;
    esac
  done < <(scripts/k8s/check-worker-rbac.sh "$work/local.yaml" 2>&1 || echo "not ok - check-worker-rbac.sh failed")
fi

echo "1..$count"
echo "# pass $pass"
echo "# fail $fail"
[ "$fail" -eq 0 ]
