import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultPolicy } from '../access/policy.ts';
import { callTool } from '../dispatch.ts';
import type { Executor, LaunchSpec, WindowInfo } from '../executor.ts';
import { initialSessionState } from '../session-state.ts';

const xtermWindow = (id: number, mapped = true): WindowInfo => ({ window: id, title: `xterm ${id}`, wmClass: ['xterm', 'XTerm'], pid: 10, exe: '/usr/bin/xterm', x: 0, y: 0, width: 10, height: 10, mapped });
const other: WindowInfo = { ...xtermWindow(9), wmClass: ['probe', 'DeskgateProbe'], exe: null, title: 'probe' };

function session({ windows = [] as WindowInfo[], launcher = null as LaunchSpec | null, appearAfter = 1 } = {}) {
  const state = initialSessionState();
  state.grants.apps.push({ app: 'xterm', tier: 'click', category: 'terminal' }, { app: 'DeskgateProbe', tier: 'full', category: 'other' });
  const log: string[] = [];
  let listed = 0;
  let launched = false;
  const executor = {
    listWindows: async () => {
      listed++;
      return launched && listed > appearAfter ? [...windows, xtermWindow(42)] : windows;
    },
    activate: async (window: number) => void log.push(`activate ${window}`),
    findLauncher: async (app: string) => (log.push(`find ${app}`), launcher),
    launch: async (command: string[]) => (log.push(`launch ${command.join(' ')}`), (launched = true), { pid: 77 }),
    guard: () => undefined,
  } as unknown as Executor;
  const call = (args: Record<string, unknown>) => callTool('open_application', args, { executor, state, signal: new AbortController().signal, policy: defaultPolicy(), approvals: null });
  return { call, log };
}

const textOf = (result: { content: { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? '').join('');

test('an app not granted is refused with the way to get it', async () => {
  const { call, log } = session();
  const result = await call({ app: 'firefox' });
  assert.equal(result.structuredContent?.error?.kind, 'app_not_granted');
  assert.match(textOf(result), /request_access/);
  assert.deepEqual(log, []);
});

test('a running app is brought to the front: its topmost mapped window', async () => {
  const { call, log } = session({ windows: [xtermWindow(1), xtermWindow(2), other, xtermWindow(3, false)] });
  const result = await call({ app: 'XTerm' });
  assert.match(textOf(result), /Brought xterm to the front: "xterm 2"/);
  assert.deepEqual(log, ['activate 2']);
});

test('an app without windows is started and waited for', async () => {
  const { call, log } = session({ windows: [other], launcher: { command: ['xterm'], source: '/usr/share/applications/debian-xterm.desktop' }, appearAfter: 3 });
  const result = await call({ app: 'xterm' });
  assert.match(textOf(result), /Started xterm \(\/usr\/share\/applications\/debian-xterm.desktop\); its window "xterm 42" is in front/);
  assert.deepEqual(log, ['find xterm', 'launch xterm', 'activate 42']);
  assert.equal(result.structuredContent?.launched, true);
});

test('an app with no way to start it is bad_args, and paths are refused', async () => {
  const { call } = session();
  const missing = await call({ app: 'xterm' });
  assert.equal(missing.structuredContent?.error?.kind, 'bad_args');
  assert.match(textOf(missing), /no application entry named "xterm"/);
  assert.equal((await call({ app: '/usr/bin/xterm' })).structuredContent?.error?.kind, 'bad_args');
});
