/**
 * The console's page and modules. The front end (services/gateway/console-ui) is Preact +
 * htm as plain ES modules — no build step — with the libraries served from their npm
 * packages through an import map. Every file is read once at start into a fixed table, so a
 * path can only ever name one of those files. A strict Content-Security-Policy allows
 * scripts of this origin and the import map (by its hash) only; no inline script, no framing.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';

const UI_DIR = fileURLToPath(new URL('../../console-ui/', import.meta.url));
const require = createRequire(import.meta.url);

// Each package's ES module build, beside the file its main export resolves to.
const besideMain = (specifier: string, file: string) => join(dirname(require.resolve(specifier)), file);
const VENDOR: Record<string, string> = {
  'preact.mjs': besideMain('preact', 'preact.mjs'),
  'hooks.mjs': besideMain('preact/hooks', 'hooks.mjs'),
  'htm.mjs': besideMain('htm', 'htm.mjs'),
};

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8' };

const IMPORT_MAP = JSON.stringify({ imports: { preact: '/console/vendor/preact.mjs', 'preact/hooks': '/console/vendor/hooks.mjs', htm: '/console/vendor/htm.mjs' } });
const IMPORT_MAP_HASH = createHash('sha256').update(IMPORT_MAP).digest('base64');

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${IMPORT_MAP_HASH}'`,
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function filesOf(dir: string, prefix = ''): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory()) for (const [name, body] of filesOf(join(dir, entry.name), `${path}/`)) files.set(name, body);
    else if (TYPES[extname(entry.name)]) files.set(path, readFileSync(join(dir, entry.name)));
  }
  return files;
}

export const SECURITY_HEADERS = { 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };

export function staticRoutes() {
  const routes = new Hono();
  const ui = filesOf(UI_DIR);
  const vendor = new Map(Object.entries(VENDOR).map(([name, path]) => [name, readFileSync(path)]));
  const page = ui.get('index.html')!.toString().replace('<!--import-map-->', `<script type="importmap">${IMPORT_MAP}</script>`);
  const send = (body: Buffer | string | undefined, type: string) => (body === undefined ? undefined : new Response(typeof body === 'string' ? body : new Uint8Array(body), { headers: { 'content-type': type, 'cache-control': 'no-cache', ...SECURITY_HEADERS } }));

  // One page for every console path; the page routes by its hash (#/sessions, #/watch/<session>, …).
  routes.get('/', (c) => send(page, TYPES['.html']!) ?? c.notFound());
  // A view-only share link opens the same page, which sees the path and shows only the live view.
  routes.get('/watch', (c) => send(page, TYPES['.html']!) ?? c.notFound());
  routes.get('/app/*', (c) => send(ui.get(c.req.path.slice(c.req.path.indexOf('/app/') + '/app/'.length)), TYPES[extname(c.req.path)] ?? 'application/octet-stream') ?? c.notFound());
  routes.get('/vendor/:file', (c) => send(vendor.get(c.req.param('file')), TYPES['.mjs']!) ?? c.notFound());
  return routes;
}
