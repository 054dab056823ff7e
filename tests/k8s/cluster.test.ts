/**
 * deskgate on a real one-node Kubernetes cluster (scripts/k8s/cluster-test.sh brings it up,
 * loads the images and runs this file; docs/kubernetes.md): the `local` overlay deployed from
 * scratch, then driven from the host as a client would — the official MCP client through the
 * gateway's Service (its ClusterIP, via kube-proxy), a worker pod killed in the middle of a
 * call (a clear worker_lost, then the session's next call on a fresh desktop of the new pod),
 * workers scaled out on the fleet's demand and back in by KEDA (its metrics-api trigger on
 * GET /v1/fleet/demand, through the external-metrics API; nothing here scales by hand): each
 * worker keeps its pod's deletion cost at the desktops it holds, so the idle pod goes and a
 * live session is not cut.
 *
 * The gateway's HPA scales on CPU read through metrics-server, and a node drain (the eviction
 * API) is held by the PodDisruptionBudgets.
 *
 * Needs KUBECONFIG (the cluster's admin) and DESKGATE_K8S_BIN (kubectl) from the script, KEDA's
 * pods (scripts/k8s/keda-up.sh) and metrics-server (scripts/k8s/metrics-server-up.sh).
 */
import assert from 'node:assert/strict';
import { execFile as execFileCallback } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { decodeImage } from '../support/image.ts';
import { connect, errorKind, imageOf, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { actionReplies } from '../support/metrics.ts';

const execFile = promisify(execFileCallback);
const repoRoot = new URL('../../', import.meta.url).pathname;
const kubectlBin = `${process.env.DESKGATE_K8S_BIN ?? `${repoRoot}.deskgate/k8s/bin`}/kubectl`;
/** The local overlay's fixed ClusterIP of the gateway Service. */
const GATEWAY = 'http://10.96.74.20:7420';

async function kubectl(...args: string[]): Promise<string> {
  try {
    const { stdout } = await execFile(kubectlBin, args, { cwd: repoRoot, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`kubectl ${args.join(' ')}: ${failed.message}\n${failed.stderr ?? ''}`);
  }
}
const secret = async (key: string) => Buffer.from(await kubectl('-n', 'deskgate', 'get', 'secret', 'deskgate-secrets', '-o', `jsonpath={.data.${key}}`), 'base64').toString();
const workerPods = async () => (await kubectl('-n', 'deskgate-workers', 'get', 'pods', '-l', 'app.kubernetes.io/name=worker', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.metadata.deletionTimestamp}{"\\n"}{end}'))
  .split('\n').filter(Boolean).map((line) => line.split(' ')).filter(([, phase, deleting]) => phase === 'Running' && !deleting).map(([name]) => name!);
/**
 * A worker pod's own metrics, read from the host on the pod's address: its health server
 * listens on the pod's network (DESKGATE_WORKER_HOST=0.0.0.0), as the kubelet's httpGet
 * probes and Prometheus reach it.
 */
async function workerMetrics(pod: string): Promise<string> {
  const ip = await kubectl('-n', 'deskgate-workers', 'get', 'pod', pod, '-o', 'jsonpath={.status.podIP}');
  const response = await fetch(`http://${ip}:7421/metrics`);
  assert.equal(response.status, 200, `${pod}'s /metrics on ${ip}:7421`);
  return response.text();
}
/** Desktops a worker pod holds for sessions, from its own metrics. */
async function held(pod: string): Promise<number> {
  // Until the pool's first change (its warm desktop started) the gauge has no `held` line.
  return until(`${pod}'s held desktops`, async () => {
    const found = /^deskgate_worker_desktops\{[^}]*state="held"[^}]*\} (\d+)/m.exec(await workerMetrics(pod))?.[1];
    return found === undefined ? undefined : Number(found);
  }, 15_000);
}
/** The pod-deletion-cost annotation the worker keeps on its own pod (undefined: not set). */
async function deletionCost(pod: string): Promise<string | undefined> {
  const value = await kubectl('-n', 'deskgate-workers', 'get', 'pod', pod, '-o', 'jsonpath={.metadata.annotations.controller\\.kubernetes\\.io/pod-deletion-cost}');
  return value === '' ? undefined : value;
}
const costIs = (pod: string, wanted: number) => until(`${pod}'s deletion cost ${wanted}`, async () => ((await deletionCost(pod)) === String(wanted) ? true : undefined), 20_000);
/** The worker pods that allocated a desktop to `session`, from their logs ("desktop allocated"). */
async function allocatedBy(session: string, pods: string[]): Promise<string[]> {
  const holders = [];
  for (const pod of pods) {
    const lines = (await kubectl('-n', 'deskgate-workers', 'logs', pod)).split('\n');
    const allocated = lines.some((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; session?: string };
        return entry.msg === 'desktop allocated' && entry.session === session;
      } catch {
        return false;
      }
    });
    if (allocated) holders.push(pod);
  }
  return holders;
}
const desktopOf = async (operatorKey: string, session: string) => {
  const listed = (await (await fetch(`${GATEWAY}/v1/sessions`, { headers: { Authorization: `Bearer ${operatorKey}` } })).json()) as { sessions: { name: string; desktop?: { id: string } }[] };
  return listed.sessions.find((entry) => entry.name === session)?.desktop?.id;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** kube-network-policies enforces the NetworkPolicies on the node (scripts/k8s/netpol-up.sh). */
const enforced = process.env.DESKGATE_K8S_NETPOL === 'enforced';

let apiKey = '';
let operatorKey = '';
let mcp: McpConnection | undefined;

before(async () => {
  const started = performance.now();
  await kubectl('apply', '-f', 'deploy/k8s/base/namespaces.yaml');
  await execFile(`${repoRoot}scripts/k8s/make-secrets.sh`, ['--redis-host', '10.96.74.21', '--pin-keys'], { cwd: repoRoot, env: { ...process.env, PATH: `${kubectlBin.replace(/\/kubectl$/, '')}:${process.env.PATH}` } });
  await kubectl('apply', '-k', 'deploy/k8s/overlays/local');
  if (enforced) {
    // What docs/kubernetes.md asks of every cluster: the API server's endpoint address in the
    // worker-api-server policy (the base's is a documentation address that reaches nothing), so
    // the workers may set their pods' deletion cost under an enforcing plugin.
    const apiServer = await kubectl('-n', 'default', 'get', 'endpointslice', '-l', 'kubernetes.io/service-name=kubernetes', '-o', 'jsonpath={.items[0].endpoints[0].addresses[0]}');
    await kubectl('-n', 'deskgate-workers', 'patch', 'networkpolicy', 'worker-api-server', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/egress/0/to', value: [{ ipBlock: { cidr: `${apiServer}/32` } }] }]));
  }
  await kubectl('-n', 'deskgate', 'rollout', 'status', 'statefulset/redis', '--timeout=180s');
  await kubectl('-n', 'deskgate', 'wait', '--for=condition=complete', 'job/deskgate-bootstrap', '--timeout=180s');
  await kubectl('-n', 'deskgate-workers', 'rollout', 'status', 'deployment/deskgate-worker', '--timeout=300s');
  await kubectl('-n', 'deskgate', 'rollout', 'status', 'deployment/deskgate-gateway', '--timeout=180s');
  console.log(`apply -k overlays/local → every pod ready: ${seconds(performance.now() - started)}`);
  apiKey = await secret('DESKGATE_API_KEY');
  operatorKey = await secret('DESKGATE_OPERATOR_KEY');
});

after(async () => {
  await mcp?.close().catch(() => undefined);
});

test('the local overlay runs: Redis, the bootstrap (with the pinned keys), one gateway, one worker; Pod Security admitted them', async () => {
  const pods = JSON.parse(await kubectl('get', 'pods', '-A', '-l', 'app.kubernetes.io/part-of=deskgate', '-o', 'json')) as {
    items: { metadata: { namespace: string; labels: Record<string, string> }; status: { phase: string } }[];
  };
  const by = (name: string) => pods.items.filter((pod) => pod.metadata.labels['app.kubernetes.io/name'] === name).map((pod) => `${pod.metadata.namespace}:${pod.status.phase}`);
  assert.deepEqual(by('redis'), ['deskgate:Running']);
  // One gateway (the local overlay's); the HPA may already have added a second for a new
  // gateway's start-up CPU (it comes back to one at rest: the HPA test).
  assert.ok(['deskgate:Running', 'deskgate:Running,deskgate:Running'].includes(by('gateway').join()), by('gateway').join());
  assert.deepEqual(by('worker'), ['deskgate-workers:Running']);
  assert.deepEqual(by('bootstrap'), ['deskgate:Succeeded']);
  // The bootstrap made the keys pinned in the Secret, and never prints a key it was given (a
  // Job's log outlives the Secret); the next tests use them.
  const log = await kubectl('-n', 'deskgate', 'logs', 'job/deskgate-bootstrap');
  assert.match(log, /API key: \(the DESKGATE_API_KEY you set; not printed\)/);
  assert.match(log, /Operator key: \(the DESKGATE_OPERATOR_KEY you set; not printed\)/);
  assert.ok(!log.includes(apiKey) && !log.includes(operatorKey), 'no key in the log');
  // The gateway answers its probes only for allowed hosts; through the Service it is one of them.
  const ready = await fetch(`${GATEWAY}/readyz`);
  assert.equal(ready.status, 200, await ready.text());
  // (fetch cannot set Host: node:http can.)
  const foreign = await new Promise<number>((resolve, reject) =>
    get({ host: '10.96.74.20', port: 7420, path: '/readyz', headers: { Host: 'evil.example' } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on('error', reject),
  );
  assert.equal(foreign, 403, 'another Host is refused');
});

test('a session through the gateway Service: the official MCP client gets a screenshot of a worker pod desktop; the operator sees it', async () => {
  mcp = await connect('2026-07-28', `${GATEWAY}/mcp/k8s`, apiKey);
  // The base policy (seed tiers, auto approval) grants nothing on start.
  const granted = await mcp.call('request_access', { apps: ['mousepad'], reason: 'the cluster test' });
  assert.ok(!granted.isError, textOf(granted));
  const started = performance.now();
  const shot = await mcp.call('screenshot');
  console.log(`first screenshot (desktop allocated from the warm pool): ${seconds(performance.now() - started)}`);
  assert.ok(!shot.isError, textOf(shot));
  const image = decodeImage(imageOf(shot).data);
  assert.deepEqual({ width: image.width, height: image.height }, { width: 1280, height: 800 });
  const click = await mcp.call('left_click', { coordinate: [640, 400] });
  assert.equal(errorKind(click), 'no_app_window', textOf(click));
  // A call that changes nothing of the session's state is answered straight from the worker pod
  // to the gateway pod (its pod IP, port 7422); the first request opened the connection.
  assert.ok(!(await mcp.call('cursor_position')).isError);
  const { direct } = await actionReplies(GATEWAY, operatorKey);
  assert.ok(direct >= 1, `replies straight from the worker pod: ${direct}`);
  const sessions = await fetch(`${GATEWAY}/v1/sessions`, { headers: { Authorization: `Bearer ${operatorKey}` } });
  assert.equal(sessions.status, 200);
  assert.match(await sessions.text(), /"name":"k8s"/);
  const [pod] = await workerPods();
  assert.equal(await held(pod!), 1, `the worker pod ${pod} holds the session's desktop`);
  // The worker keeps its pod's deletion cost at the desktops it holds (its service account, narrowed to its own pod).
  await costIs(pod!, 1);
  // That account's token is root's alone: a desktop's user cannot read it.
  const token = '/var/run/secrets/kubernetes.io/serviceaccount/token';
  // (0400 is asked for; the kubelet writes the token itself 0600 for a pod of one uid: root's either way.)
  assert.match(await kubectl('-n', 'deskgate-workers', 'exec', pod!, '--', 'stat', '-L', '-c', '%a %u', token), /^[46]00 0$/);
  const asDesktopUser = await kubectl('-n', 'deskgate-workers', 'exec', pod!, '--', 'sh', '-c', `setpriv --reuid=deskgate-desktop-0 --regid=deskgate-desktop-0 --clear-groups cat ${token} 2>&1; echo "exit $?"`);
  assert.match(asDesktopUser, /Permission denied[\s\S]*exit 1$/, asDesktopUser);
  const unauthenticated = await fetch(`${GATEWAY}/v1/sessions`);
  assert.equal(unauthenticated.status, 401);
});

test('a worker pod killed mid-call: the call answers worker_lost, the new pod takes the session, its next call works on a fresh desktop', async () => {
  assert.ok(mcp, 'the session of the previous test');
  const [victim] = await workerPods();
  assert.ok(victim);
  const lost = await desktopOf(operatorKey, 'k8s');
  const waiting = mcp.call('wait', { duration: 30 });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const killed = performance.now();
  await kubectl('-n', 'deskgate-workers', 'delete', 'pod', victim, '--grace-period=0', '--force', '--wait=false');
  const answer = await waiting;
  console.log(`worker pod killed → the call's answer: ${seconds(performance.now() - killed)}`);
  assert.equal(errorKind(answer), 'worker_lost', textOf(answer));

  await kubectl('-n', 'deskgate-workers', 'rollout', 'status', 'deployment/deskgate-worker', '--timeout=300s');
  const [replacement] = await workerPods();
  assert.ok(replacement && replacement !== victim, `a new worker pod (${replacement})`);
  console.log(`worker pod killed → its replacement ready: ${seconds(performance.now() - killed)}`);
  const fresh = await mcp.call('screenshot');
  assert.ok(!fresh.isError, textOf(fresh));
  assert.match(textOf(fresh), /desktop was lost/);
  const now = await desktopOf(operatorKey, 'k8s');
  assert.ok(now && now !== lost, `a fresh desktop (${lost} → ${now})`);
  assert.equal(await held(replacement), 1, `the new pod ${replacement} holds it`);
});

interface Demand { workers: number; desktops: { busy: number; warm: number; free: number }; sessions: { waiting: number }; wanted: { desktops: number; workers: number } }
async function demand(): Promise<Demand> {
  const response = await fetch(`${GATEWAY}/v1/fleet/demand`, { headers: { Authorization: `Bearer ${await secret('DESKGATE_FLEET_TOKEN')}` } });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as Demand;
}
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
const deploymentReplicas = async () => Number(await kubectl('-n', 'deskgate-workers', 'get', 'deployment/deskgate-worker', '-o', 'jsonpath={.spec.replicas}'));
/** The HorizontalPodAutoscaler KEDA made for the ScaledObject (keda-hpa-<name>). */
const kedaHpa = async () => JSON.parse(await kubectl('-n', 'deskgate-workers', 'get', 'hpa', 'keda-hpa-deskgate-worker', '-o', 'json')) as {
  spec: { minReplicas: number; maxReplicas: number; scaleTargetRef: { name: string }; metrics: { external: { metric: { name: string } } }[] };
  status: { desiredReplicas: number };
};
/** A Kubernetes quantity as a number ("4", "4000m", "1500m"). */
const quantity = (value: string) => (value.endsWith('m') ? Number(value.slice(0, -1)) / 1000 : Number(value));
/**
 * The value the HPA reads for the workers: asked of the external-metrics API (the API server's
 * aggregation layer → keda-adapter → keda-operator, which polls GET /v1/fleet/demand).
 */
async function externalMetric(): Promise<number> {
  const name = (await kedaHpa()).spec.metrics[0]!.external.metric.name;
  const answer = JSON.parse(await kubectl('get', '--raw', `/apis/external.metrics.k8s.io/v1beta1/namespaces/deskgate-workers/${name}?labelSelector=${encodeURIComponent('scaledobject.keda.sh/name=deskgate-worker')}`)) as { items: { value: string }[] };
  return quantity(answer.items[0]!.value);
}
const replicasAre = (wanted: number, timeoutMs: number) => until(`KEDA scales the workers to ${wanted}`, async () => ((await deploymentReplicas()) === wanted ? true : undefined), timeoutMs);

test('KEDA runs as pods in its namespace (Pod Security restricted), with rights only where it scales', async () => {
  const pods = (await kubectl('-n', 'keda', 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.spec.serviceAccountName}:{.status.phase}:{.status.containerStatuses[0].ready}{"\\n"}{end}')).split('\n').sort();
  assert.deepEqual(pods, ['keda-metrics-apiserver:Running:true', 'keda-operator:Running:true']);
  assert.equal(await kubectl('get', 'namespace', 'keda', '-o', 'jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}'), 'restricted');
  // Asked of the API server as each account (kubectl auth can-i exits 1 on "no").
  const can = async (account: string, ...what: string[]) => {
    try {
      return (await execFile(kubectlBin, ['auth', 'can-i', `--as=system:serviceaccount:keda:${account}`, ...what])).stdout.trim();
    } catch (error) {
      return ((error as { stdout?: string }).stdout ?? String(error)).trim();
    }
  };
  const rights = {
    'operator: secrets in deskgate-workers': await can('keda-operator', 'get', 'secrets', '-n', 'deskgate-workers'),
    'operator: secrets in deskgate': await can('keda-operator', 'get', 'secrets', '-n', 'deskgate'),
    'operator: scale the worker Deployment': await can('keda-operator', 'patch', 'deployments.apps', '--subresource=scale', '-n', 'deskgate-workers'),
    'operator: scale the gateway Deployment': await can('keda-operator', 'patch', 'deployments.apps', '--subresource=scale', '-n', 'deskgate'),
    'operator: secrets in kube-system': await can('keda-operator', 'get', 'secrets', '-n', 'kube-system'),
    'adapter: ScaledObjects in deskgate-workers': await can('keda-metrics-apiserver', 'list', 'scaledobjects.keda.sh', '-n', 'deskgate-workers'),
    'adapter: secrets in deskgate-workers': await can('keda-metrics-apiserver', 'get', 'secrets', '-n', 'deskgate-workers'),
  };
  assert.deepEqual(rights, {
    'operator: secrets in deskgate-workers': 'yes',
    'operator: secrets in deskgate': 'no',
    'operator: scale the worker Deployment': 'yes',
    'operator: scale the gateway Deployment': 'no',
    'operator: secrets in kube-system': 'no',
    'adapter: ScaledObjects in deskgate-workers': 'yes',
    'adapter: secrets in deskgate-workers': 'no',
  });
});

test('KEDA runs the workers\' ScaledObject: Ready, its HPA reads the fleet\'s wanted.desktops through the external-metrics API', async () => {
  const ready = await until('the ScaledObject Ready', async () => {
    const status = await kubectl('-n', 'deskgate-workers', 'get', 'scaledobject', 'deskgate-worker', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
    return status === 'True' ? status : undefined;
  }, 60_000);
  assert.equal(ready, 'True');
  const hpa = await kedaHpa();
  assert.deepEqual({ min: hpa.spec.minReplicas, max: hpa.spec.maxReplicas, target: hpa.spec.scaleTargetRef.name }, { min: 1, max: 3, target: 'deskgate-worker' });
  // What KEDA serves to the HPA is what the gateways' demand route says.
  const metric = await until('the external metric equal to wanted.desktops', async () => {
    const [served, asked] = [await externalMetric(), (await demand()).wanted.desktops];
    return served === asked ? { served, asked } : undefined;
  }, 30_000);
  console.log(`external metric ${hpa.spec.metrics[0]!.external.metric.name} = wanted.desktops = ${metric.served}`);
  assert.equal(await deploymentReplicas(), Math.ceil(metric.asked / 2));
});

test('KEDA scales on the fleet\'s demand: a warm desktop at once, a new worker pod for a waiting session; scale-in removes the idle pod (deletion cost) and cuts no session', async () => {
  assert.ok(mcp, 'the session of the previous tests');
  assert.equal(await deploymentReplicas(), 1, 'one worker before the load');
  // The local worker runs 2 desktops: session k8s holds one, the warm spare is the other.
  const warm = await connect('2026-07-28', `${GATEWAY}/mcp/k8s-warm`, apiKey);
  const cold = await connect('2026-07-28', `${GATEWAY}/mcp/k8s-cold`, apiKey);
  try {
    // A new session's first calls: its grant, then a screenshot (on its desktop).
    const firstCalls = async (session: McpConnection) => {
      const granted = await session.call('request_access', { apps: ['mousepad'], reason: 'the cluster test' });
      return granted.isError ? granted : session.call('screenshot');
    };
    let started = performance.now();
    const warmShot = await firstCalls(warm);
    assert.ok(!warmShot.isError, textOf(warmShot));
    console.log(`demand → ready desktop, warm (a spare of a running worker): ${seconds(performance.now() - started)}`);

    // The spare is taken: busy 2 + the warm target 1 is more than one worker's 2 desktops, so
    // the demand route asks for a second worker and KEDA adds it — nobody else scales here. A
    // third session, beyond the first worker's desktops, waits for it (DESKGATE_DESKTOP_WAIT_SECONDS).
    const rose = performance.now();
    const [first] = await workerPods();
    assert.ok(first);
    const asked = await until('wanted.workers = 2', async () => {
      const now = await demand();
      return now.wanted.workers === 2 ? now : undefined;
    }, 15_000);
    console.log(`demand once the spare is taken: ${JSON.stringify(asked)}`);
    started = performance.now();
    const coldShot = firstCalls(cold);
    await replicasAre(2, 60_000);
    console.log(`demand rises → KEDA's HPA sets 2 workers: ${seconds(performance.now() - rose)}`);
    const answer = await coldShot;
    assert.ok(!answer.isError, textOf(answer));
    console.log(`demand rises → the new pod's desktop serves the third session: ${seconds(performance.now() - rose)} (the session waited ${seconds(performance.now() - started)})`);
    const pods = await workerPods();
    assert.equal(pods.length, 2);
    const second = pods.find((pod) => pod !== first)!;
    // Where each session is, from the workers' logs and from their gauges.
    const placement = { coldAllocatedBy: await allocatedBy('k8s-cold', pods), held: { [first]: await held(first), [second]: await held(second) } };
    console.log(`placement: ${JSON.stringify(placement)}`);
    assert.deepEqual(placement, { coldAllocatedBy: [second], held: { [first]: 2, [second]: 1 } }, 'the third session is on the new pod');
    await costIs(first, 2);
    await costIs(second, 1);
    // Three sessions in use + the warm target: KEDA serves 4 desktops, the HPA keeps 2 workers.
    assert.equal(await until('the external metric at 4', async () => ((await externalMetric()) === 4 ? 4 : undefined), 20_000), 4);
    assert.equal((await kedaHpa()).status.desiredReplicas, 2);

    // Load goes, from the older pod: the sessions k8s and k8s-warm end; k8s-cold, on the newer
    // pod, goes on. Without deletion costs the ReplicaSet would remove the newer pod (ready for
    // the shorter time) and cut k8s-cold; with them, the idle one goes.
    const coldDesktop = await desktopOf(operatorKey, 'k8s-cold');
    started = performance.now();
    for (const name of ['k8s', 'k8s-warm']) {
      const ended = await fetch(`${GATEWAY}/v1/sessions/${name}`, { method: 'DELETE', headers: { Authorization: `Bearer ${operatorKey}` } });
      assert.equal(ended.status, 200, await ended.text());
    }
    const calm = await until('wanted.workers = 1', async () => {
      const now = await demand();
      return now.wanted.workers === 1 ? now : undefined;
    }, 15_000);
    console.log(`demand after the load: ${JSON.stringify(calm)}`);
    await costIs(first, 0);
    console.log(`sessions ended → the idle pod's deletion cost 0: ${seconds(performance.now() - started)}`);
    await replicasAre(1, 90_000);
    console.log(`sessions ended → KEDA's HPA sets 1 worker: ${seconds(performance.now() - started)}`);
    await kubectl('-n', 'deskgate-workers', 'wait', '--for=delete', `pod/${first}`, '--timeout=90s');
    console.log(`sessions ended → the idle pod drained and gone: ${seconds(performance.now() - started)}`);
    assert.deepEqual(await workerPods(), [second]);
    const shot = await cold.call('screenshot');
    assert.ok(!shot.isError, textOf(shot));
    assert.doesNotMatch(textOf(shot), /desktop was lost/, 'the session on the remaining pod kept its desktop');
    assert.equal(await desktopOf(operatorKey, 'k8s-cold'), coldDesktop, 'the same desktop');
    assert.equal(await held(second), 1);
    // Never below the sessions in use: one session + the warm target is 2 desktops, one worker's
    // worth, and that is what KEDA serves and the HPA keeps.
    assert.equal(await until('the external metric at 2', async () => ((await externalMetric()) === 2 ? 2 : undefined), 20_000), 2);
    const hpa = await kedaHpa();
    assert.equal(hpa.status.desiredReplicas, 1);
    assert.equal(await deploymentReplicas(), 1);
  } finally {
    await warm.close().catch(() => undefined);
    await cold.close().catch(() => undefined);
  }
});

/** The gateways' Deployment: replicas asked for (by the HPA) and ready. */
async function gatewayReplicas(): Promise<{ wanted: number; ready: number }> {
  const [wanted, ready] = (await kubectl('-n', 'deskgate', 'get', 'deployment/deskgate-gateway', '-o', 'jsonpath={.spec.replicas} {.status.readyReplicas}')).split(' ');
  return { wanted: Number(wanted), ready: Number(ready || 0) };
}
const gatewayPods = async () => (await kubectl('-n', 'deskgate', 'get', 'pods', '-l', 'app.kubernetes.io/name=gateway', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\\n"}{end}'))
  .split('\n').filter(Boolean).map((line) => line.split(' ')).filter(([, deleting]) => !deleting).map(([name]) => name!);
/** CPU of each gateway pod in millicores, as the resource-metrics API (metrics-server) serves it. */
async function gatewayCpu(): Promise<Record<string, number>> {
  const answer = JSON.parse(await kubectl('get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/deskgate/pods?labelSelector=${encodeURIComponent('app.kubernetes.io/name=gateway')}`)) as {
    items: { metadata: { name: string }; containers: { usage: { cpu: string } }[] }[];
  };
  const millicores = (value: string) => (value.endsWith('n') ? Number(value.slice(0, -1)) / 1e6 : value.endsWith('u') ? Number(value.slice(0, -1)) / 1e3 : quantity(value) * 1000);
  return Object.fromEntries(answer.items.map((pod) => [pod.metadata.name, Math.round(pod.containers.reduce((sum, container) => sum + millicores(container.usage.cpu), 0))]));
}
/**
 * What a client retries when a gateway stops (services/gateway/src/main.ts): the connection
 * closed under a request sent on a kept-alive connection in the instant the gateway closed it
 * at the end of its drain (the request never reached the gateway). A draining gateway serves
 * the requests that reach it on open connections, so anything else — a 503 included — is a
 * failure.
 */
function retryable(error: unknown): 'connection closed' | undefined {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (String(error) === 'TypeError: fetch failed' && (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET')) return 'connection closed';
  return undefined;
}
const described = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${String(error)} (${cause.code ?? ''} ${cause.message ?? ''})` : String(error);
};

/**
 * Calls through the gateway Service until `stop()`: `clients` MCP connections, each calling
 * list_tools in a loop. A call a stopping gateway could not take (`retryable`) is retried once,
 * a second later, and counted by why.
 */
function mcpTraffic(clients: number) {
  let running = true;
  const counts = { calls: 0, retried: { 'connection closed': 0 }, failed: [] as string[] };
  const loops = Array.from({ length: clients }, async (_, index) => {
    const session = await connect('2026-07-28', `${GATEWAY}/mcp/k8s-traffic-${index}`, apiKey);
    try {
      while (running) {
        try {
          await session.listTools();
        } catch (error) {
          const why = retryable(error);
          if (!why) throw error;
          counts.retried[why]++;
          await new Promise((resolve) => setTimeout(resolve, 1000));
          await session.listTools();
        }
        counts.calls++;
      }
    } catch (error) {
      counts.failed.push(described(error));
    } finally {
      await session.close().catch(() => undefined);
    }
  });
  return { counts, stop: async () => { running = false; await Promise.all(loops); return counts; } };
}

test('the gateway HPA on CPU (metrics-server): metrics.k8s.io measures the gateway pods; MCP load through the Service adds a gateway, and it goes when the load does', async () => {
  // kubectl top reads the resource-metrics API, served by metrics-server through the aggregation layer.
  const top = await until('kubectl top for the gateway pods', async () => {
    try {
      return await kubectl('-n', 'deskgate', 'top', 'pods', '-l', 'app.kubernetes.io/name=gateway', '--no-headers');
    } catch {
      return undefined;
    }
  }, 90_000);
  console.log(`kubectl top pods (gateway): ${top}`);
  assert.match(top, /^deskgate-gateway-\S+\s+\d+m\s+\d+Mi$/m);
  // The HPA reads it; earlier tests' screenshots may have raised the gateways: wait for the rest state.
  await until('the HPA reading CPU with one gateway at rest', async () => {
    const hpa = JSON.parse(await kubectl('-n', 'deskgate', 'get', 'hpa', 'deskgate-gateway', '-o', 'json')) as {
      status: { currentReplicas?: number; currentMetrics?: { resource?: { current?: { averageUtilization?: number } } }[]; conditions?: { type: string; status: string }[] };
    };
    const active = hpa.status.conditions?.find((condition) => condition.type === 'ScalingActive')?.status === 'True';
    const utilization = hpa.status.currentMetrics?.[0]?.resource?.current?.averageUtilization;
    const { wanted, ready } = await gatewayReplicas();
    return active && utilization !== undefined && wanted === 1 && ready === 1 && (await gatewayPods()).length === 1 ? utilization : undefined;
  }, 180_000);
  const [first] = await gatewayPods();
  // (A gateway the HPA just removed may still be listed while it drains: only the one left.)
  const atRest = Object.fromEntries(Object.entries(await gatewayCpu()).filter(([pod]) => pod === first));
  console.log(`gateway CPU at rest (metrics.k8s.io): ${JSON.stringify(atRest)} of a 50m request`);
  assert.ok(first && atRest[first] !== undefined, 'metrics.k8s.io has the gateway pod');

  const started = performance.now();
  const traffic = mcpTraffic(4);
  let counts;
  try {
    await until('the HPA asking for 2 gateways', async () => ((await gatewayReplicas()).wanted === 2 ? true : undefined), 180_000);
    const raised = performance.now();
    console.log(`MCP load starts → the HPA sets 2 gateways: ${seconds(raised - started)} (CPU then ${JSON.stringify(await gatewayCpu())})`);
    await until('the second gateway Ready', async () => ((await gatewayReplicas()).ready === 2 ? true : undefined), 120_000);
    console.log(`MCP load starts → the new gateway pod Ready: ${seconds(performance.now() - started)}`);
  } finally {
    counts = await traffic.stop();
  }
  console.log(`MCP calls through the Service during the load: ${JSON.stringify({ ...counts, failed: counts.failed.length })}`);
  assert.deepEqual(counts.failed, []);
  assert.ok(counts.calls > 0);
  assert.equal((await gatewayPods()).length, 2);

  const stopped = performance.now();
  await until('the HPA back to 1 gateway', async () => ((await gatewayReplicas()).wanted === 1 ? true : undefined), 300_000);
  console.log(`load gone → the HPA sets 1 gateway: ${seconds(performance.now() - stopped)}`);
  await until('one gateway pod left', async () => ((await gatewayPods()).length === 1 && (await gatewayReplicas()).ready === 1 ? true : undefined), 60_000);
  console.log(`load gone → back to one gateway pod: ${seconds(performance.now() - stopped)}`);
  const ready = await fetch(`${GATEWAY}/readyz`);
  assert.equal(ready.status, 200);
});

/** The eviction API (what `kubectl drain` calls for each pod), as the cluster's admin: its status and answer. */
async function evict(namespace: string, pod: string): Promise<{ status: number; body: { message?: string; details?: { causes?: { reason: string; message: string }[] } } }> {
  const kubeconfig = process.env.KUBECONFIG ?? `${repoRoot}.deskgate/k8s/cluster/admin.kubeconfig`;
  const token = /token: "([^"]+)"/.exec(readFileSync(kubeconfig, 'utf8'))?.[1];
  assert.ok(token, `a token in ${kubeconfig}`);
  // The API server's certificate, checked (it names localhost, not 127.0.0.1).
  const ca = readFileSync(`${dirname(kubeconfig)}/pki/apiserver.crt`);
  const payload = JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace } });
  return new Promise((resolve, reject) => {
    const sent = httpsRequest({ host: '127.0.0.1', servername: 'localhost', port: 6443, ca, method: 'POST', path: `/api/v1/namespaces/${namespace}/pods/${pod}/eviction`, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    sent.on('error', reject);
    sent.end(payload);
  });
}

test('a node drain (the eviction API, node cordoned): the gateway budget stops it at one gateway while the Service answers MCP; a worker holding a session drains, the session\'s running call finishes and its next call says its desktop was lost', async () => {
  // Two gateways, as production's minimum: the budget (maxUnavailable 1) lets one go.
  await kubectl('-n', 'deskgate', 'patch', 'hpa', 'deskgate-gateway', '--type=merge', '-p', '{"spec":{"minReplicas":2}}');
  await until('two gateways Ready', async () => ((await gatewayReplicas()).ready === 2 && (await gatewayPods()).length === 2 ? true : undefined), 120_000);
  // One worker, holding one session: the earlier test's last session ends first.
  const ended = await fetch(`${GATEWAY}/v1/sessions/k8s-cold`, { method: 'DELETE', headers: { Authorization: `Bearer ${operatorKey}` } });
  assert.equal(ended.status, 200, await ended.text());
  const drained = await connect('2026-07-28', `${GATEWAY}/mcp/k8s-drain`, apiKey);
  const traffic = mcpTraffic(2);
  let cordoned = false;
  let desktop: string | undefined;
  try {
    const granted = await drained.call('request_access', { apps: ['mousepad'], reason: 'the cluster test' });
    assert.ok(!granted.isError, textOf(granted));
    assert.ok(!(await drained.call('screenshot')).isError);
    desktop = await desktopOf(operatorKey, 'k8s-drain');
    const [worker] = await workerPods();
    assert.ok(desktop && worker);
    assert.ok((await allocatedBy('k8s-drain', [worker])).length === 1, `${worker} holds the session's desktop`);

    await kubectl('cordon', 'node1');
    cordoned = true;
    const [gatewayA, gatewayB] = await gatewayPods();
    const firstEviction = await evict('deskgate', gatewayA!);
    assert.equal(firstEviction.status, 201, JSON.stringify(firstEviction.body));
    // Its replacement cannot be scheduled (the only node is cordoned): the budget holds the last one.
    const refusals = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await evict('deskgate', gatewayB!);
      refusals.push(refused);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    for (const refused of refusals) {
      assert.equal(refused.status, 429, JSON.stringify(refused.body));
      assert.match(refused.body.message ?? '', /would violate the pod's disruption budget/);
      assert.match(refused.body.details?.causes?.map((cause) => `${cause.reason}: ${cause.message}`).join('; ') ?? '', /DisruptionBudget: The disruption budget deskgate-gateway needs 1 healthy pods and has 1 currently/);
    }
    console.log(`second gateway's eviction: ${refusals[0]!.status} ${refusals[0]!.body.message} (${refusals[0]!.body.details?.causes?.[0]?.message})`);
    await kubectl('-n', 'deskgate', 'wait', '--for=delete', `pod/${gatewayA}`, '--timeout=60s');
    const left = await gatewayPods();
    assert.ok(left.includes(gatewayB!) && !left.includes(gatewayA!), `${gatewayB} stays, ${gatewayA} went: ${left}`);
    assert.equal((await gatewayReplicas()).ready, 1, 'one gateway serves while the node drains');

    // The worker: its budget (maxUnavailable 1) lets it go; SIGTERM is its drain, so the call
    // running on its desktop finishes, and nothing new is given to it.
    const waiting = drained.call('wait', { duration: 3 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const evictedAt = performance.now();
    const workerEviction = await evict('deskgate-workers', worker);
    assert.equal(workerEviction.status, 201, JSON.stringify(workerEviction.body));
    const answer = await waiting;
    assert.ok(!answer.isError, `the running call finished through the drain: ${textOf(answer)}`);
    console.log(`worker evicted → its running call answered: ${seconds(performance.now() - evictedAt)}`);
    await kubectl('-n', 'deskgate-workers', 'wait', '--for=delete', `pod/${worker}`, '--timeout=60s');
    console.log(`worker evicted → drained and gone: ${seconds(performance.now() - evictedAt)}`);
    assert.match(await kubectl('-n', 'deskgate-workers', 'get', 'pods', '-l', 'app.kubernetes.io/name=worker', '-o', 'jsonpath={.items[*].status.phase}'), /^Pending$/, 'its replacement waits for the cordoned node');
    // Not a silent cut: the session's next call says its desktop is gone, and how to go on.
    const lost = await drained.call('screenshot');
    assert.equal(errorKind(lost), 'worker_lost', textOf(lost));
    assert.match(textOf(lost), /desktop of this session is gone \(its worker stopped\)\. Call the tool again to get a new desktop/);
    assert.equal(await desktopOf(operatorKey, 'k8s-drain'), undefined, 'the session holds no desktop');
  } finally {
    if (cordoned) await kubectl('uncordon', 'node1');
    const counts = await traffic.stop();
    console.log(`MCP calls through the Service during the drain: ${JSON.stringify({ ...counts, failed: counts.failed.length })}`);
    assert.deepEqual(counts.failed, []);
    assert.ok(counts.calls > 0);
  }
  try {
    // Uncordoned: the replacements run; the session's call again waits for the new worker and
    // gets a fresh desktop, with the grant it had.
    const uncordoned = performance.now();
    const fresh = await drained.call('screenshot');
    assert.ok(!fresh.isError, textOf(fresh));
    console.log(`uncordoned → the session's call served on a fresh desktop of the new worker: ${seconds(performance.now() - uncordoned)}`);
    const now = await desktopOf(operatorKey, 'k8s-drain');
    assert.ok(now && now !== desktop, `a fresh desktop (${desktop} → ${now})`);
    await until('two gateways Ready again', async () => ((await gatewayReplicas()).ready === 2 ? true : undefined), 120_000);
  } finally {
    await drained.close().catch(() => undefined);
    await kubectl('-n', 'deskgate', 'patch', 'hpa', 'deskgate-gateway', '--type=merge', '-p', '{"spec":{"minReplicas":1}}');
  }
});

/**
 * A TCP connection opened from inside a pod (bash's /dev/tcp; optionally as another user of the
 * pod): 'connected', or 'blocked' when it is refused or gets no answer within 5 s (a policy's
 * drop).
 */
async function tcpFrom(namespace: string, pod: string, address: string, port: number, asUser?: string): Promise<'connected' | 'blocked'> {
  const open = `timeout 5 bash -c 'exec 3<>/dev/tcp/${address}/${port}'`;
  const as = asUser ? `setpriv --reuid=${asUser} --regid=${asUser} --clear-groups ` : '';
  const said = await kubectl('-n', namespace, 'exec', pod, '--', 'sh', '-c', `${as}${open} 2>/dev/null && echo connected || echo blocked`);
  assert.match(said, /^(connected|blocked)$/, said);
  return said as 'connected' | 'blocked';
}

test('NetworkPolicies enforced (kube-network-policies on the node): only the paths the policies open connect', { skip: enforced ? false : 'kube-network-policies is not running (scripts/k8s/netpol-up.sh; DESKGATE_K8S_NETPOL=enforced)' }, async () => {
  const REDIS = '10.96.74.21';
  const GATEWAY_IP = '10.96.74.20';
  // A pod of another namespace, with no policy of its own (the image is the gateway's).
  await kubectl('create', 'namespace', 'deskgate-netpol-probe');
  try {
    await kubectl('-n', 'deskgate-netpol-probe', 'run', 'probe', '--image=deskgate/service:k8s-local', '--image-pull-policy=Never', '--restart=Never', '--command', '--', 'sleep', '600');
    await kubectl('-n', 'deskgate-netpol-probe', 'wait', '--for=condition=Ready', 'pod/probe', '--timeout=120s');
    const [gateway] = (await kubectl('-n', 'deskgate', 'get', 'pods', '-l', 'app.kubernetes.io/name=gateway', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ');
    const [worker] = await workerPods();
    assert.ok(gateway && worker);
    const gatewayPodIp = await kubectl('-n', 'deskgate', 'get', 'pod', gateway, '-o', 'jsonpath={.status.podIP}');
    const paths = {
      'probe → gateway:7420 (open to anyone)': await tcpFrom('deskgate-netpol-probe', 'probe', GATEWAY_IP, 7420),
      'probe → Redis:6379': await tcpFrom('deskgate-netpol-probe', 'probe', REDIS, 6379),
      'gateway → Redis:6379': await tcpFrom('deskgate', gateway, REDIS, 6379),
      'worker → Redis:6379': await tcpFrom('deskgate-workers', worker, REDIS, 6379),
      'worker → gateway:7420': await tcpFrom('deskgate-workers', worker, GATEWAY_IP, 7420),
      'desktop user → gateway:7420': await tcpFrom('deskgate-workers', worker, GATEWAY_IP, 7420, 'deskgate-desktop-0'),
      'gateway → worker health:7421': await tcpFrom('deskgate', gateway, (await kubectl('-n', 'deskgate-workers', 'get', 'pod', worker, '-o', 'jsonpath={.status.podIP}')), 7421),
      'worker → gateway pod replies:7422': await tcpFrom('deskgate-workers', worker, gatewayPodIp, 7422),
      'probe → gateway pod replies:7422': await tcpFrom('deskgate-netpol-probe', 'probe', gatewayPodIp, 7422),
    };
    console.log(`connections under the policies: ${JSON.stringify(paths)}`);
    assert.deepEqual(paths, {
      'probe → gateway:7420 (open to anyone)': 'connected',
      'probe → Redis:6379': 'blocked',
      'gateway → Redis:6379': 'connected',
      'worker → Redis:6379': 'connected',
      'worker → gateway:7420': 'blocked',
      'desktop user → gateway:7420': 'blocked',
      'gateway → worker health:7421': 'blocked',
      'worker → gateway pod replies:7422': 'connected',
      'probe → gateway pod replies:7422': 'blocked',
    });
  } finally {
    await kubectl('delete', 'namespace', 'deskgate-netpol-probe', '--wait=false');
  }
});
