/**
 * Turns a coordinate from the model into a root-window point, through the geometry of the
 * screenshot it was read from (pixels mode) or the current display (normalized mode).
 */
import { ToolError } from '../errors.ts';
import { inModelSpace, toScreen, type Point, type ScreenshotGeometry } from '../geometry/coordinates.ts';
import { chooseMonitor } from './monitors.ts';
import type { ToolContext } from './define-tool.ts';

export async function frameOf(context: ToolContext): Promise<ScreenshotGeometry> {
  const { state, executor } = context;
  if (state.lastScreenshot) return state.lastScreenshot;
  if (state.coordinateMode === 'pixels') {
    throw new ToolError('no_screenshot', 'No screenshot has been taken in this session yet. Call screenshot first, then use coordinates read off it.');
  }
  const monitor = chooseMonitor(await executor.monitors(), state.display);
  return { imageWidth: 100, imageHeight: 100, displayWidth: monitor.width, displayHeight: monitor.height, originX: monitor.x, originY: monitor.y };
}

export async function resolvePoint(coordinate: readonly [number, number], context: ToolContext, field = 'coordinate'): Promise<Point> {
  const frame = await frameOf(context);
  const mode = context.state.coordinateMode;
  if (!inModelSpace(coordinate, frame, mode)) {
    const bounds = mode === 'pixels' ? `0–${frame.imageWidth} × 0–${frame.imageHeight} (the last screenshot)` : '0–100 × 0–100';
    throw new ToolError('bad_args', `${field} [${coordinate.join(', ')}] is outside ${bounds}`);
  }
  return toScreen(coordinate, frame, mode);
}

export function assertMouseFree(context: ToolContext, tool: string): void {
  if (context.state.mouseHeld) {
    throw new ToolError('state_conflict', `The left mouse button is held down (left_mouse_down); call left_mouse_up before ${tool}.`);
  }
}
