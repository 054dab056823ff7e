import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GateFactsResult } from '@deskgate/helper-protocol';
import { ReportedFacts } from './reported-facts.ts';

const app = (id: number, name: string) => ({ window: id, title: name, wm_class: [name, name] as [string, string], pid: 7, exe: null });
const win = (id: number, name: string, x: number, y: number, w: number, h: number, mapped = true) => ({ id, x, y, width: w, height: h, mapped, title: name, wm_class: [name, name] as [string, string], pid: 7, exe: null });
const popup = { kind: 'popup' as const, window: 99, app: app(99, 'menu') };
const facts = (token: string): GateFactsResult => ({
  windows: [win(1, 'below', 0, 0, 400, 400), win(2, 'above', 100, 100, 100, 100), win(3, 'hidden', 300, 300, 50, 50, false)],
  focus: { kind: 'client', window: 1, app: app(1, 'below') },
  at: [popup],
  cursor: { x: 10, y: 10 },
  under_pointer: { kind: 'decoration', window: 1, app: app(1, 'below') },
  buttons: [],
  token,
});

test('nothing reported yet: nothing is guessed', () => {
  assert.equal(new ReportedFacts().guess([{ x: 1, y: 1 }]), null);
});

test('a point asked about before, the pointer, then the topmost mapped client whose rectangle holds it', () => {
  const reported = new ReportedFacts();
  reported.reported(facts('t-1'), [{ x: 150, y: 150 }]);
  assert.equal(reported.token, 't-1');
  assert.deepEqual(reported.guess([{ x: 150, y: 150 }])!.at, [popup]); // what the runtime said there
  assert.deepEqual(reported.guess([{ x: 10, y: 10 }])!.at, [facts('').under_pointer]);
  assert.deepEqual(reported.guess([{ x: 120, y: 130 }])!.at.map((s) => [s.kind, s.window]), [['client', 2]]);
  assert.deepEqual(reported.guess([{ x: 310, y: 310 }])!.at.map((s) => s.window), [1]); // unmapped window 3 is skipped
  assert.equal(reported.guess([{ x: 120, y: 130 }, { x: 500, y: 500 }]), null); // outside every client: not guessed
  assert.deepEqual(reported.guess([])!.at, []);
});

test('facts after an input op replace the report; a token alone keeps it only when it is the same', () => {
  const reported = new ReportedFacts();
  reported.reported(facts('t-1'), []);
  reported.after({ token: 't-1' }, 't-1');
  assert.equal(reported.token, 't-1');
  reported.after({ ...facts('t-2'), at: [] }, 't-1');
  assert.equal(reported.token, 't-2');
  reported.after({ token: 't-9' }, 't-2');
  assert.equal(reported.token, null);
});

test("the pointer's parts after an input op update the facts the op was judged on, and only those", () => {
  const reported = new ReportedFacts();
  reported.reported(facts('t-1'), [{ x: 150, y: 150 }]);
  const underIt = { kind: 'client' as const, window: 2, app: app(2, 'above') };
  reported.after({ token: 't-2', cursor: { x: 150, y: 150 }, under_pointer: underIt, buttons: [] }, 't-1');
  assert.equal(reported.token, 't-2');
  assert.deepEqual(reported.guess([])!, { ...facts('t-2'), at: [], cursor: { x: 150, y: 150 }, under_pointer: underIt });
  // The point asked about with the old report is no longer taken from it: the pointer's is.
  assert.deepEqual(reported.guess([{ x: 150, y: 150 }])!.at, [underIt]);
  // Judged on other facts than the ones kept (a report came in between): nothing to apply them to.
  reported.after({ token: 't-3', cursor: { x: 1, y: 1 }, under_pointer: underIt, buttons: [] }, 't-0');
  assert.equal(reported.token, null);
  assert.equal(reported.guess([]), null);
});
