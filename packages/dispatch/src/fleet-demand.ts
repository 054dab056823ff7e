/**
 * What the fleet needs, for autoscalers (docs/autoscaling.md): the workers' published room
 * added up, the sessions waiting for a desktop, and from those the desktops and workers
 * wanted. A pure function of its inputs, so a scaler's decision can be checked by hand.
 */
import type { WorkerCapacity } from './lifecycle.ts';

export interface FleetSettings {
  /** Spare desktops the fleet keeps ready beyond those in use. */
  warmDesktops: number;
  /** Desktops per worker assumed while no worker is up to say. */
  desktopsPerWorker: number;
}

export interface FleetDemand {
  workers: number;
  desktops: { capacity: number; busy: number; warm: number; free: number };
  sessions: { waiting: number };
  /** desktops = busy + waiting + warm target; workers = what holds them, never fewer than hold a busy desktop. */
  wanted: { desktops: number; workers: number };
  desktopsPerWorker: number;
  at: number;
}

export function fleetDemand(workers: ReadonlyMap<string, WorkerCapacity>, waitingSessions: number, settings: FleetSettings, now = Date.now()): FleetDemand {
  const desktops = { capacity: 0, busy: 0, warm: 0, free: 0 };
  let holdingBusy = 0;
  let largest = 0;
  for (const worker of workers.values()) {
    desktops.capacity += worker.max;
    desktops.busy += worker.busy;
    desktops.warm += worker.warm;
    desktops.free += worker.free;
    if (worker.busy > 0) holdingBusy++;
    largest = Math.max(largest, worker.max);
  }
  const desktopsPerWorker = largest > 0 ? largest : settings.desktopsPerWorker;
  const wantedDesktops = desktops.busy + waitingSessions + settings.warmDesktops;
  return {
    workers: workers.size,
    desktops,
    sessions: { waiting: waitingSessions },
    wanted: { desktops: wantedDesktops, workers: Math.max(holdingBusy, Math.ceil(wantedDesktops / desktopsPerWorker)) },
    desktopsPerWorker,
    at: now,
  };
}
