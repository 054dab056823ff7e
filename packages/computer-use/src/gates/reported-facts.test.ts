import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPolicy } from '../access/policy.ts';
import { callTool, toolContext } from '../dispatch.ts';
import type { AppInfo, Executor, GateFacts, WindowSurface } from '../executor.ts';
import type { Point } from '../geometry/coordinates.ts';
import { initialSessionState } from '../session-state.ts';
import type { ReportingExecutor } from './reported-facts.ts';

const EDITOR: AppInfo = { window: 20, title: 'Mousepad', wmClass: ['mousepad', 'Mousepad'], pid: 7, exe: '/usr/bin/mousepad' };
const client: WindowSurface = { kind: 'client', window: 20, app: EDITOR };
const root: WindowSurface = { kind: 'root', window: 1, app: null };

/** An executor that answers the gates from a "report" first (guessed facts), and from a read after stopGuessing. */
function reportingExecutor(guessed: WindowSurface, read: WindowSurface, reportedPointer: Point | null, readPointer: Point) {
  const calls: string[] = [];
  let guessing = true;
  const facts = (at: WindowSurface, cursor: Point): GateFacts => ({ windows: [], focus: client, at: [at], cursor, underPointer: at, buttonsHeld: [] });
  const executor: Partial<Executor> & ReportingExecutor = {
    factsWereGuessed: () => guessing,
    stopGuessing: () => void (guessing = false),
    knownPointer: () => (guessing ? reportedPointer : null),
    async gateFacts() {
      calls.push(guessing ? 'guess' : 'gate_facts');
      return guessing ? facts(guessed, reportedPointer ?? readPointer) : facts(read, readPointer);
    },
    async unchangedSince() {
      calls.push('compare');
      return true;
    },
    guard: () => undefined,
    async click() {
      calls.push('click');
    },
  };
  return { executor: executor as Executor & ReportingExecutor, calls };
}

function run(executor: Executor) {
  const state = { ...initialSessionState(), lastScreenshot: { imageWidth: 100, imageHeight: 100, displayWidth: 100, displayHeight: 100, originX: 0, originY: 0, slot: 's', monitor: 'screen', takenAt: 0 } };
  state.grants = { apps: [{ app: 'mousepad', tier: 'full', category: 'other' }], flags: { clipboardRead: false, clipboardWrite: false, systemKeyCombos: false } };
  return callTool('left_click', { coordinate: [5, 5] }, toolContext({ executor, state, signal: new AbortController().signal, policy: defaultPolicy(), approvals: null }));
}

test('a refusal on guessed facts is never given as it is: the facts are read and judged again', async () => {
  const { executor, calls } = reportingExecutor(root, client, { x: 5, y: 5 }, { x: 5, y: 5 });
  const result = await run(executor);
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.deepEqual(calls, ['guess', 'gate_facts', 'compare', 'click']); // read: the pixel check beside it, as before
});

test('a refusal that the read facts confirm stands', async () => {
  const { executor, calls } = reportingExecutor(root, root, { x: 5, y: 5 }, { x: 5, y: 5 });
  const result = await run(executor);
  assert.equal(result.structuredContent?.error?.kind, 'no_app_window');
  assert.deepEqual(calls, ['guess', 'gate_facts', 'compare']);
});

test('the pixel check is skipped only for a target the pointer of the judged facts rests on', async () => {
  const resting = reportingExecutor(client, client, { x: 5, y: 5 }, { x: 5, y: 5 });
  await run(resting.executor);
  assert.deepEqual(resting.calls, ['guess', 'click']);
  const elsewhere = reportingExecutor(client, client, { x: 50, y: 50 }, { x: 50, y: 50 });
  await run(elsewhere.executor);
  assert.deepEqual(elsewhere.calls, ['guess', 'compare', 'click']);
  // Facts read without a report: the pixel check runs beside the read, as before.
  const read = reportingExecutor(client, client, null, { x: 5, y: 5 });
  read.executor.stopGuessing!();
  await run(read.executor);
  assert.deepEqual(read.calls.sort(), ['click', 'compare', 'gate_facts']);
});
