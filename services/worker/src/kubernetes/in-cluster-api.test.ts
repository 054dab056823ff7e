/**
 * The in-cluster API client against a real HTTPS server with certificates made by openssl:
 * the PATCH a worker sends (path, merge patch, bearer token read fresh each time), the
 * server checked against the service account's CA only, errors that carry the API's message
 * and never the token.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { after, before, test } from 'node:test';
import { InClusterApi, KubernetesApiError, apiServerFromEnv } from './in-cluster-api.ts';

const dir = mkdtempSync(`${tmpdir()}/deskgate-kube-api-`);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
/** A CA and a server certificate for 127.0.0.1 signed by it; `other` is a CA that signed nothing here. */
function makeCertificates() {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=test-ca', '-days', '1');
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other.key', '-out', 'other.crt', '-subj', '/CN=other-ca', '-days', '1');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=kube-apiserver');
  writeFileSync(`${dir}/san.ext`, 'subjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.ext');
}

interface Seen {
  method: string;
  url: string;
  authorization: string;
  contentType: string;
  body: string;
}
const seen: Seen[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };
let server: Server;
let port = 0;

before(async () => {
  makeCertificates();
  server = createServer({ key: readFileSync(`${dir}/server.key`), cert: readFileSync(`${dir}/server.crt`) }, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization ?? '', contentType: request.headers['content-type'] ?? '', body });
      response.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A service-account folder holding `token` and the CA at `caFile`. */
function credentials(name: string, token: string, caFile: string): string {
  const folder = `${dir}/${name}`;
  execFileSync('mkdir', ['-p', folder]);
  writeFileSync(`${folder}/token`, `${token}\n`);
  writeFileSync(`${folder}/ca.crt`, readFileSync(`${dir}/${caFile}`));
  return folder;
}

test('the API server comes from the environment the kubelet sets; none outside a pod', () => {
  assert.deepEqual(apiServerFromEnv({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }), { host: '10.96.0.1', port: 443 });
  assert.deepEqual(apiServerFromEnv({ KUBERNETES_SERVICE_HOST: '10.96.0.1' }), { host: '10.96.0.1', port: 443 });
  assert.equal(apiServerFromEnv({}), undefined);
  assert.equal(apiServerFromEnv({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: 'https' }), undefined);
});

test("a pod's annotations: one merge patch of metadata.annotations, with the token read fresh for every request", async () => {
  seen.length = 0;
  answer = { status: 200, body: '{"kind":"Pod"}' };
  const folder = credentials('sa', 'token-one', 'ca.crt');
  const api = new InClusterApi({ server: { host: '127.0.0.1', port }, credentialsDir: folder });
  await api.annotatePod('deskgate-workers', 'deskgate-worker-abc', { 'controller.kubernetes.io/pod-deletion-cost': '3' });
  // The kubelet rotates the projected token: the next request carries the new one.
  writeFileSync(`${folder}/token`, 'token-two\n');
  await api.annotatePod('deskgate-workers', 'deskgate-worker-abc', { 'controller.kubernetes.io/pod-deletion-cost': '0' });
  assert.deepEqual(seen, [
    {
      method: 'PATCH',
      url: '/api/v1/namespaces/deskgate-workers/pods/deskgate-worker-abc',
      authorization: 'Bearer token-one',
      contentType: 'application/merge-patch+json',
      body: '{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"3"}}}',
    },
    {
      method: 'PATCH',
      url: '/api/v1/namespaces/deskgate-workers/pods/deskgate-worker-abc',
      authorization: 'Bearer token-two',
      contentType: 'application/merge-patch+json',
      body: '{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"0"}}}',
    },
  ]);
});

test("a refusal carries the API's status and message, never the token", async () => {
  answer = { status: 403, body: '{"kind":"Status","message":"pods \\"other\\" is forbidden: a worker may change only its own pod"}' };
  const api = new InClusterApi({ server: { host: '127.0.0.1', port }, credentialsDir: credentials('sa-refused', 'secret-token-xyz', 'ca.crt') });
  const error = await api.annotatePod('deskgate-workers', 'other', { a: '1' }).then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof KubernetesApiError);
  assert.equal(error.status, 403);
  assert.match(error.message, /^PATCH \/api\/v1\/namespaces\/deskgate-workers\/pods\/other: 403 pods "other" is forbidden: a worker may change only its own pod$/);
  assert.doesNotMatch(error.message, /secret-token-xyz/);
});

test('a server the service account’s CA did not sign is refused before the token is sent', async () => {
  seen.length = 0;
  const api = new InClusterApi({ server: { host: '127.0.0.1', port }, credentialsDir: credentials('sa-other-ca', 'token-three', 'other.crt') });
  await assert.rejects(api.annotatePod('deskgate-workers', 'w', { a: '1' }), (error: KubernetesApiError) => error.status === 0 && /certificate/i.test(error.message));
  assert.equal(seen.length, 0, 'nothing reached the server');
});

test('no mounted token: a clear error, nothing sent', async () => {
  seen.length = 0;
  const api = new InClusterApi({ server: { host: '127.0.0.1', port }, credentialsDir: `${dir}/missing` });
  await assert.rejects(api.annotatePod('deskgate-workers', 'w', { a: '1' }), /no service-account credentials in .*\/missing \(ENOENT\): is the token mounted\?/);
  assert.equal(seen.length, 0);
});

test('an API server that does not answer is given up after the timeout', async () => {
  const silent = createServer({ key: readFileSync(`${dir}/server.key`), cert: readFileSync(`${dir}/server.crt`) }, () => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const api = new InClusterApi({ server: { host: '127.0.0.1', port: (silent.address() as AddressInfo).port }, credentialsDir: credentials('sa-silent', 't', 'ca.crt'), timeoutMs: 300 });
    await assert.rejects(api.annotatePod('deskgate-workers', 'w', { a: '1' }), /no answer within 300 ms/);
  } finally {
    silent.closeAllConnections();
    silent.close();
  }
});
