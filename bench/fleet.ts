/**
 * The fleet beside one process of each (docs/performance.md, "Fleet"): 32 sessions clicking
 * at once through 2 gateways × 2 workers (sessions spread over both gateways; the lifecycle
 * queue spreads the desktops over both workers), then through 1 gateway × 1 worker holding all
 * 32 desktops — closed loop (actions/s, p50, p99) and paced at an agent's rate (p99).
 * On one host the fleet shares the same cores, so it shows what the extra hops and processes
 * cost, not the scale-out a second machine would bring.
 */
import type { Stack } from '../scripts/lib/stack.ts';
import { fromSummary, ms, type Row } from './report.ts';
import { clickLoad, openSessions, pacedLoad, type ScaleLevel } from './scale.ts';
import { progress } from './stats.ts';

export const FLEET_SECTION = 'Fleet: 32 sessions, 2 gateways × 2 workers beside 1 × 1';
export const FLEET_SESSIONS = 32;

export interface FleetShape {
  gateways: number;
  workers: number;
}

export interface FleetFigures {
  shape: FleetShape;
  closed: ScaleLevel;
  paced: ScaleLevel;
  /** Desktops each worker held during the run, by worker id. */
  desktopsPerWorker: Record<string, number>;
}

export interface FleetBenchOptions {
  bringUp: (extra: Record<string, string>, label: string, shape: FleetShape) => Promise<Stack>;
  tearDown: (stack: Stack) => Promise<void>;
  onCleanup: (fn: () => unknown) => void;
  clickPoint: [number, number];
  loadSeconds: number;
  pacedRate: number;
  /** How many desktops each worker of a stack holds, by worker id (read from Redis). */
  desktopsByWorker: (stack: Stack) => Promise<Record<string, number>>;
}

export const FLEET_SHAPES: readonly FleetShape[] = [
  { gateways: 2, workers: 2 },
  { gateways: 1, workers: 1 },
];

export async function fleetBench(options: FleetBenchOptions): Promise<FleetFigures[]> {
  const figures: FleetFigures[] = [];
  for (const shape of FLEET_SHAPES) {
    const label = `${shape.gateways}x${shape.workers}`;
    const perWorker = Math.ceil(FLEET_SESSIONS / shape.workers);
    const stack = await options.bringUp({ DESKGATE_MAX_DESKTOPS: String(perWorker), DESKGATE_WARM_DESKTOPS: '0' }, `fleet-${label}`, shape);
    try {
      progress(`fleet ${label}: opening ${FLEET_SESSIONS} sessions over ${shape.gateways} gateway(s)`);
      const opened = await openSessions(stack, `fleet-${label}`, FLEET_SESSIONS, options.clickPoint, stack.mcpUrls);
      options.onCleanup(() => void opened.close());
      const clients = opened.clients;
      const desktopsPerWorker = await options.desktopsByWorker(stack);
      progress(`fleet ${label}: ${FLEET_SESSIONS} sessions clicking for ${options.loadSeconds} s (desktops per worker: ${JSON.stringify(desktopsPerWorker)})`);
      const closed = await clickLoad(clients, options.loadSeconds, options.clickPoint);
      progress(`  ${closed.actionsPerSecond.toFixed(0)} actions/s, p50 ${ms(closed.latency.p50)} ms, p99 ${ms(closed.latency.p99)} ms`);
      const paced = await pacedLoad(clients, options.pacedRate, options.loadSeconds, options.clickPoint);
      progress(`  paced: ${paced.actionsPerSecond.toFixed(0)} actions/s, p99 ${ms(paced.latency.p99)} ms`);
      figures.push({ shape, closed, paced, desktopsPerWorker });
      await opened.close();
    } finally {
      await options.tearDown(stack);
    }
  }
  return figures;
}

export function fleetRows(figures: FleetFigures[] | undefined, pacedRate: number): Row[] {
  const rows: Row[] = [];
  const single = figures?.find((f) => f.shape.gateways === 1 && f.shape.workers === 1);
  for (const f of figures ?? []) {
    const label = `${f.shape.gateways} gateway${f.shape.gateways > 1 ? 's' : ''} × ${f.shape.workers} worker${f.shape.workers > 1 ? 's' : ''}`;
    const versus = single && f !== single ? `; ${(f.closed.actionsPerSecond / single.closed.actionsPerSecond).toFixed(2)}× the 1 × 1 actions/s` : '';
    rows.push({
      section: FLEET_SECTION,
      name: `${label}: left_click loop`,
      n: f.closed.actions,
      p50: f.closed.latency.p50,
      p90: f.closed.latency.p90,
      p99: f.closed.latency.p99,
      compare: `${f.closed.actionsPerSecond.toFixed(0)} actions/s${f.closed.errors ? `, ${f.closed.errors} errors` : ''}${versus}; desktops per worker ${Object.values(f.desktopsPerWorker).join(' + ')}`,
    });
    rows.push({
      section: FLEET_SECTION,
      name: `${label}: paced at ${pacedRate} clicks/s each`,
      ...fromSummary(f.paced.latency),
      compare: `${f.paced.actionsPerSecond.toFixed(0)} actions/s, open loop${f.paced.errors ? `, ${f.paced.errors} errors` : ''}`,
    });
  }
  return rows;
}
