/**
 * The gate pipeline, run by the dispatcher before every action, in the seed's order: the
 * allowlist, hiding windows of apps the session was not granted, the frontmost app, the tier,
 * the window under the target (hit-test), the clipboard guard, pixel staleness, and the
 * system-shortcut blocklist.
 * The kill switch is enforced by the gateway before a call reaches here. Facts are gathered
 * in parallel first; the verdicts are pure functions over them; the first refusal wins and
 * the action does not run.
 */
import { ToolError } from '../errors.ts';
import { grantFor } from '../access/grants.ts';
import type { Point } from '../geometry/coordinates.ts';
import { actionKindOf, type ToolContext, type ToolDefinition } from '../tools/define-tool.ts';
import { resolvePoint } from '../tools/target.ts';
import { guardClipboard } from './clipboard-guard.ts';
import { allowlistGate, appGate, keyComboGate, stalenessGate, tierGate, type Refusal } from './refusals.ts';
import { windowAt } from './window-geometry.ts';

/** Tools that work before any grant, or whose parts are gated one by one. */
const UNGATED = new Set(['request_access', 'list_granted_applications', 'wait', 'computer_batch']);
/** Tools whose target must still look as it did in the last screenshot. */
const PIXEL_CHECKED = new Set(['left_click', 'double_click', 'triple_click', 'right_click', 'middle_click', 'left_click_drag', 'scroll']);
const CHORD_TOOLS = new Set(['key', 'hold_key']);

interface GateArgs {
  coordinate?: [number, number];
  start_coordinate?: [number, number];
  text?: string;
}

/**
 * The staleness verdict on raw pixels. A target the pointer already rests on does not count:
 * the agent moved there itself (mouse_move), and the hover feedback that follows (a
 * highlighted button) is expected, not a sign of a screen that changed under it.
 */
function targetsUnchanged(targets: Point[], sameAt: boolean[], pointer: Point): boolean {
  return targets.every((point, i) => sameAt[i] || (Math.abs(point.x - pointer.x) <= 1 && Math.abs(point.y - pointer.y) <= 1));
}

export async function runGates(tool: ToolDefinition, rawArgs: unknown, context: ToolContext): Promise<Refusal | undefined> {
  if (UNGATED.has(tool.name)) return undefined;
  const { state, executor } = context;
  const empty = allowlistGate(state.grants);
  const kind = actionKindOf(tool, rawArgs, state);
  if (empty || kind === 'none') return empty;

  const args = rawArgs as GateArgs;
  const targets: Point[] = [];
  try {
    if (args.start_coordinate) targets.push(await resolvePoint(args.start_coordinate, context, 'start_coordinate'));
    if (args.coordinate) targets.push(await resolvePoint(args.coordinate, context));
  } catch (error) {
    if (error instanceof ToolError) return { kind: error.kind, message: error.message };
    throw error;
  }
  const checkPixels = PIXEL_CHECKED.has(tool.name) && state.lastScreenshot !== null && state.coordinateMode === 'pixels';
  // Both helpers at once: window facts from the input runtime, pixels from the capture helper.
  const [{ windows, frontmost: focused, cursor }, sameAt] = await Promise.all([
    executor.gateFacts(),
    Promise.all(targets.map((point) => (checkPixels ? executor.unchangedSince(state.lastScreenshot!.slot, point) : true))),
  ]);
  const unchanged = targetsUnchanged(targets, sameAt, cursor);

  // Hide what the session may not touch. The verdicts below still judge the screen the agent
  // acted on: if a stranger was in front or under the target, this action is refused, and
  // the next screenshot shows the desktop without it.
  const strangers = windows.filter((window) => window.mapped && !grantFor(window, state.grants));
  for (const window of strangers) {
    await executor.iconify(window.window);
    if (!state.hidden.includes(window.window)) state.hidden.push(window.window);
  }

  // Only a managed client window is an app: focus on the root or the window manager's own
  // window (nothing focused) is no app at all.
  const frontmost = windows.some((window) => window.window === focused.window) ? focused : undefined;
  await guardClipboard(frontmost, context);
  const underTargets = targets.map((point) => windowAt(windows, point));
  const tierTarget = kind === 'keyboard' || targets.length === 0 ? frontmost : underTargets.at(-1);
  return (
    appGate(frontmost, state.grants, 'frontmost') ??
    underTargets.map((window) => appGate(window, state.grants, 'target')).find(Boolean) ??
    tierGate(tierTarget, kind, state.grants, tool.name) ??
    stalenessGate(unchanged) ??
    keyComboGate(CHORD_TOOLS.has(tool.name) ? args.text : undefined, state.grants)
  );
}
