/**
 * Per-action latency through MCP over HTTP, as an agent sees it: the client's wall time for
 * tools/call, plus deskgate's own timings of each call for the "where the time goes" table.
 */
import type { BenchClient, Timings } from './client.ts';
import { summarize, type Summary } from './stats.ts';

export interface ActionRun {
  summary: Summary;
  /** Client wall time and deskgate's timings for each measured call. */
  calls: { ms: number; timings: Timings }[];
}

export async function measureAction(
  client: BenchClient,
  tool: string,
  args: (i: number) => Record<string, unknown>,
  n: number,
  warmup: number,
): Promise<ActionRun> {
  const calls: ActionRun['calls'] = [];
  for (let i = 0; i < warmup + n; i++) {
    const result = await client.ok(tool, args(i));
    if (i >= warmup) calls.push({ ms: result.ms, timings: result.timings });
  }
  return { summary: summarize(calls.map((call) => call.ms)), calls };
}

/** 100 printable ASCII characters, as an agent would type into a form. */
export const TYPE_TEXT = 'The quick brown fox jumps over the lazy dog, 0123456789; THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!'.slice(0, 100);

export interface BreakdownStep {
  step: string;
  p50: number;
  mean: number;
  how: string;
}

const t = (timings: Timings, key: string) => timings[key] ?? 0;

/**
 * Splits each call into layers from its timings and reports the p50 and mean of each layer
 * (means add up to the mean total; p50s need not).
 */
export function breakdown(run: ActionRun, kind: 'screenshot' | 'click'): BreakdownStep[] {
  const layers: { step: string; how: string; of: (call: { ms: number; timings: Timings }) => number }[] = [
    { step: 'HTTP + MCP layers', how: 'client total − gatewayMs (client SDK, HTTP, Hono, auth, MCP server)', of: (c) => c.ms - t(c.timings, 'gatewayMs') },
    {
      step: 'gateway → worker dispatch',
      how: 'gatewayMs − workerMs − queueMs (session lookup, enqueue, reply via Redis)',
      of: (c) => t(c.timings, 'gatewayMs') - t(c.timings, 'workerMs') - t(c.timings, 'queueMs'),
    },
    { step: '  queue wait', how: 'queueMs (Date.now() resolution: 0 or 1)', of: (c) => t(c.timings, 'queueMs') },
    { step: 'worker session state', how: 'workerMs − toolMs (Redis HGETALL + HSET)', of: (c) => t(c.timings, 'workerMs') - t(c.timings, 'toolMs') },
  ];
  if (kind === 'click') {
    layers.push(
      { step: 'tool outside the helper', how: 'toolMs − inputMs (core dispatcher)', of: (c) => t(c.timings, 'toolMs') - t(c.timings, 'inputMs') },
      { step: 'input helper', how: 'inputMs (JSON line to Python, XTest move+click, 2 syncs)', of: (c) => t(c.timings, 'inputMs') },
    );
  } else {
    layers.push(
      {
        step: 'tool outside the capture call',
        how: 'toolMs − helperRoundTripMs (display-info helper call, base64)',
        of: (c) => t(c.timings, 'toolMs') - t(c.timings, 'helperRoundTripMs'),
      },
      {
        step: 'capture helper I/O',
        how: 'helperRoundTripMs − capture − convert − scale − encode (framing, pipe)',
        of: (c) =>
          t(c.timings, 'helperRoundTripMs') - t(c.timings, 'captureMs') - t(c.timings, 'convertMs') - t(c.timings, 'scaleMs') - t(c.timings, 'encodeMs'),
      },
      { step: '  MIT-SHM capture', how: 'captureMs', of: (c) => t(c.timings, 'captureMs') },
      { step: '  BGRX → RGB', how: 'convertMs', of: (c) => t(c.timings, 'convertMs') },
      { step: '  scale', how: 'scaleMs', of: (c) => t(c.timings, 'scaleMs') },
      { step: '  JPEG encode', how: 'encodeMs', of: (c) => t(c.timings, 'encodeMs') },
    );
  }
  layers.push({ step: 'total', how: 'client-observed wall time', of: (c) => c.ms });
  return layers.map((layer) => {
    const values = run.calls.map(layer.of);
    const summary = summarize(values);
    return { step: layer.step, how: layer.how, p50: summary.p50, mean: summary.mean };
  });
}
