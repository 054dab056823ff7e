/**
 * Window arithmetic for the gates and screenshot filtering: which window is under a point,
 * and which parts of the screen show windows the session may not see. Windows come bottom
 * to top, as X stacks them; a window hides whatever it overlaps below it.
 */
import type { Point } from '../geometry/coordinates.ts';
import type { Rect, WindowInfo } from '../executor.ts';

const contains = (r: Rect, p: Point) => p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;

export function windowAt(windows: WindowInfo[], point: Point): WindowInfo | undefined {
  for (let i = windows.length - 1; i >= 0; i--) {
    const window = windows[i]!;
    if (window.mapped && contains(window, point)) return window;
  }
  return undefined;
}

/** The parts of `a` not covered by `b` (at most four rectangles). */
export function subtract(a: Rect, b: Rect): Rect[] {
  const left = Math.max(a.x, b.x);
  const top = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  if (left >= right || top >= bottom) return [a];
  const parts: Rect[] = [];
  if (a.y < top) parts.push({ x: a.x, y: a.y, width: a.width, height: top - a.y });
  if (bottom < a.y + a.height) parts.push({ x: a.x, y: bottom, width: a.width, height: a.y + a.height - bottom });
  if (a.x < left) parts.push({ x: a.x, y: top, width: left - a.x, height: bottom - top });
  if (right < a.x + a.width) parts.push({ x: right, y: top, width: a.x + a.width - right, height: bottom - top });
  return parts;
}

/**
 * Rectangles to black out so that no pixel of a hidden window shows: each hidden window minus
 * every visible window stacked above it (a visible window on top stays whole; a hidden window
 * on top of a visible one blacks out the overlap).
 */
export function hiddenAreas(windows: WindowInfo[], isVisible: (window: WindowInfo) => boolean): Rect[] {
  const areas: Rect[] = [];
  windows.forEach((window, index) => {
    if (!window.mapped || isVisible(window)) return;
    let parts: Rect[] = [{ x: window.x, y: window.y, width: window.width, height: window.height }];
    for (const above of windows.slice(index + 1)) {
      if (above.mapped && isVisible(above)) parts = parts.flatMap((part) => subtract(part, above));
    }
    areas.push(...parts);
  });
  return areas;
}
