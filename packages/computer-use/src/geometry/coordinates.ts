/**
 * Mapping between the model's coordinate space and the desktop's root-window pixels. In
 * `pixels` mode a coordinate is in the image pixels of the screenshot it was read from, so it
 * is scaled through the geometry saved with *that* screenshot; in `normalized_0_100` mode it
 * is a percentage of the display.
 */
export const COORDINATE_MODES = ['pixels', 'normalized_0_100'] as const;
export type CoordinateMode = (typeof COORDINATE_MODES)[number];

/** What a screenshot looked like: the image the model saw and the display region it showed. */
export interface ScreenshotGeometry {
  imageWidth: number;
  imageHeight: number;
  displayWidth: number;
  displayHeight: number;
  originX: number;
  originY: number;
}

export interface Point {
  x: number;
  y: number;
}

const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max - 1);

export function toScreen(
  [x, y]: readonly [number, number],
  geometry: ScreenshotGeometry,
  mode: CoordinateMode,
): Point {
  const fx = mode === 'pixels' ? x / geometry.imageWidth : x / 100;
  const fy = mode === 'pixels' ? y / geometry.imageHeight : y / 100;
  return {
    x: clamp(Math.round(fx * geometry.displayWidth), geometry.displayWidth) + geometry.originX,
    y: clamp(Math.round(fy * geometry.displayHeight), geometry.displayHeight) + geometry.originY,
  };
}

/** The inverse of toScreen: where a root-window point appears in the model's space. */
export function fromScreen(point: Point, geometry: ScreenshotGeometry, mode: CoordinateMode): Point {
  const fx = (point.x - geometry.originX) / geometry.displayWidth;
  const fy = (point.y - geometry.originY) / geometry.displayHeight;
  if (mode === 'pixels') {
    return { x: Math.round(fx * geometry.imageWidth), y: Math.round(fy * geometry.imageHeight) };
  }
  return { x: Math.round(fx * 1000) / 10, y: Math.round(fy * 1000) / 10 };
}

/** True when a coordinate lies inside the space the model was shown. */
export function inModelSpace([x, y]: readonly [number, number], geometry: ScreenshotGeometry, mode: CoordinateMode) {
  const [maxX, maxY] = mode === 'pixels' ? [geometry.imageWidth, geometry.imageHeight] : [100, 100];
  return x >= 0 && y >= 0 && x <= maxX && y <= maxY;
}
