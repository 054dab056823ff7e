/**
 * What the gates do to the desktop, after the verdicts and before the action: hide windows of
 * apps the session may not touch (even when the action was refused — the next screenshot then
 * shows the desktop without them); for an action that will run, move the focus to the window a
 * press lands on *before* the press (the window manager would do it right after, asynchronously,
 * and keys judged against the old focus must never land in the new one), run the clipboard
 * guard for the app in front, and hand the input layer the guard it re-checks when it sends.
 */
import { grantFor } from '../access/grants.ts';
import type { AppInfo, InputGuard } from '../executor.ts';
import type { ToolContext } from '../tools/define-tool.ts';
import { guardClipboard } from './clipboard-guard.ts';
import type { Facts } from './facts.ts';

export async function hideStrangers(facts: Facts, { executor, state }: ToolContext): Promise<void> {
  for (const window of facts.windows) {
    if (!window.mapped || window.role === 'desktop' || grantFor(window, state.grants)) continue;
    await executor.iconify(window.window);
    if (!state.hidden.includes(window.window)) state.hidden.push(window.window);
  }
}

const grantedApp = (app: AppInfo | null | undefined, facts: Facts) => (app && grantFor(app, facts.grants) ? app : undefined);

/** What the input layer must still find when it sends: the focus for keys, the surfaces at the points for the pointer. */
export function guardOf(facts: Facts): InputGuard {
  if (facts.keyboard) return { focus: facts.focus.window ?? 0 };
  return { at: facts.targets.map(({ point, surface }) => ({ point, kind: surface.kind, window: surface.window })) };
}

/** Before an allowed action: focus for a press, the clipboard guard for whatever will be in front, then the input guard. */
export async function prepareInput(facts: Facts, context: ToolContext): Promise<void> {
  const last = facts.targets.at(-1)?.surface;
  let front = grantedApp(facts.focus.app, facts);
  if (facts.focuses && last?.kind === 'client' && last.window !== null) {
    if (facts.focus.window !== last.window) await context.executor.activate(last.window);
    front = last.app ?? undefined;
  }
  await guardClipboard(grantedApp(front, facts), context);
  context.executor.guard(guardOf(facts));
}
