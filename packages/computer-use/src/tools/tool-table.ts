/**
 * The README's tool table, rendered from the registry so it cannot drift from the tools:
 * `node --import tsx scripts/gen-tool-table.ts` rewrites the part of README.md between the
 * markers, and tool-table.test.ts fails while the README is out of date.
 */
import { z } from 'zod';
import { annotationsOf, type ToolDefinition } from './define-tool.ts';
import { toolsOf } from './registry.ts';

export const TABLE_START = '<!-- tools:start -->';
export const TABLE_END = '<!-- tools:end -->';

const yes = (value: boolean) => (value ? 'yes' : '–');

function parameters(tool: ToolDefinition): string {
  const schema = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as { properties?: Record<string, unknown>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const names = Object.keys(schema.properties ?? {});
  return names.length ? names.map((name) => (required.has(name) ? `**${name}**` : name)).join(', ') : '–';
}

function endpoints(tool: ToolDefinition): string {
  const on = (['native', 'computer'] as const).filter((surface) => toolsOf(surface).includes(tool));
  return on.map((surface) => (surface === 'native' ? '`/mcp`' : '`/computer`')).join(', ');
}

/** The table, one row per tool of either surface, in registry order. */
export function toolTable(): string {
  const tools = [...new Set([...toolsOf('native'), ...toolsOf('computer')])];
  const rows = tools.map((tool) => {
    const hints = annotationsOf(tool);
    const cells = [`\`${tool.name}\``, tool.title, parameters(tool), endpoints(tool), yes(hints.readOnlyHint), yes(hints.destructiveHint), yes(hints.idempotentHint), yes(tool.gated), yes(tool.pixelChecked), yes(tool.batchable)];
    return `| ${cells.join(' | ')} |`;
  });
  return [
    '| tool | what it does | parameters (required in bold) | endpoint | read-only | destructive | idempotent | gated | pixel check | in batch |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** README text with the table between the markers replaced; throws when the markers are missing. */
export function withToolTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md needs the markers ${TABLE_START} and ${TABLE_END}`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${toolTable()}\n${readme.slice(end)}`;
}
