/**
 * Kubernetes' API from inside a pod, for the one request a worker makes (its own pod's
 * annotations): no client library, one HTTPS request authenticated with the pod's
 * service-account token. The token is read on every request (the kubelet rotates a projected
 * token before it expires), the server is checked against the service account's CA only, and
 * the token never reaches a log: errors carry the API's status and message.
 */
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';

/** Where the kubelet mounts the service account's token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** An API call that takes longer than this is given up (and tried again later by its caller). */
export const API_TIMEOUT_MS = 5000;
/** The most of an error answer kept for the message. */
const MAX_ERROR_BYTES = 4096;

export class KubernetesApiError extends Error {
  override readonly name = 'KubernetesApiError';
  constructor(
    message: string,
    /** The HTTP status, 0 when there was no answer. */
    readonly status: number,
  ) {
    super(message);
  }
}

export interface ApiServer {
  host: string;
  port: number;
}

/** The API server the kubelet names in every container's environment; undefined outside a pod. */
export function apiServerFromEnv(env: NodeJS.ProcessEnv = process.env): ApiServer | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = Number(env.KUBERNETES_SERVICE_PORT ?? 443);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

export interface InClusterApiOptions {
  server: ApiServer;
  /** Holds `token` and `ca.crt` (SERVICE_ACCOUNT_DIR in a pod). */
  credentialsDir?: string;
  timeoutMs?: number;
}

export class InClusterApi {
  private readonly credentialsDir: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: InClusterApiOptions) {
    this.credentialsDir = options.credentialsDir ?? SERVICE_ACCOUNT_DIR;
    this.timeoutMs = options.timeoutMs ?? API_TIMEOUT_MS;
  }

  /** Sets annotations on a pod (a JSON merge patch of metadata.annotations only). */
  async annotatePod(namespace: string, pod: string, annotations: Record<string, string>): Promise<void> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`;
    await this.send('PATCH', path, 'application/merge-patch+json', JSON.stringify({ metadata: { annotations } }));
  }

  private async send(method: string, path: string, contentType: string, body: string): Promise<string> {
    const [token, ca] = await Promise.all([
      readFile(`${this.credentialsDir}/token`, 'utf8').then((text) => text.trim()),
      readFile(`${this.credentialsDir}/ca.crt`),
    ]).catch((error: NodeJS.ErrnoException) => {
      throw new KubernetesApiError(`no service-account credentials in ${this.credentialsDir} (${error.code ?? error.message}): is the token mounted?`, 0);
    });
    const { host, port } = this.options.server;
    return new Promise((resolve, reject) => {
      const call = request(
        {
          host,
          port,
          method,
          path,
          ca,
          timeout: this.timeoutMs,
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < MAX_ERROR_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(text);
            reject(new KubernetesApiError(`${method} ${path}: ${status} ${statusMessage(text)}`, status));
          });
          response.on('error', (error) => reject(new KubernetesApiError(`${method} ${path}: ${error.message}`, 0)));
        },
      );
      call.on('timeout', () => call.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      call.on('error', (error) => reject(new KubernetesApiError(`${method} ${path}: ${error.message}`, 0)));
      call.end(body);
    });
  }
}

/** The message of a Kubernetes Status answer, or the start of whatever came back. */
function statusMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: the raw text below
  }
  return text.slice(0, 200);
}
