/** switch_display: which monitor screenshots show, and which one coordinates refer to. */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, text } from './define-tool.ts';
import { chooseMonitor } from './monitors.ts';

export const displayTools = [
  defineTool({
    name: 'switch_display',
    title: 'Switch the display shown', effect: 'configures', gated: true, pixelChecked: false, batchable: false,
    description: () =>
      'Choose the monitor that screenshots show and that coordinates refer to, by the name the screenshot lists, or "auto" for the primary monitor. Take a screenshot after switching.',
    inputSchema: z.strictObject({
      display: z.string().min(1).max(100).describe('A monitor name as listed with the screenshot (e.g. "DG-2"), or "auto"'),
    }),
    actionKind: 'none',
    async handle(args, { executor, state }) {
      const monitors = await executor.monitors();
      if (monitors.length <= 1) {
        throw new ToolError('display_error', 'This desktop has a single display; there is nothing to switch to. Screenshots always show it.');
      }
      const wanted = args.display === 'auto' ? null : monitors.find((monitor) => monitor.name === args.display)?.name;
      if (wanted === undefined) {
        throw new ToolError('bad_args', `No display named "${args.display}". This desktop has: ${monitors.map((m) => m.name).join(', ')} (or "auto").`);
      }
      const monitor = chooseMonitor(monitors, wanted);
      state.display = wanted;
      // Coordinates read off a screenshot of another monitor would land on the old one.
      if (state.lastScreenshot && state.lastScreenshot.monitor !== monitor.name) state.lastScreenshot = null;
      const where = `${monitor.name} (${monitor.width}×${monitor.height} at +${monitor.x}+${monitor.y})`;
      return text(`${wanted === null ? 'Automatic display choice: ' : ''}Screenshots now show ${where}. Take a screenshot before using coordinates.`);
    },
  }),
];
