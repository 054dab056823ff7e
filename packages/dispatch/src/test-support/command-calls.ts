import type { Redis } from 'ioredis';

/** How many times Redis ran each command so far (INFO commandstats), by command name. */
export async function commandCalls(connection: Redis): Promise<Record<string, number>> {
  return Object.fromEntries(
    (await connection.info('commandstats'))
      .split('\r\n')
      .filter((line) => line.startsWith('cmdstat_'))
      .map((line) => [line.slice('cmdstat_'.length, line.indexOf(':')), Number(/calls=(\d+)/.exec(line)![1])]),
  );
}
