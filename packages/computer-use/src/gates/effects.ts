/**
 * What the gates do to the desktop, after the verdicts and before the action: hide windows of
 * apps the session may not touch (even when the action was refused — the next screenshot then
 * shows the desktop without them), give the keyboard focus to the granted window a click lands
 * on when no granted app holds it, and run the clipboard guard for the app in front.
 */
import { grantFor } from '../access/grants.ts';
import type { AppInfo } from '../executor.ts';
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

const grantedApp = (app: AppInfo | null, facts: Facts) => (app && grantFor(app, facts.grants) ? app : undefined);

/** Before an allowed action: focus for a click, then the clipboard guard for whatever will be in front. */
export async function prepareInput(facts: Facts, context: ToolContext): Promise<void> {
  const focusGranted = (facts.focus.kind === 'client' || facts.focus.kind === 'popup') && grantedApp(facts.focus.app, facts);
  const last = facts.targets.at(-1)?.surface;
  let front = focusGranted ? facts.focus.app ?? undefined : undefined;
  if (!facts.keyboard && last?.kind === 'client' && last.window !== null) {
    // The click would focus its window anyway; doing it first means no input ever lands while an ungranted app (or nothing) holds the focus.
    if (!focusGranted) await context.executor.activate(last.window);
    front = last.app ?? undefined;
  }
  await guardClipboard(grantedApp(front ?? null, facts), context);
}
