/**
 * The vertical slice end to end: the official MCP clients of both protocol generations drive
 * a real desktop (Xvfb + openbox) through the gateway, Redis and a worker with its real
 * helpers, and the probe app on the desktop records what actually arrived. Runs at two
 * display sizes so the screenshot scaling and the coordinate mapping are both exercised.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { allTools, targetImageSize } from '@deskgate/computer-use';
import { startStack, type Stack } from '../../scripts/lib/stack.ts';
import { desktopOf } from '../support/desktops.ts';
import { closeTo, decodeImage, hex } from '../support/image.ts';
import { connect, GENERATIONS, imageOf, textOf, type McpConnection } from '../support/mcp-clients.ts';
import { actionReplies } from '../support/metrics.ts';
import { Probe, type Rect } from '../support/probe.ts';

// The second size also runs with direct replies off: every reply through Redis.
const SIZES = [
  { width: 1280, height: 800, directReplies: true },
  { width: 1920, height: 1080, directReplies: false },
];
const PROBE_COLOR = '#3366cc';
const UNICODE = 'Hello, wörld — 日本語 ✓';

export function stackEnv(size: { width: number; height: number }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { REDIS_URL: '', DESKGATE_PORT: '0', DESKGATE_DESKTOP_SIZE: `${size.width}x${size.height}`, ...extra };
}

for (const size of SIZES) {
  describe(`vertical slice on a ${size.width}×${size.height} desktop`, () => {
    let stack: Stack;
    let redis: Redis;
    const image = targetImageSize(size);
    // Root pixels → the screenshot's image pixels, the space the model works in.
    const toImage = (x: number, y: number): [number, number] => [(x * image.width) / size.width, (y * image.height) / size.height];
    const centre = (r: Rect): [number, number] => toImage(r.x + r.width / 2, r.y + r.height / 2);

    before(async () => {
      stack = await startStack({ env: stackEnv(size, size.directReplies ? {} : { DESKGATE_DIRECT_REPLIES: 'off' }), logDir: mkdtempSync(join(tmpdir(), 'deskgate-e2e-')) });
      redis = new Redis(stack.redisUrl);
    });
    after(async () => {
      redis?.disconnect();
      await stack?.stop();
    });

    for (const generation of GENERATIONS) {
      test(`MCP ${generation} client drives the desktop`, async (t) => {
        const session = `slice-${generation.replaceAll('-', '')}`;
        const mcp: McpConnection = await connect(generation, `${stack.mcpUrl}/${session}`, stack.apiKey);
        let probe: Probe | undefined;
        t.after(async () => {
          probe?.stop();
          await mcp.close();
        });

        await t.test('tools/list offers the slice tools with their seed names', async () => {
          const names = (await mcp.listTools()).map((tool) => tool.name).sort();
          assert.deepEqual(names, allTools.map((tool) => tool.name).sort());
        });

        await t.test('request_access grants the probe app', async () => {
          const result = await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'end-to-end test' });
          assert.ok(!result.isError, textOf(result));
        });

        await t.test('screenshot is an image (PNG for screen content, else JPEG) of the size the token-budget rule gives', async () => {
          const shot = imageOf(await mcp.call('screenshot'));
          assert.ok(['image/png', 'image/jpeg'].includes(shot.mimeType), shot.mimeType);
          const decoded = decodeImage(shot.data);
          assert.deepEqual([decoded.width, decoded.height], [image.width, image.height]);
        });

        const desktop = await desktopOf(redis, stack.tenant, session);
        probe = await Probe.start(desktop, { color: PROBE_COLOR });
        const { button, text, color_area: area } = probe.ready;

        await t.test('a window of known colour shows that colour', async () => {
          const decoded = decodeImage(imageOf(await mcp.call('screenshot')).data);
          const [x, y] = centre(area);
          const seen = decoded.pixel(x, y);
          assert.ok(closeTo(seen, hex(PROBE_COLOR)), `expected ${PROBE_COLOR}, saw rgb(${seen.join(',')})`);
        });

        await t.test('a click at coordinates read off the screenshot lands on the button', async () => {
          const skip = probe!.events().length;
          const [x, y] = centre(button);
          const result = await mcp.call('left_click', { coordinate: [x, y] });
          assert.ok(!result.isError, textOf(result));
          await probe!.waitFor((e) => e.type === 'button' && e.name === 'click_me', 5000, skip);
          const press = (await probe!.waitFor((e) => e.type === 'press', 5000, skip)) as { x_root: number; y_root: number; button: number };
          assert.equal(press.button, 1);
          const tolerance = Math.ceil(size.width / image.width) + 1;
          assert.ok(Math.abs(press.x_root - (button.x + button.width / 2)) <= tolerance, `x ${press.x_root}`);
          assert.ok(Math.abs(press.y_root - (button.y + button.height / 2)) <= tolerance, `y ${press.y_root}`);
        });

        await t.test(`type "${UNICODE}" arrives exactly`, async () => {
          await mcp.call('left_click', { coordinate: centre(text) });
          const skip = probe!.events().length;
          const result = await mcp.call('type', { text: UNICODE });
          assert.ok(!result.isError, textOf(result));
          await probe!.waitFor((e) => e.type === 'text' && e.value === UNICODE, 5000, skip);
        });

        await t.test('key ctrl+a selects all the text', async () => {
          const skip = probe!.events().length;
          const result = await mcp.call('key', { text: 'ctrl+a' });
          assert.ok(!result.isError, textOf(result));
          const selected = await probe!.waitFor((e) => e.type === 'select_all', 5000, skip);
          assert.equal(selected.selection, UNICODE);
        });

        await t.test('scroll sends wheel clicks in each direction', async () => {
          const skip = probe!.events().length;
          await mcp.call('scroll', { coordinate: centre(area), scroll_direction: 'down', scroll_amount: 3 });
          await mcp.call('scroll', { coordinate: centre(area), scroll_direction: 'up', scroll_amount: 2 });
          // The up clicks come last: once both are recorded, so are the three down ones.
          await probe!.waitForCount((e) => e.type === 'press' && e.button === 4, 2, 5000, skip);
          const presses = probe!.since(skip).filter((e) => e.type === 'press');
          assert.equal(presses.filter((e) => e.button === 5).length, 3);
          assert.equal(presses.filter((e) => e.button === 4).length, 2);
        });

        await t.test('left_click_drag presses at the start and releases at the end', async () => {
          const skip = probe!.events().length;
          const from = { x: area.x + 40, y: area.y + 40 };
          const to = { x: area.x + 240, y: area.y + 140 };
          const result = await mcp.call('left_click_drag', { start_coordinate: toImage(from.x, from.y), coordinate: toImage(to.x, to.y) });
          assert.ok(!result.isError, textOf(result));
          const release = (await probe!.waitFor((e) => e.type === 'release' && e.button === 1, 5000, skip)) as { x_root: number; y_root: number };
          const press = probe!.since(skip).find((e) => e.type === 'press') as { x_root: number; y_root: number };
          const tolerance = Math.ceil(size.width / image.width) + 1;
          assert.ok(Math.abs(press.x_root - from.x) <= tolerance && Math.abs(press.y_root - from.y) <= tolerance, JSON.stringify(press));
          assert.ok(Math.abs(release.x_root - to.x) <= tolerance && Math.abs(release.y_root - to.y) <= tolerance, JSON.stringify(release));
          assert.ok(probe!.since(skip).some((e) => e.type === 'motion_drag'), 'the app saw motion with the button held');
        });

        await t.test('mouse_move, left_mouse_down/up and cursor_position', async () => {
          const skip = probe!.events().length;
          const target = toImage(area.x + 100, area.y + 100).map(Math.round) as [number, number];
          await mcp.call('mouse_move', { coordinate: target });
          assert.equal(textOf(await mcp.call('cursor_position')), `(${target[0]}, ${target[1]})`);
          assert.ok(!(await mcp.call('left_mouse_down')).isError);
          const again = await mcp.call('left_mouse_down');
          assert.equal(again.structuredContent?.error?.kind, 'state_conflict');
          await mcp.call('mouse_move', { coordinate: toImage(area.x + 150, area.y + 120) });
          assert.ok(!(await mcp.call('left_mouse_up')).isError);
          await probe!.waitFor((e) => e.type === 'release' && e.button === 1, 5000, skip);
          const buttons = probe!.since(skip).filter((e) => e.type === 'press' || e.type === 'release').map((e) => `${e.type}${e.button}`);
          assert.deepEqual(buttons, ['press1', 'release1']);
          assert.equal((await mcp.call('left_mouse_up')).structuredContent?.error?.kind, 'state_conflict');
        });

        await t.test('double, triple, right and middle clicks arrive with their buttons and counts', async () => {
          const skip = probe!.events().length;
          const at = centre(area);
          for (const tool of ['double_click', 'triple_click', 'right_click', 'middle_click']) {
            assert.ok(!(await mcp.call(tool, { coordinate: at })).isError, tool);
          }
          await probe!.waitFor((e) => e.type === 'release' && e.button === 2, 5000, skip);
          const presses = probe!.since(skip).filter((e) => e.type === 'press').map((e) => e.button);
          assert.deepEqual(presses, [1, 1, 1, 1, 1, 3, 2]);
        });

        await t.test('a click with modifiers holds them', async () => {
          const skip = probe!.events().length;
          await mcp.call('left_click', { coordinate: centre(area), text: 'shift' });
          const press = (await probe!.waitFor((e) => e.type === 'press', 5000, skip)) as { state: number };
          assert.ok((press.state & 1) === 1, `shift bit in state ${press.state}`);
        });

        await t.test('zoom shows a region at the display\'s resolution and keeps the screenshot as the frame', async () => {
          await mcp.call('screenshot');
          const [x0, y0] = toImage(area.x + 10, area.y + 10).map(Math.ceil) as [number, number];
          const [x1, y1] = toImage(area.x + 210, area.y + 110).map(Math.floor) as [number, number];
          const zoomed = decodeImage(imageOf(await mcp.call('zoom', { region: [x0, y0, x1, y1] })).data);
          // Native resolution: about 200×100 display pixels, more than the region's image pixels when the screenshot was scaled.
          assert.ok(Math.abs(zoomed.width - 200) <= 3 && Math.abs(zoomed.height - 100) <= 3, `${zoomed.width}×${zoomed.height}`);
          assert.ok(closeTo(zoomed.pixel(zoomed.width / 2, zoomed.height / 2), hex(PROBE_COLOR)));
          const target = toImage(area.x + 60, area.y + 50).map(Math.round) as [number, number];
          await mcp.call('mouse_move', { coordinate: target });
          assert.equal(textOf(await mcp.call('cursor_position')), `(${target[0]}, ${target[1]})`);
          const bad = await mcp.call('zoom', { region: [x1, y0, x0, y1] });
          assert.equal(bad.structuredContent?.error?.kind, 'bad_args');
        });

        await t.test('a batch that fails in the middle reports what ran and leaves the rest undone', async () => {
          const skip = probe!.events().length;
          const result = await mcp.call('computer_batch', {
            actions: [
              { action: 'left_click', coordinate: centre(text) },
              { action: 'key', text: 'ctrl+a' },
              { action: 'type', text: 'batch-one' },
              { action: 'left_mouse_up' },
              { action: 'type', text: 'never' },
            ],
          });
          assert.equal(result.isError, true);
          const batch = (result.structuredContent as { batch: { completed: { action: string }[]; failed: { index: number; kind: string }; remaining: string[] } }).batch;
          assert.deepEqual(batch.completed.map((c) => c.action), ['left_click', 'key', 'type']);
          assert.deepEqual([batch.failed.index, batch.failed.kind], [3, 'state_conflict']);
          assert.deepEqual(batch.remaining, ['type']);
          await probe!.waitFor((e) => e.type === 'text' && e.value === 'batch-one', 5000, skip);
          await sleep(300);
          assert.equal(probe!.lastText(skip), 'batch-one', 'nothing after the failure ran');
        });

        await t.test('long or multi-line text is pasted through the clipboard, which is restored', async () => {
          assert.ok(!(await mcp.call('request_access', { apps: ['DeskgateProbe'], reason: 'paste', clipboardWrite: true, clipboardRead: true })).isError);
          assert.ok(!(await mcp.call('write_clipboard', { text: 'kept' })).isError);
          await mcp.call('left_click', { coordinate: centre(text) });
          await mcp.call('key', { text: 'ctrl+a' });
          await mcp.call('key', { text: 'Delete' });
          const skip = probe!.events().length;
          const long = `first line — ünïcode\n${'x'.repeat(300)}\nlast line ✓`;
          const result = await mcp.call('type', { text: long });
          assert.equal(textOf(result), `Pasted ${[...long].length} characters.`);
          await probe!.waitFor((e) => e.type === 'text' && e.value === long, 5000, skip);
          assert.equal(textOf(await mcp.call('read_clipboard')), 'kept', 'the clipboard is back as it was');
        });

        await t.test('clipboard text round-trips between the agent and an app on the desktop', async () => {
          await mcp.call('left_click', { coordinate: centre(text) });
          await mcp.call('key', { text: 'ctrl+a' });
          await mcp.call('key', { text: 'Delete' });
          const skip = probe!.events().length;
          const sent = 'from the agent — ✓ 日本';
          assert.ok(!(await mcp.call('write_clipboard', { text: sent })).isError);
          await mcp.call('key', { text: 'ctrl+v' });
          await probe!.waitFor((e) => e.type === 'text' && e.value === sent, 5000, skip);
          await mcp.call('type', { text: ' + app' });
          await mcp.call('key', { text: 'ctrl+a' });
          await mcp.call('key', { text: 'ctrl+c' });
          await sleep(200);
          assert.equal(textOf(await mcp.call('read_clipboard')), `${sent} + app`);
          const tooLong = await mcp.call('write_clipboard', { text: 'x'.repeat(200_001) });
          assert.equal(tooLong.structuredContent?.error?.kind, 'bad_args');
        });

        await t.test('hold_key and wait take their time', async () => {
          await mcp.call('left_click', { coordinate: centre(text) });
          const skip = probe!.events().length;
          const started = Date.now();
          assert.ok(!(await mcp.call('hold_key', { text: 'shift', duration: 0.3 })).isError);
          assert.ok(Date.now() - started >= 300);
          await probe!.waitFor((e) => e.type === 'key' && String(e.keysym).startsWith('Shift'), 5000, skip);
          const waitStarted = Date.now();
          assert.equal(textOf(await mcp.call('wait', { duration: 0.2 })), 'Waited 0.2 s.');
          assert.ok(Date.now() - waitStarted >= 200);
        });
      });
    }

    test(`the replies came ${size.directReplies ? 'mostly straight from the worker' : 'through Redis only'}`, async () => {
      const { direct, redis: viaRedis } = await actionReplies(stack.mcpUrl, stack.operatorKey);
      if (size.directReplies) {
        // Through Redis: replies while a connection opens, and those that change the session's state (screenshots, grants).
        assert.ok(direct > viaRedis, `direct ${direct}, redis ${viaRedis}`);
      } else {
        assert.equal(direct, 0);
        assert.ok(viaRedis > 40, `redis ${viaRedis}`);
      }
    });
  });
}
