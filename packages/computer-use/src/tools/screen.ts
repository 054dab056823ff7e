/** screenshot: the model's eyes, and the frame every later coordinate refers to. */
import { z } from 'zod';
import { targetImageSize } from '../geometry/image-size.ts';
import { defineTool } from './define-tool.ts';
import { chooseMonitor } from './monitors.ts';
import { ungrantedAreas } from './visibility.ts';

/** Capture-helper slot that keeps the raw pixels of the last screenshot. */
export const LAST_SCREENSHOT_SLOT = 'last-screenshot';
export const JPEG_QUALITY = 75;
/**
 * `auto`: the capture helper sends an indexed PNG when the frame is screen content (exact up to
 * 256 colours; with a desktop's few rare colours moved at most 32) and it compresses well, else
 * the JPEG it always sent (docs/capture-helper.md#auto). On the bench's text-heavy 1280×800
 * desktop 60 KB instead of 244 KB for ~1.5 ms more encoding (end to end on loopback the same
 * within noise); photos and scaled frames are the same JPEG. Text is also sharper than at q75.
 */
export const SCREENSHOT_FORMAT = 'auto';

export const screenTools = [
  defineTool({
    name: 'screenshot',
    title: 'Take a screenshot', effect: 'observes', gated: true, pixelChecked: false, batchable: true,
    description: () =>
      'Take a screenshot of the desktop. Coordinates you send to other tools are read off the most recent screenshot, so take a new one whenever the screen may have changed.',
    inputSchema: z.strictObject({
      save_to_disk: z.boolean().optional().describe('Accepted for compatibility; deskgate never writes screenshots to disk on the desktop host'),
    }),
    actionKind: 'none',
    async handle(_args, context) {
      const { executor, state } = context;
      const [monitors, mask] = await Promise.all([executor.monitors(), ungrantedAreas(context)]);
      const monitor = chooseMonitor(monitors, state.display);
      const size = targetImageSize(monitor);
      const image = await executor.capture({
        region: { x: monitor.x, y: monitor.y, width: monitor.width, height: monitor.height },
        scaleTo: size,
        format: SCREENSHOT_FORMAT,
        quality: JPEG_QUALITY,
        keep: LAST_SCREENSHOT_SLOT,
        mask,
      });
      state.lastScreenshot = {
        imageWidth: image.width,
        imageHeight: image.height,
        displayWidth: monitor.width,
        displayHeight: monitor.height,
        originX: monitor.x,
        originY: monitor.y,
        slot: LAST_SCREENSHOT_SLOT,
        monitor: monitor.name,
        takenAt: Date.now(),
      };
      const content: ({ type: 'image'; data: string; mimeType: string } | { type: 'text'; text: string })[] = [
        { type: 'image', data: image.data.toString('base64'), mimeType: image.mimeType },
      ];
      if (monitors.length > 1) {
        const names = monitors.map((m) => `${m.name} (${m.width}×${m.height}${m.name === monitor.name ? ', shown' : ''})`);
        content.push({ type: 'text', text: `Monitors: ${names.join(', ')}. Use switch_display to choose another.` });
      }
      return { content };
    },
  }),
];
