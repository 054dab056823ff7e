/**
 * Where an input action lands, for the gates: the points it touches and the action kind each
 * needs (the press of a drag needs the click tier, its drop the full tier), or the keyboard
 * focus for keys. Mouse down/up act where the pointer is, so the pointer is their target.
 */
import type { SessionState } from '../session-state.ts';
import type { ActionKind } from '../tools/define-tool.ts';

export interface TargetSpec {
  /** Which argument holds the point, or the pointer's current position. */
  from: 'coordinate' | 'start_coordinate' | 'pointer';
  needs: ActionKind;
}

export interface ActionTargets {
  points: TargetSpec[];
  /** Keys go to the window holding the X input focus. */
  keyboard: boolean;
  /** A button press: the window manager gives the focus to the window pressed on. */
  focuses: boolean;
}

interface TargetArgs {
  start_coordinate?: unknown;
}

/** The targets of a native tool call, given its action kind (which already folds in modifiers and held buttons). */
export function targetsOf(tool: string, args: TargetArgs, kind: ActionKind, state: SessionState): ActionTargets {
  switch (tool) {
    case 'left_click':
    case 'double_click':
    case 'triple_click':
    case 'right_click':
    case 'middle_click':
      return { points: [{ from: 'coordinate', needs: kind }], keyboard: false, focuses: true };
    case 'scroll':
    case 'mouse_move':
      return { points: [{ from: 'coordinate', needs: kind }], keyboard: false, focuses: false };
    case 'left_click_drag':
      return { points: [{ from: args.start_coordinate ? 'start_coordinate' : 'pointer', needs: 'mouse' }, { from: 'coordinate', needs: 'mouse_full' }], keyboard: false, focuses: true };
    case 'left_mouse_down':
      return { points: [{ from: 'pointer', needs: 'mouse' }], keyboard: false, focuses: true };
    case 'left_mouse_up':
      // Released where it was moved to: a move while held was already judged as a drop (full).
      return { points: [{ from: 'pointer', needs: state.mouseHeld ? 'mouse' : kind }], keyboard: false, focuses: false };
    default:
      return { points: [], keyboard: kind === 'keyboard', focuses: false };
  }
}
