import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fleetDemand } from './fleet-demand.ts';
import { workerCapacity, type WorkerCapacity } from './lifecycle.ts';

const worker = (max: number, busy: number, warm: number): WorkerCapacity => workerCapacity.parse({ max, busy, warm, free: max - busy, nextFreeAt: 0, at: 0 });
const settings = { warmDesktops: 1, desktopsPerWorker: 4 };

test('an idle fleet wants its warm spare, on one worker', () => {
  const demand = fleetDemand(new Map([['a', worker(4, 0, 1)]]), 0, settings, 5);
  assert.deepEqual(demand, {
    workers: 1,
    desktops: { capacity: 4, busy: 0, warm: 1, free: 4 },
    sessions: { waiting: 0 },
    wanted: { desktops: 1, workers: 1 },
    desktopsPerWorker: 4,
    at: 5,
  });
});

test('sessions waiting for a desktop add to what is wanted: a full worker and three waiting want two workers', () => {
  const demand = fleetDemand(new Map([['a', worker(4, 4, 0)]]), 3, settings);
  assert.equal(demand.wanted.desktops, 4 + 3 + 1);
  assert.equal(demand.wanted.workers, 2);
});

test('never fewer workers than hold a busy desktop, even when few desktops are wanted', () => {
  const demand = fleetDemand(new Map([['a', worker(8, 1, 0)], ['b', worker(8, 1, 0)], ['c', worker(8, 1, 0)]]), 0, settings);
  assert.equal(demand.wanted.desktops, 4);
  assert.equal(demand.wanted.workers, 3);
});

test('with no worker up, the configured desktops per worker decide, and a waiting session wants one', () => {
  const demand = fleetDemand(new Map(), 1, { warmDesktops: 0, desktopsPerWorker: 2 });
  assert.deepEqual(demand.wanted, { desktops: 1, workers: 1 });
  assert.equal(demand.desktopsPerWorker, 2);
  assert.deepEqual(fleetDemand(new Map(), 0, { warmDesktops: 0, desktopsPerWorker: 2 }).wanted, { desktops: 0, workers: 0 });
});
