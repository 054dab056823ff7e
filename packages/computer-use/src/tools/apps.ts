/**
 * open_application: bring a granted app to the front, starting it when it has no window yet
 * (from its .desktop entry, else an executable of that name). Only apps already granted; the
 * tier does not matter (the seed does not tier-gate it), the allowlist gate still applies.
 */
import { z } from 'zod';
import { sleep } from '../abort.ts';
import { ToolError } from '../errors.ts';
import { grantFor, grantNamed, namesOf, type AppGrant, type Grants } from '../access/grants.ts';
import type { WindowInfo } from '../executor.ts';
import { defineTool, type ToolContext, type ToolOutput } from './define-tool.ts';

/** How long a started app may take to map its first window. */
export const LAUNCH_WAIT_SECONDS = 10;
const POLL_MS = 100;

const only = (grant: AppGrant, grants: Grants): Grants => ({ apps: [grant], flags: grants.flags });

/** The app's windows, topmost first: mapped ones before iconified ones. */
function windowsOf(windows: WindowInfo[], grant: AppGrant, grants: Grants): WindowInfo[] {
  const mine = windows.filter((window) => grantFor(window, only(grant, grants))).reverse();
  return [...mine.filter((window) => window.mapped), ...mine.filter((window) => !window.mapped)];
}

const result = (message: string, data: Record<string, unknown>): ToolOutput => ({ content: [{ type: 'text', text: message }], structuredContent: data });

async function launchAndWait(app: string, grant: AppGrant, { executor, state, signal }: ToolContext): Promise<ToolOutput> {
  const spec = await executor.findLauncher(app);
  if (!spec) throw new ToolError('bad_args', `This desktop has no application entry named "${app}"; open_application starts apps listed in the desktop's .desktop entries.`);
  const { pid } = await executor.launch(spec.command);
  const until = Date.now() + LAUNCH_WAIT_SECONDS * 1000;
  for (;;) {
    const windows = await executor.listWindows();
    const [window] = windowsOf(windows, grant, state.grants);
    if (window?.mapped) {
      await executor.activate(window.window).catch(() => undefined);
      return result(`Started ${app} (${spec.source}); its window "${window.title ?? ''}" is in front.`, { app, launched: true, window: window.window, title: window.title, pid });
    }
    if (Date.now() > until) {
      // A window of the started process under another name would be hidden as not granted.
      const strangers = windows.filter((w) => w.pid === pid && w.mapped).flatMap((w) => namesOf(w));
      const hint = strangers.length ? ` A window named ${[...new Set(strangers)].join(' / ')} appeared; request access to that name to use it.` : '';
      throw new ToolError('timeout', `Started ${app} (${spec.source}), but no window of ${grant.app} appeared within ${LAUNCH_WAIT_SECONDS} s.${hint}`);
    }
    await sleep(POLL_MS, signal);
  }
}

export const appTools = [
  defineTool({
    name: 'open_application',
    title: 'Open an application', effect: 'acts', idempotent: true, gated: true, pixelChecked: false, batchable: false,
    description: () =>
      'Bring an application to the front, starting it if it has no window yet. The app must already be granted (request_access); name it as you did there, e.g. "xterm".',
    inputSchema: z.strictObject({
      app: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[^/\0]+$/, { message: 'an app name, not a path' })
        .describe('The app, by a name it was granted under: WM_CLASS, .desktop id or executable name'),
    }),
    actionKind: 'none',
    extraSeconds: () => LAUNCH_WAIT_SECONDS + 2,
    async handle(args, context) {
      const { executor, state } = context;
      // A held button would turn the new window's first frames into a drag target.
      if (state.mouseHeld) throw new ToolError('state_conflict', 'The left mouse button is held down (left_mouse_down); call left_mouse_up before open_application.');
      const grant = grantNamed(args.app, state.grants);
      if (!grant) {
        throw new ToolError('app_not_granted', `"${args.app}" is not granted to this session. Call request_access with apps ["${args.app}"] first.`);
      }
      const [window] = windowsOf(await executor.listWindows(), grant, state.grants);
      if (!window) return launchAndWait(args.app, grant, context);
      await executor.activate(window.window);
      return result(`Brought ${grant.app} to the front: "${window.title ?? ''}".`, { app: args.app, launched: false, window: window.window, title: window.title });
    },
  }),
];
