/** Every tool deskgate serves, by name. Families live in their own files; this only collects. */
import { accessTools } from './access.ts';
import { batchTools } from './batch.ts';
import { clipboardTools } from './clipboard.ts';
import type { ToolDefinition } from './define-tool.ts';
import { keyboardTools } from './keyboard.ts';
import { mouseTools } from './mouse.ts';
import { screenTools } from './screen.ts';
import { waitTools } from './wait.ts';
import { zoomTools } from './zoom.ts';

export const allTools: readonly ToolDefinition[] = [...accessTools, ...screenTools, ...zoomTools, ...mouseTools, ...keyboardTools, ...clipboardTools, ...waitTools, ...batchTools];

const byName = new Map(allTools.map((tool) => [tool.name, tool]));

export function findTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}
