/** Every tool deskgate serves, by name. Families live in their own files; this only collects. */
import { computerTool } from '../anthropic/computer-tool.ts';
import { accessTools } from './access.ts';
import { appTools } from './apps.ts';
import { batchTool } from './batch.ts';
import { clipboardTools } from './clipboard.ts';
import type { ToolDefinition } from './define-tool.ts';
import { displayTools } from './display.ts';
import { keyboardTools } from './keyboard.ts';
import { mouseTools } from './mouse.ts';
import { screenTools } from './screen.ts';
import { waitTools } from './wait.ts';
import { zoomTools } from './zoom.ts';

const nativeTools: readonly ToolDefinition[] = [...accessTools, ...screenTools, ...zoomTools, ...mouseTools, ...keyboardTools, ...appTools, ...displayTools, ...clipboardTools, ...waitTools];

export const allTools: readonly ToolDefinition[] = [...nativeTools, batchTool(nativeTools)];

/**
 * The surface of the /computer endpoint: Anthropic's `computer` tool for existing agent loops,
 * plus the grant tools (a tenant policy can also grant apps on start, see docs/policy.md).
 */
const computer = computerTool(nativeTools);

export const computerSurfaceTools: readonly ToolDefinition[] = [computer, ...accessTools];

export type Surface = 'native' | 'computer';

export const toolsOf = (surface: Surface) => (surface === 'computer' ? computerSurfaceTools : allTools);

const byName = new Map([...allTools, computer].map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
