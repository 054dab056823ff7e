/**
 * A web page for the desktop's browser: a tiny HTTP server with one form (a text input and a
 * submit button) that records what the form sends, so a test asserts on what arrived at the
 * server — the observable effect of an agent typing into a web page.
 *
 * Where it runs, and why there. Desktops cannot reach this host's own addresses: install.sh's
 * `DESKGATE-DESKTOP` chain rejects every connection of the desktop users to an `addrtype LOCAL`
 * destination (127.0.0.1, ::1 and this host's other addresses alike) except DNS
 * (docs/desktop.md). A server on 127.0.0.1 or on this host's LAN address is therefore out of the
 * browser's reach, and rightly so. Instead of opening a hole in that rule, the server runs in a
 * **network namespace of its own** joined to this host by a veth pair (10.201.x.y/30): to the
 * desktop it is another machine on the network, reached the way the browser reaches the web, and
 * the rule stays exactly as in production. Needs root (or CAP_NET_ADMIN) and `ip` (iproute2),
 * as the desktops and the firewall rule already do; everything is removed by `stop()` (and
 * when this process exits).
 *
 * The page is drawn in flat colours an agent can find in a screenshot (PAGE_COLORS): a gold
 * input and a magenta button; after a submission the reply page is green.
 *
 * `node --import tsx tests/support/web-page.ts serve <address>` is the server itself (what runs
 * inside the namespace): it prints `{"listening": port}`, then one JSON line per request.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PAGE_COLORS = { input: '#ffd700', button: '#c000c0', received: '#00a050' } as const;

export interface WebRequest {
  method: string;
  path: string;
  /** The form's `q` field, for a POST to /submit. */
  value?: string;
}

export interface WebPage {
  /** The form page, as the desktop's browser reaches it. */
  url: string;
  requests(): WebRequest[];
  /** The values the form submitted so far. */
  submissions(): string[];
  /** Resolves with the first submission after the first `skip`, bounded by timeoutMs. */
  waitForSubmission(timeoutMs: number, skip?: number): Promise<string>;
  stop(): Promise<void>;
}

const FORM_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>deskgate form</title>
<style>
  html, body { margin: 0; background: #ffffff; font: 24px sans-serif; }
  form { padding: 40px; }
  input[name=q] { display: block; width: 640px; height: 72px; box-sizing: border-box; padding: 0 16px;
    font-size: 28px; color: #000000; background: ${PAGE_COLORS.input}; border: 0; outline: none; }
  button { display: block; margin-top: 40px; width: 240px; height: 72px; font-size: 28px;
    color: #ffffff; background: ${PAGE_COLORS.button}; border: 0; outline: none; }
</style></head>
<body><form method="post" action="/submit" accept-charset="utf-8">
  <input name="q" autocomplete="off" spellcheck="false" aria-label="Your text">
  <button type="submit">Send</button>
</form></body></html>
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const receivedPage = (value: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>deskgate form: received</title>
<style>html, body { margin: 0; height: 100%; background: ${PAGE_COLORS.received}; color: #ffffff; font: 28px sans-serif; } p { padding: 40px; margin: 0; }</style>
</head><body><p>Received: ${escapeHtml(value)}</p></body></html>
`;

/** The server itself: listens on `address`, reports to stdout. */
function serve(address: string): void {
  const report = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const html = (status: number, body: string) => {
        response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(body);
      };
      if (request.method === 'POST' && path === '/submit') {
        const value = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('q') ?? '';
        report({ method: request.method, path, value });
        // 303: a reload of the reply page does not post the form again.
        response.writeHead(303, { location: `/received?q=${encodeURIComponent(value)}` });
        response.end();
        return;
      }
      report({ method: request.method ?? '?', path });
      if (request.method === 'GET' && path === '/') return html(200, FORM_PAGE);
      if (request.method === 'GET' && path === '/received') return html(200, receivedPage(new URL(request.url ?? '/', 'http://page').searchParams.get('q') ?? ''));
      html(404, 'not found');
    });
  });
  server.listen(0, address, () => report({ listening: (server.address() as { port: number }).port }));
  process.on('SIGTERM', () => process.exit(0));
}

const run = (args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });

/** A /30 in 10.201.0.0/16 that no route of this host uses yet. */
function freeSubnet(): { host: string; page: string } {
  const used = execFileSync('ip', ['-4', 'route', 'show', '10.201.0.0/16'], { encoding: 'utf8' }) + execFileSync('ip', ['-4', 'addr', 'show'], { encoding: 'utf8' });
  for (let attempt = 0; attempt < 50; attempt++) {
    const block = Math.floor(Math.random() * 16384) * 4;
    const prefix = `10.201.${block >> 8}.`;
    const low = block & 255;
    if (!used.includes(`${prefix}${low}/30`) && !used.includes(`${prefix}${low + 1}/`)) return { host: `${prefix}${low + 1}`, page: `${prefix}${low + 2}` };
  }
  throw new Error('no free /30 in 10.201.0.0/16');
}

let counter = 0;

/** Starts the form page in a network namespace of its own (see the header). */
export async function startWebPage(): Promise<WebPage> {
  const tag = `${process.pid % 100000}${String.fromCharCode(97 + (counter++ % 26))}`;
  const namespace = `deskgate-web-${tag}`;
  const hostSide = `dgw${tag}`;
  const pageSide = `dgp${tag}`;
  const { host, page } = freeSubnet();
  let child: ChildProcess | undefined;
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    if (child && child.exitCode === null) child.kill('SIGKILL');
    // Deleting one end of the pair deletes both; the namespace goes with its last process.
    try { run(['link', 'del', hostSide]); } catch { /* already gone */ }
    try { run(['netns', 'del', namespace]); } catch { /* already gone */ }
  };
  process.once('exit', cleanup);
  try {
    run(['netns', 'add', namespace]);
    run(['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', pageSide]);
    run(['link', 'set', pageSide, 'netns', namespace]);
    run(['addr', 'add', `${host}/30`, 'dev', hostSide]);
    run(['link', 'set', hostSide, 'up']);
    run(['-n', namespace, 'addr', 'add', `${page}/30`, 'dev', pageSide]);
    run(['-n', namespace, 'link', 'set', pageSide, 'up']);
    run(['-n', namespace, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    cleanup();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`Cannot give the test's web page a network namespace (needs root or CAP_NET_ADMIN and iproute2): ${stderr || error}`);
  }

  const requests: WebRequest[] = [];
  const self = fileURLToPath(import.meta.url);
  child = spawn('ip', ['netns', 'exec', namespace, process.execPath, '--import', 'tsx', self, 'serve', page], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the web page did not start within 15 s')), 15_000);
    child!.once('exit', (code) => reject(new Error(`the web page exited with ${code} before it listened`)));
    lines.on('line', (line) => {
      const record = JSON.parse(line) as { listening?: number } & WebRequest;
      if (record.listening) {
        clearTimeout(timer);
        resolve(record.listening);
      } else requests.push(record);
    });
  }).catch((error: unknown) => {
    cleanup();
    throw error;
  });

  const submissions = () => requests.filter((r) => r.method === 'POST' && r.path === '/submit').map((r) => r.value ?? '');
  return {
    url: `http://${page}:${port}/`,
    requests: () => [...requests],
    submissions,
    async waitForSubmission(timeoutMs, skip = 0) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = submissions()[skip];
        if (found !== undefined) return found;
        if (Date.now() > until) throw new Error(`the form sent nothing within ${timeoutMs} ms; the server saw ${JSON.stringify(requests)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      process.removeListener('exit', cleanup);
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      }
      cleanup();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'serve') serve(process.argv[3] ?? '127.0.0.1');
