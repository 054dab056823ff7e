#!/usr/bin/env python3
"""deskgate's own rules for a rendered overlay (docs/kubernetes.md), read from the API server's
answer to a server-side dry run (`kubectl apply --dry-run=server -o json`, a List) on stdin.
Prints one line per rule: `ok - <rule>` or `not ok - <rule>: <what breaks it>`.

  check-rendered.py OVERLAY < list.json      OVERLAY=local also requires imagePullPolicy Never
"""
import json
import sys

overlay = sys.argv[1]
items = json.load(sys.stdin)["items"]
by_kind = {}
for item in items:
    by_kind.setdefault(item["kind"], []).append(item)


def name(item):
    return f'{item["kind"]} {item["metadata"].get("namespace", "-")}/{item["metadata"]["name"]}'


def pod_templates():
    for kind in ("Deployment", "StatefulSet", "Job"):
        for item in by_kind.get(kind, []):
            yield item, item["spec"]["template"]["spec"]


def config(namespace, key):
    for item in by_kind.get("ConfigMap", []):
        if item["metadata"].get("namespace") == namespace and item["metadata"]["name"] == "deskgate-config":
            return item.get("data", {}).get(key)
    return None


def rule(title, problems):
    problems = [p for p in problems if p]
    print(f"ok - {title}" if not problems else f"not ok - {title}: {'; '.join(problems)}")


# Graceful termination: the grace covers the preStop pause, the drain and 5 s to exit.
def grace(item, spec):
    if item["kind"] != "Deployment":
        return None
    drain = int(config(item["metadata"]["namespace"], "DESKGATE_DRAIN_SECONDS") or 10)
    pause = max((c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0) for c in spec["containers"]), default=0)
    need = pause + drain + 5
    have = spec.get("terminationGracePeriodSeconds", 30)
    return None if have >= need else f"{name(item)} grace {have} s < preStop {pause} + drain {drain} + 5"
rule("every Deployment's terminationGracePeriodSeconds covers preStop + DESKGATE_DRAIN_SECONDS + 5 s",
     [grace(i, s) for i, s in pod_templates()])

containers = [(i, c) for i, s in pod_templates() for c in s["containers"]]
rule("every container requests CPU and memory and has a memory limit",
     [None if c.get("resources", {}).get("requests", {}).keys() >= {"cpu", "memory"} and "memory" in c.get("resources", {}).get("limits", {})
      else f"{name(i)}/{c['name']}" for i, c in containers])
rule("every long-running container has readiness and liveness probes",
     [None if i["kind"] == "Job" or ("readinessProbe" in c and "livenessProbe" in c) else f"{name(i)}/{c['name']}" for i, c in containers])
rule("every container: no privilege escalation, read-only root, capabilities dropped",
     [None if c.get("securityContext", {}).get("allowPrivilegeEscalation") is False
      and c.get("securityContext", {}).get("readOnlyRootFilesystem") is True
      and "ALL" in c.get("securityContext", {}).get("capabilities", {}).get("drop", [])
      else f"{name(i)}/{c['name']}" for i, c in containers])
def token_volumes(spec):
    return [v for v in spec.get("volumes", []) for src in v.get("projected", {}).get("sources", []) if "serviceAccountToken" in src]
def worker(item):
    return item["kind"] == "Deployment" and item["metadata"]["name"] == "deskgate-worker"
rule("no pod automounts a service account token",
     [None if s.get("automountServiceAccountToken") is False else name(i) for i, s in pod_templates()])
rule("only the workers carry a token: their own account's, projected 0400 (root only), an hour at most",
     [None if not token_volumes(s) else name(i) for i, s in pod_templates() if not worker(i)]
     + [None if s.get("serviceAccountName") == "deskgate-worker" and len(token_volumes(s)) == 1
        and token_volumes(s)[0]["projected"].get("defaultMode") == 0o400
        and all(src["serviceAccountToken"].get("expirationSeconds", 3600) <= 3600 for src in token_volumes(s)[0]["projected"]["sources"] if "serviceAccountToken" in src)
        else f"{name(i)}: token volume {json.dumps(token_volumes(s))}" for i, s in pod_templates() if worker(i)])
rule("the workers' health server listens on the pod's address, probed over HTTP on its named port",
     [None if {"name": "DESKGATE_WORKER_HOST", "value": "0.0.0.0"} in c.get("env", [])
      and all(c.get(p, {}).get("httpGet", {}).get("port") == "health" for p in ("startupProbe", "readinessProbe", "livenessProbe"))
      else f"{name(i)}/{c['name']}" for i, s in pod_templates() if worker(i) for c in s["containers"]])

# RBAC: the worker's Role (patch on pods, in its namespace) is the only grant deskgate makes.
roles = by_kind.get("Role", []) + by_kind.get("ClusterRole", [])
bindings = by_kind.get("RoleBinding", []) + by_kind.get("ClusterRoleBinding", [])
rule("RBAC: one Role, in deskgate-workers, allowing only patch on pods; no ClusterRole",
     [None if r["kind"] == "Role" and r["metadata"]["namespace"] == "deskgate-workers"
      and r.get("rules") == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["patch"]}] else f"{name(r)}: {json.dumps(r.get('rules'))}" for r in roles]
     + ([] if roles else ["no Role for the workers"]))
rule("RBAC: bound to the worker's ServiceAccount only; no ClusterRoleBinding",
     [None if b["kind"] == "RoleBinding" and b["metadata"]["namespace"] == "deskgate-workers" and b["roleRef"]["name"] == "deskgate-worker"
      and b.get("subjects") == [{"kind": "ServiceAccount", "name": "deskgate-worker", "namespace": "deskgate-workers"}] else name(b) for b in bindings]
     + ([] if bindings else ["no RoleBinding for the workers"]))
vaps = {p["metadata"]["name"]: p for p in by_kind.get("ValidatingAdmissionPolicy", [])}
vap_bindings = by_kind.get("ValidatingAdmissionPolicyBinding", [])
rule("the worker's patch is narrowed by an admission policy (its own pod, the deletion cost only) that fails closed and denies",
     [None if any(b["spec"]["policyName"] in vaps and b["spec"].get("validationActions") == ["Deny"]
                  and vaps[b["spec"]["policyName"]]["spec"].get("failurePolicy") == "Fail"
                  and "system:serviceaccount:deskgate-workers:deskgate-worker" in json.dumps(vaps[b["spec"]["policyName"]]["spec"].get("matchConditions"))
                  and "authentication.kubernetes.io/pod-name" in json.dumps(vaps[b["spec"]["policyName"]]["spec"].get("validations"))
                  for b in vap_bindings) else "no such policy bound"])
rule("only the workers run as root, with exactly SETUID SETGID CHOWN DAC_OVERRIDE FOWNER KILL",
     [None if (i["metadata"]["name"] == "deskgate-worker") == (c.get("securityContext", {}).get("runAsUser", s.get("securityContext", {}).get("runAsUser")) == 0)
      and (i["metadata"]["name"] != "deskgate-worker" or sorted(c["securityContext"]["capabilities"].get("add", [])) == sorted(["SETUID", "SETGID", "CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL"]))
      and (i["metadata"]["name"] == "deskgate-worker" or not c.get("securityContext", {}).get("capabilities", {}).get("add"))
      else f"{name(i)}/{c['name']}" for i, s in pod_templates() for c in s["containers"]])

namespaces = {n["metadata"]["name"]: n["metadata"].get("labels", {}) for n in by_kind.get("Namespace", [])}
rule("Pod Security: deskgate enforces restricted, deskgate-workers enforces baseline and audits restricted",
     [None if namespaces.get("deskgate", {}).get("pod-security.kubernetes.io/enforce") == "restricted" else "deskgate",
      None if namespaces.get("deskgate-workers", {}).get("pod-security.kubernetes.io/enforce") == "baseline"
      and namespaces.get("deskgate-workers", {}).get("pod-security.kubernetes.io/audit") == "restricted" else "deskgate-workers"])

policies = by_kind.get("NetworkPolicy", [])
def default_deny(ns):
    return any(p["metadata"]["namespace"] == ns and p["spec"].get("podSelector") == {} and set(p["spec"].get("policyTypes", [])) == {"Ingress", "Egress"}
               and not p["spec"].get("ingress") and not p["spec"].get("egress") for p in policies)
rule("NetworkPolicy: both namespaces deny all by default", [None if default_deny(ns) else ns for ns in ("deskgate", "deskgate-workers")])
open_ingress = [(p, r) for p in policies for r in p["spec"].get("ingress", []) if not r.get("from")]
rule("NetworkPolicy: only the gateway takes traffic from anywhere, on 7420 only",
     [None if p["spec"]["podSelector"] == {"matchLabels": {"app.kubernetes.io/name": "gateway"}}
      and r.get("ports") and all(port["port"] == 7420 for port in r["ports"]) else name(p) for p, r in open_ingress]
     + ([] if open_ingress else ["no policy admits clients to the gateway"]))
worker_egress = [r for p in policies if p["metadata"]["namespace"] == "deskgate-workers" and p["metadata"]["name"] not in ("dns", "desktop-egress") for r in p["spec"].get("egress", [])]
def redis_rule(r):
    return r.get("ports") and all(port["port"] == 6379 for port in r["ports"]) and all("podSelector" in peer for peer in r.get("to", [{}]))
def gateway_replies_rule(r):
    return (r.get("ports") and all(port["port"] == 7422 for port in r["ports"])
            and r.get("to") and all(peer.get("podSelector") == {"matchLabels": {"app.kubernetes.io/name": "gateway"}} for peer in r["to"]))
def api_server_rule(r):
    return (r.get("ports") and all(port["port"] in (443, 6443) for port in r["ports"])
            and r.get("to") and all(set(peer) == {"ipBlock"} and peer["ipBlock"]["cidr"].endswith("/32") and not peer["ipBlock"].get("except") for peer in r["to"]))
rule("NetworkPolicy: workers (and their desktops) reach Redis on 6379, the gateways' reply port 7422 and the API server's addresses (/32) on 443/6443 only, besides DNS and the optional desktop-egress",
     [None if redis_rule(r) or gateway_replies_rule(r) or api_server_rule(r) else json.dumps(r) for r in worker_egress]
     + ([] if any(redis_rule(r) for r in worker_egress) else ["no egress to Redis"]))
worker_ingress = [r for p in policies if p["metadata"]["namespace"] == "deskgate-workers" for r in p["spec"].get("ingress", [])]
rule("NetworkPolicy: workers take traffic only on their health port 7421, from a namespace selected by label",
     [None if r.get("from") and all(set(peer) == {"namespaceSelector"} and peer["namespaceSelector"].get("matchLabels") for peer in r["from"])
      and r.get("ports") and all(port["port"] == 7421 for port in r["ports"]) else json.dumps(r) for r in worker_ingress])
gateway_ingress = [r for p in policies if p["spec"]["podSelector"] == {"matchLabels": {"app.kubernetes.io/name": "gateway"}} for r in p["spec"].get("ingress", []) if r.get("from")]
rule("NetworkPolicy: the gateways' reply port 7422 takes worker pods only",
     [None if all(port["port"] == 7422 for port in r.get("ports", [{"port": None}]))
      and all(peer.get("podSelector") == {"matchLabels": {"app.kubernetes.io/name": "worker"}} and peer.get("namespaceSelector") for peer in r["from"]) else json.dumps(r) for r in gateway_ingress]
     + ([] if gateway_ingress else ["no policy admits the workers' replies"]))
exposed = [s for s in by_kind.get("Service", []) if s["spec"].get("type", "ClusterIP") != "ClusterIP"]
rule("no Service is exposed outside the cluster by the manifests (an Ingress or load balancer is the operator's choice)", [name(s) for s in exposed])

# KEDA keeps ceil(wanted.desktops / targetValue) workers: targetValue must be what one worker runs.
def scaled_object_problems(item):
    per_worker = config("deskgate-workers", "DESKGATE_MAX_DESKTOPS")
    spec = item["spec"]
    problems = [] if spec["scaleTargetRef"]["name"] == "deskgate-worker" else ["not the worker Deployment"]
    problems += [] if spec.get("minReplicaCount", 0) >= 1 else ["minReplicaCount < 1"]
    for trigger in spec["triggers"]:
        meta = trigger["metadata"]
        if trigger["type"] != "metrics-api" or meta.get("valueLocation") != "wanted.desktops" or not meta.get("url", "").endswith("/v1/fleet/demand"):
            problems.append(f"trigger {json.dumps(trigger)} is not the fleet's wanted.desktops")
        elif meta.get("targetValue") != per_worker:
            problems.append(f"targetValue {meta.get('targetValue')} != DESKGATE_MAX_DESKTOPS {per_worker}")
        elif meta.get("authMode") != "bearer" or not trigger.get("authenticationRef"):
            problems.append("no bearer token (the fleet token) for the demand route")
    return "; ".join(problems) or None
scaled = by_kind.get("ScaledObject", [])
rule("KEDA: the workers scale on the fleet's wanted.desktops ÷ DESKGATE_MAX_DESKTOPS (with the fleet token, never below 1), as the gateways count a worker",
     [scaled_object_problems(i) for i in scaled]
     + ([] if config("deskgate", "DESKGATE_FLEET_DESKTOPS_PER_WORKER") == config("deskgate-workers", "DESKGATE_MAX_DESKTOPS")
        else ["DESKGATE_FLEET_DESKTOPS_PER_WORKER != DESKGATE_MAX_DESKTOPS"])
     + ([] if scaled else ["no ScaledObject"]))

# Disruption budgets: a drain (kubectl drain, an upgrade) takes one pod of each at a time.
def budget(item):
    labels = item["spec"]["selector"]["matchLabels"]
    pdbs = [p for p in by_kind.get("PodDisruptionBudget", []) if p["metadata"]["namespace"] == item["metadata"]["namespace"]
            and p["spec"].get("selector", {}).get("matchLabels") == labels]
    return None if len(pdbs) == 1 and pdbs[0]["spec"].get("maxUnavailable") == 1 else f"{name(item)}: {len(pdbs)} budgets {json.dumps([p['spec'] for p in pdbs])}"
rule("every Deployment has one PodDisruptionBudget over its pods, maxUnavailable 1",
     [budget(i) for i in by_kind.get("Deployment", [])])
# The gateways scale on CPU (metrics.k8s.io); production keeps the base's knobs.
def gateway_hpa(item):
    spec = item["spec"]
    metric = spec["metrics"][0] if len(spec.get("metrics", [])) == 1 else {}
    problems = [] if spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "deskgate-gateway"} else ["not the gateway Deployment"]
    problems += [] if metric.get("type") == "Resource" and metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization" else ["not on CPU utilisation"]
    if overlay == "production":
        knobs = (spec.get("minReplicas"), spec["maxReplicas"], metric.get("resource", {}).get("target", {}).get("averageUtilization"),
                 spec.get("behavior", {}).get("scaleDown", {}).get("stabilizationWindowSeconds"))
        problems += [] if knobs == (2, 10, 70, 300) else [f"min, max, target, scale-down window {knobs} != (2, 10, 70, 300)"]
    return "; ".join(problems) or None
hpas = [h for h in by_kind.get("HorizontalPodAutoscaler", []) if h["metadata"]["name"] == "deskgate-gateway"]
rule("the gateways scale on CPU (an HPA on their Deployment; production: 2–10, 70 %, down after 300 s)",
     [gateway_hpa(h) for h in hpas] + ([] if hpas else ["no HPA for the gateway"]))

if overlay == "local":
    rule("local: every image is used from the node (imagePullPolicy Never)",
         [None if c.get("imagePullPolicy") == "Never" else f"{name(i)}/{c['name']}" for i, c in containers])
