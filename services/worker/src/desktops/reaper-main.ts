/**
 * The watchdog's second half (worker-marker.ts `watchOver`): run once the worker it watched
 * has died. Waits until that pid is no longer the worker (a zombie counts as gone: it holds no
 * lock and runs nothing), then reaps every dead worker's desktops and every free slot's
 * leftovers, and writes one JSON log line to stderr (the worker's log).
 */
import { loadDesktopUsers, sameProcessAlive } from './desktop-users.ts';
import { reapDeadWorkers, type ReaperArgs } from './worker-marker.ts';

const args = JSON.parse(process.argv[2] ?? '{}') as ReaperArgs;
const line = (level: number, msg: string, fields: Record<string, unknown> = {}) =>
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), name: 'deskgate-reaper', pid: process.pid, watched: args.pid, ...fields, msg })}\n`);

try {
  const until = Date.now() + 10_000;
  while (sameProcessAlive(args.pid, args.start)) {
    if (Date.now() > until) {
      line(40, 'the watched worker still runs after its pipe closed; reaping nothing');
      process.exit(0);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const users = args.userPrefix ? await loadDesktopUsers(args.userPrefix) : [];
  const reaped = await reapDeadWorkers({ users, dir: args.dir, slotDir: args.slotDir });
  if (reaped.workers.length || reaped.users.length || reaped.killed) line(30, "reaped a dead worker's desktops", { ...reaped });
} catch (error) {
  line(50, 'reaping failed', { err: (error as Error).message });
  process.exitCode = 1;
}
