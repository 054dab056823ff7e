/**
 * The token-budget sizing rule for screenshots: the model's vision encoder sees 28×28-pixel
 * tiles, so an image costs ⌈w/28⌉·⌈h/28⌉ tokens. A frame is kept as is when its long edge is at
 * most 1568 px and it costs at most 1568 tokens; otherwise it shrinks to the largest width
 * (height following the aspect ratio) that satisfies both.
 */
export const MAX_LONG_EDGE = 1568;
export const MAX_TOKENS = 1568;
const TILE = 28;

export interface Size {
  width: number;
  height: number;
}

export function imageTokens({ width, height }: Size): number {
  return Math.ceil(width / TILE) * Math.ceil(height / TILE);
}

function fits(size: Size, maxTokens: number): boolean {
  return size.width <= MAX_LONG_EDGE && size.height <= MAX_LONG_EDGE && imageTokens(size) <= maxTokens;
}

export function targetImageSize(display: Size, maxTokens = MAX_TOKENS): Size {
  if (!(display.width >= 1 && display.height >= 1)) {
    throw new RangeError(`display size must be at least 1×1, got ${display.width}×${display.height}`);
  }
  if (fits(display, maxTokens)) return { width: display.width, height: display.height };
  const aspect = display.width / display.height;
  const sizeFor = (width: number): Size => ({ width, height: Math.max(1, Math.round(width / aspect)) });
  // Binary search the largest width that fits; width 1 always fits.
  let lo = 1;
  let hi = display.width;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(sizeFor(mid), maxTokens)) lo = mid;
    else hi = mid - 1;
  }
  return sizeFor(lo);
}
