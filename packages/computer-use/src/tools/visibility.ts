/**
 * Screenshot filtering: windows of apps the session was not granted are blacked out in every
 * screenshot and zoom, including the parts that show around granted windows stacked above.
 */
import { grantFor } from '../access/grants.ts';
import type { Rect } from '../executor.ts';
import { hiddenAreas } from '../gates/window-geometry.ts';
import type { ToolContext } from './define-tool.ts';

export async function ungrantedAreas({ executor, state }: ToolContext): Promise<Rect[]> {
  // The desktop's own windows (its panel) show; every app not granted is blacked out.
  return hiddenAreas(await executor.listWindows(), (window) => window.role === 'desktop' || grantFor(window, state.grants) !== undefined);
}
