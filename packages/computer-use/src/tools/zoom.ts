/**
 * zoom: a region of the last screenshot, captured again at the display's native resolution
 * (shrunk only as far as the token budget demands). It never replaces the last screenshot,
 * so coordinates keep referring to the full view.
 */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { targetImageSize } from '../geometry/image-size.ts';
import { defineTool } from './define-tool.ts';
import { LIMITS } from './params.ts';
import { JPEG_QUALITY } from './screen.ts';
import { ungrantedAreas } from './visibility.ts';

const edge = z.number().int().min(0).max(LIMITS.coordinateMax);

export const zoomTools = [
  defineTool({
    name: 'zoom',
    title: 'Zoom into the last screenshot', effect: 'observes', gated: true, pixelChecked: false, batchable: false,
    description: () =>
      'Look closer at a region of the last screenshot: [x0, y0, x1, y1] in that screenshot\'s pixels (x1 > x0, y1 > y0). Returns the region at the display\'s full resolution. The last screenshot stays the frame for coordinates.',
    inputSchema: z.strictObject({
      region: z.array(edge).length(4, { message: 'a region is exactly four integers [x0, y0, x1, y1]' }).describe('[x0, y0, x1, y1] in the pixels of the last screenshot'),
    }),
    actionKind: 'none',
    async handle(args, context) {
      const { executor, state } = context;
      const shot = state.lastScreenshot;
      if (!shot) throw new ToolError('no_screenshot', 'zoom looks into the last screenshot, and none has been taken yet. Call screenshot first.');
      const [x0, y0, x1, y1] = args.region as [number, number, number, number];
      if (x1 <= x0 || y1 <= y0) throw new ToolError('bad_args', `region [${args.region.join(', ')}] is empty: x1 must exceed x0 and y1 must exceed y0`);
      if (x1 > shot.imageWidth || y1 > shot.imageHeight) {
        throw new ToolError('bad_args', `region [${args.region.join(', ')}] reaches outside the last screenshot (${shot.imageWidth}×${shot.imageHeight})`);
      }
      const sx = shot.displayWidth / shot.imageWidth;
      const sy = shot.displayHeight / shot.imageHeight;
      const left = Math.floor(x0 * sx);
      const top = Math.floor(y0 * sy);
      const region = {
        x: shot.originX + left,
        y: shot.originY + top,
        width: Math.max(1, Math.min(shot.displayWidth, Math.ceil(x1 * sx)) - left),
        height: Math.max(1, Math.min(shot.displayHeight, Math.ceil(y1 * sy)) - top),
      };
      const image = await executor.capture({ region, scaleTo: targetImageSize(region), format: 'jpeg', quality: JPEG_QUALITY, mask: await ungrantedAreas(context) });
      return { content: [{ type: 'image', data: image.data.toString('base64'), mimeType: image.mimeType }] };
    },
  }),
];
