import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { declaredBodyLimit } from './index.ts';

const app = new Hono();
app.use(declaredBodyLimit({ maxSize: 10, onError: (c) => c.json({ error: 'payload_too_large' }, 413) }));
app.post('/echo', async (c) => c.text(await c.req.text()));

const streamOf = (text: string) =>
  new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });

test('a declared length within the limit passes, and the body is still readable', async () => {
  const response = await app.request('/echo', { method: 'POST', body: '0123456789', headers: { 'content-length': '10' } });
  assert.equal(response.status, 200);
  assert.equal(await response.text(), '0123456789');
});

test('a declared length over the limit is refused with the handler never reached', async () => {
  const response = await app.request('/echo', { method: 'POST', body: '01234567890', headers: { 'content-length': '11' } });
  assert.equal(response.status, 413);
});

test('a body of unknown length is counted: over the limit is refused, within passes', async () => {
  const over = await app.request('/echo', { method: 'POST', body: streamOf('x'.repeat(11)), duplex: 'half' } as RequestInit);
  assert.equal(over.status, 413);
  const within = await app.request('/echo', { method: 'POST', body: streamOf('short'), duplex: 'half' } as RequestInit);
  assert.equal(within.status, 200);
  assert.equal(await within.text(), 'short');
});
