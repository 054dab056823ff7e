/**
 * The probe app (tests/probe/probe_app.py) on a session's desktop: every event it receives is
 * a JSON line in a file the tests read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../scripts/lib/stack.ts';
import { onDisplay, xTarget, type XTarget } from './desktops.ts';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ProbeEvent {
  type: string;
  x_root?: number;
  y_root?: number;
  button?: number;
  state?: number;
  [field: string]: unknown;
}

export interface ReadyEvent {
  type: 'ready';
  window: Rect;
  button: Rect;
  text: Rect;
  color_area: Rect;
}

/** The probes' event folders, removed when the test process exits (a full run used to leave ~40 in /tmp). */
const eventFolders = new Set<string>();
process.once('exit', () => {
  for (const folder of eventFolders) rmSync(folder, { recursive: true, force: true });
});

export class Probe {
  private constructor(
    readonly process: ChildProcess,
    readonly eventsFile: string,
    readonly ready: ReadyEvent,
  ) {}

  /** `target`: a display name, or a desktop (desktopOf) — a container desktop's display is reached in its network namespace. */
  static async start(
    target: string | XTarget,
    options: { color?: string; geometry?: string; title?: string; wmClass?: string; xauthority?: string; slowRepaint?: boolean; steadyCaret?: boolean } = {},
  ): Promise<Probe> {
    const eventsFile = join(mkdtempSync(join(tmpdir(), 'deskgate-probe-')), 'events.jsonl');
    eventFolders.add(dirname(eventsFile));
    const x = xTarget(target);
    const { file, args, env } = onDisplay({ ...x, ...(options.xauthority ? { xauthority: options.xauthority } : {}) }, [
      '/usr/bin/python3',
      `${repoRoot}tests/probe/probe_app.py`,
      '--events', eventsFile,
      '--geometry', options.geometry ?? '800x600+100+80',
      '--color', options.color ?? '#3366cc',
      '--title', options.title ?? 'deskgate probe',
      '--class', options.wmClass ?? 'DeskgateProbe',
      ...(options.slowRepaint ? ['--slow-repaint'] : []),
      ...(options.steadyCaret ? ['--steady-caret'] : []),
    ]);
    const child = spawn(file, args, { env, stdio: 'ignore' });
    const probe = new Probe(child, eventsFile, undefined as never);
    const ready = (await probe.waitFor((event) => event.type === 'ready', 15_000)) as unknown as ReadyEvent;
    return new Probe(child, eventsFile, ready);
  }

  events(): ProbeEvent[] {
    if (!existsSync(this.eventsFile)) return [];
    return readFileSync(this.eventsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ProbeEvent);
  }

  /** Events recorded after the first `skip` ones. */
  since(skip: number): ProbeEvent[] {
    return this.events().slice(skip);
  }

  async waitFor(match: (event: ProbeEvent) => boolean, timeoutMs = 5000, skip = 0): Promise<ProbeEvent> {
    return (await this.waitForCount(match, 1, timeoutMs, skip))[0]!;
  }

  /** Every matching event, once at least `count` of them are recorded (the probe writes each as the app gets it). */
  async waitForCount(match: (event: ProbeEvent) => boolean, count: number, timeoutMs = 5000, skip = 0): Promise<ProbeEvent[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.since(skip).filter(match);
      if (found.length >= count) return found;
      if (Date.now() > until) throw new Error(`${count} probe event(s) not seen within ${timeoutMs} ms (${found.length} were); last events: ${JSON.stringify(this.events().slice(-8))}`);
      await sleep(20);
    }
  }

  /** The last recorded contents of the text widget. */
  lastText(skip = 0): string | undefined {
    const texts = this.since(skip).filter((event) => event.type === 'text');
    return texts.at(-1)?.value as string | undefined;
  }

  stop(): void {
    this.process.kill('SIGTERM');
  }
}
