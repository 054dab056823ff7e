/**
 * Every Lua script deskgate runs, the way BullMQ keeps its own: one file per script in lua/,
 * named `<name>-<number of keys>.lua`, loaded once per Redis connection as an ioredis command
 * (defineCommand). A call sends the script's SHA (EVALSHA); ioredis sends the source only the
 * first time on a connection and again when Redis answers NOSCRIPT (after a restart or a
 * SCRIPT FLUSH). Keys and arguments go as KEYS/ARGV, never into a script's text.
 *
 * A line `-- @include <name>` is replaced, at load time, by lua/includes/<name>.lua (each
 * include at most once per script): the lock's "<epoch>|<controller>" parsing lives there, once.
 */
import { readFileSync } from 'node:fs';
import type { ChainableCommander, Redis } from 'ioredis';

/** The one table of scripts: the file names. A script's name and key count are read from its file name. */
export const SCRIPT_FILES = [
  'enqueueAction-5.lua',
  'claimAction-3.lua',
  'claimLock-2.lua',
  'renewLock-1.lua',
  'releaseLock-1.lua',
  'countCall-1.lua',
  'reserveSession-2.lua',
  'markSessionCreator-1.lua',
  'detachDesktop-1.lua',
  'saveSession-1.lua',
  'recordAudit-1.lua',
] as const;

type NameOf<F> = F extends `${infer Name}-${number}.lua` ? Name : never;
export type ScriptName = NameOf<(typeof SCRIPT_FILES)[number]>;
export type Scripts = Record<ScriptName, (...keysAndArgs: (string | number)[]) => Promise<unknown>>;

const FILE_NAME = /^([A-Za-z][A-Za-z0-9]*)-(\d+)\.lua$/;
const INCLUDE = /^[ \t]*--[ \t]*@include[ \t]+"?([A-Za-z0-9_-]+)"?[ \t]*$/gm;

const luaFile = (path: string) => readFileSync(new URL(`./lua/${path}`, import.meta.url), 'utf8');

/** A script's source as Redis gets it: its includes inlined (each once), nothing else changed. */
export function scriptSource(file: string, seen = new Set<string>()): string {
  return luaFile(file).replace(INCLUDE, (_line, include: string) => {
    if (seen.has(include)) return `-- (${include} already included)`;
    seen.add(include);
    return scriptSource(`includes/${include}.lua`, seen);
  });
}

export interface ScriptDefinition {
  name: ScriptName;
  file: string;
  numberOfKeys: number;
  lua: string;
}

let definitions: ScriptDefinition[] | undefined;

/** Every script, read from its file once per process. */
export function scriptDefinitions(): ScriptDefinition[] {
  definitions ??= SCRIPT_FILES.map((file) => {
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`lua/${file}: a script file is named <name>-<number of keys>.lua`);
    return { name: match[1] as ScriptName, file, numberOfKeys: Number(match[2]), lua: scriptSource(file) };
  });
  return definitions;
}

const commandName = (name: ScriptName) => `deskgate_${name}`;
const defined = new WeakMap<Redis, Scripts>();

/** The scripts as functions on this connection (defined on it the first time). */
export function scriptsOf(redis: Redis): Scripts {
  let scripts = defined.get(redis);
  if (!scripts) {
    for (const { name, numberOfKeys, lua } of scriptDefinitions()) redis.defineCommand(commandName(name), { numberOfKeys, lua });
    const commands = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
    scripts = Object.fromEntries(scriptDefinitions().map(({ name }) => [name, (...args: (string | number)[]) => commands[commandName(name)]!(...args)])) as Scripts;
    defined.set(redis, scripts);
  }
  return scripts;
}

/** A pipeline (or MULTI) of this connection, on which the scripts can be queued with `queueScript`. */
export function pipelineOf(redis: Redis): ChainableCommander {
  scriptsOf(redis); // ioredis copies the connection's scripts into a pipeline when it is made
  return redis.pipeline();
}

/** A MULTI of this connection, on which the scripts can be queued with `queueScript`. */
export function multiOf(redis: Redis): ChainableCommander {
  scriptsOf(redis);
  return redis.multi();
}

export function queueScript(pipeline: ChainableCommander, name: ScriptName, ...keysAndArgs: (string | number)[]): ChainableCommander {
  const queue = (pipeline as unknown as Record<string, ((...args: (string | number)[]) => ChainableCommander) | undefined>)[commandName(name)];
  if (!queue) throw new Error(`script ${name} is not defined on this pipeline: make it with pipelineOf(redis) or multiOf(redis)`);
  return queue.apply(pipeline, keysAndArgs);
}
