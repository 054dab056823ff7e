/**
 * The low-latency action channel: the gateway pushes a request onto the desktop's list, the
 * worker that owns the desktop pops it (so it runs at most once) and writes the reply to the
 * gateway directly, or pushes it onto the gateway's reply list.
 */
import { z } from 'zod';
import { COORDINATE_MODES, SCREENSHOT_AFTER } from '@deskgate/computer-use';
import { directRoute } from './direct-replies/protocol.ts';

export const actionRequest = z.object({
  id: z.string(),
  /** The gateway's reply list, in Redis. */
  replyTo: z.string(),
  /** Where the gateway also takes the reply directly (direct-replies/): absent when it does not. */
  direct: directRoute.optional(),
  tenant: z.string(),
  session: z.string(),
  tool: z.string(),
  args: z.unknown(),
  /** Epoch ms after which the worker must not start the action: the caller has given up. */
  deadline: z.number(),
  sentAt: z.number(),
  /** The coordinate mode the caller's endpoint asked for; the worker refuses it if the session has another. */
  coordinateMode: z.enum(COORDINATE_MODES).optional(),
  /** `settled`: a tool that acts replies with a screenshot once the screen has settled (?screenshot_after= on /mcp). */
  screenshotAfter: z.enum(SCREENSHOT_AFTER).optional(),
  /** `person`: a person drives from the web console (the session's agent is told the screen changed on its next call). */
  actor: z.enum(['person']).optional(),
  /**
   * The fencing epoch of the caller's lock on the desktop. Not part of the JSON the gateway
   * sends: the enqueue script stores it in front of the request ("<epoch>|<request JSON>") and
   * the worker's claim returns it beside the request (an entry carrying it inside the JSON, the
   * older format, is still read).
   */
  epoch: z.number().int(),
});
export type ActionRequest = z.infer<typeof actionRequest>;

export const actionReply = z.object({
  id: z.string(),
  result: z.object({
    content: z.array(z.any()),
    isError: z.boolean().optional(),
    structuredContent: z.any().optional(),
  }),
  /** Where the time went on the worker side, in ms (queue wait, gates, executor, helpers). */
  timings: z.record(z.string(), z.number()),
});
export type ActionReply = z.infer<typeof actionReply>;
