/**
 * The facts the gates judge an action by, gathered once before any verdict: what the X server
 * has at each target point and holding the keyboard focus (one input-layer round trip), and —
 * in parallel, from the capture helper — whether the pixels at the targets still match the
 * last screenshot.
 */
import type { Grants } from '../access/grants.ts';
import type { TenantPolicy } from '../access/policy.ts';
import type { KeysymChord, MouseButton, WindowSurface, WindowInfo } from '../executor.ts';
import type { DesktopPlatform } from '../keys/blocklist.ts';
import type { Point } from '../geometry/coordinates.ts';
import { parseKeys } from '../keys/keysyms.ts';
import type { ActionKind, ToolContext, ToolDefinition } from '../tools/define-tool.ts';
import { resolvePoint } from '../tools/target.ts';
import { reporting } from './reported-facts.ts';
import { targetsOf } from './targets.ts';

export interface Target {
  point: Point;
  needs: ActionKind;
  surface: WindowSurface;
}

export interface Facts {
  tool: string;
  kind: ActionKind;
  grants: Grants;
  policy: TenantPolicy;
  targets: Target[];
  /** The action types into the focused window. */
  keyboard: boolean;
  /** The action presses a button, which moves the focus to the window pressed on. */
  focuses: boolean;
  focus: WindowSurface;
  windows: WindowInfo[];
  cursor: Point;
  buttonsHeld: MouseButton[];
  /** The targets still look as in the last screenshot (true when not checked). */
  unchanged: boolean;
  /** Key chords the action presses, parsed once; `together` when all are held at once. */
  chords: { chords: KeysymChord[]; together: boolean } | null;
  /** The desktop's platform (the executor's; linux when it says none): it picks the shortcut lists. */
  platform?: DesktopPlatform;
}

interface FactArgs {
  coordinate?: [number, number];
  start_coordinate?: [number, number];
  text?: string;
}

/**
 * A target the pointer already rests on does not count as changed: the agent moved there itself
 * (mouse_move), and the hover feedback that follows is expected, not a screen that changed under it.
 */
const resting = (point: Point, pointer: Point) => Math.abs(point.x - pointer.x) <= 1 && Math.abs(point.y - pointer.y) <= 1;

export async function gatherFacts(tool: ToolDefinition, kind: ActionKind, rawArgs: unknown, context: ToolContext): Promise<Facts> {
  const toolName = tool.name;
  const { state, executor, policy } = context;
  const args = rawArgs as FactArgs;
  const specs = targetsOf(toolName, args, kind, state);
  const explicit: { index: number; point: Point }[] = [];
  for (const [index, spec] of specs.points.entries()) {
    if (spec.from !== 'pointer') explicit.push({ index, point: await resolvePoint(args[spec.from]!, context, spec.from) });
  }
  const checkPixels = tool.pixelChecked && state.lastScreenshot !== null && state.coordinateMode === 'pixels';
  const compare = (point: Point) => (checkPixels ? executor.unchangedSince(state.lastScreenshot!.slot, point) : true);
  // A target the pointer rests on needs no pixel check (see `resting`); judged on a report, the pointer is known first.
  const pointer = reporting(executor).knownPointer?.() ?? null;
  const [facts, checked] = await Promise.all([
    executor.gateFacts(explicit.map((target) => target.point)),
    Promise.all(explicit.map(({ point }) => (pointer && resting(point, pointer) ? null : compare(point)))),
  ]);
  // Skipped for a pointer the facts do not have after all: checked now.
  const sameAt = await Promise.all(explicit.map(({ point }, i) => checked[i] ?? (resting(point, facts.cursor) || compare(point))));
  const targets: Target[] = specs.points.map((spec, index) => {
    const at = explicit.findIndex((target) => target.index === index);
    return at >= 0 ? { point: explicit[at]!.point, needs: spec.needs, surface: facts.at[at]! } : { point: facts.cursor, needs: spec.needs, surface: facts.underPointer };
  });
  const isChord = toolName === 'key' || toolName === 'hold_key';
  return {
    tool: toolName,
    kind,
    grants: state.grants,
    policy,
    targets,
    keyboard: specs.keyboard,
    focuses: specs.focuses,
    focus: facts.focus,
    windows: facts.windows,
    cursor: facts.cursor,
    buttonsHeld: facts.buttonsHeld,
    unchanged: explicit.every(({ point }, i) => sameAt[i] || resting(point, facts.cursor)),
    chords: isChord && typeof args.text === 'string' ? { chords: parseKeys(args.text), together: toolName === 'hold_key' } : null,
    platform: executor.platform ?? 'linux',
  };
}
