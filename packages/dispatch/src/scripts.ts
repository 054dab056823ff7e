/**
 * The Lua scripts, loaded once per Redis connection as ioredis commands: each call sends the
 * script's SHA (EVALSHA, falling back to the source only when Redis lost it) instead of the
 * whole source, which EVAL sent with every tool call.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const SCRIPTS = {
  enqueueAction: { file: 'enqueue-action.lua', keys: 4 },
  countCall: { file: 'count-call.lua', keys: 1 },
  renewLock: { file: 'renew-lock.lua', keys: 1 },
  releaseLock: { file: 'release-lock.lua', keys: 1 },
} as const;

type Name = keyof typeof SCRIPTS;
export type Scripts = Record<Name, (...keysAndArgs: (string | number)[]) => Promise<unknown>>;

const defined = new WeakMap<Redis, Scripts>();

export function scriptsOf(redis: Redis): Scripts {
  let scripts = defined.get(redis);
  if (!scripts) {
    for (const [name, { file, keys }] of Object.entries(SCRIPTS)) {
      redis.defineCommand(`deskgate_${name}`, { numberOfKeys: keys, lua: readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8') });
    }
    const commands = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
    scripts = Object.fromEntries(Object.keys(SCRIPTS).map((name) => [name, (...args: (string | number)[]) => commands[`deskgate_${name}`]!(...args)])) as Scripts;
    defined.set(redis, scripts);
  }
  return scripts;
}
