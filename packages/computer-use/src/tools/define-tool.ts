/**
 * A tool is data: its seed name, a description for the model, a zod schema for its
 * arguments, the facts it carries about itself (its effect, which decides the MCP hints, and
 * whether it is gated, pixel-checked and batchable), the kind of action it performs (which
 * decides the tier it needs) and a handler that drives the desktop through the executor.
 * Handlers just throw ToolError; the dispatcher turns every throw into an error result.
 */
import type { z } from 'zod';
import type { Executor } from '../executor.ts';
import type { CoordinateMode } from '../geometry/coordinates.ts';
import type { ApprovalBroker } from '../access/approvals.ts';
import type { TenantPolicy } from '../access/policy.ts';
import type { SessionState } from '../session-state.ts';

import type { ActionKind } from '../apps/tier.ts';
import type { ContentBlock, ToolCallResult } from './result.ts';

export type { ActionKind, ContentBlock };

export interface ToolOutput {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

export interface ToolContext {
  executor: Executor;
  /** Mutable: the dispatcher persists it after the call. */
  state: SessionState;
  /** Aborted when the caller's deadline passes (long waits stop early). */
  signal: AbortSignal;
  /** The tenant's policy (request_access decides by it). */
  policy: TenantPolicy;
  /** Where human-mode requests wait; null when the tenant never needs one. */
  approvals: ApprovalBroker | null;
  /**
   * The dispatcher, handed to every handler by the dispatcher itself: composite tools (a batch,
   * the `computer` tool) run their steps through it, so every step is validated and gated as a
   * call of its own — and no tool module imports the dispatcher, which imports them all.
   */
  dispatcher: Dispatcher;
}

export interface Dispatcher {
  /** Looks a tool up and validates its arguments; throws ToolError('bad_args') naming every problem. */
  parse(name: string, args: unknown): { tool: ToolDefinition; args: unknown };
  /** Validates, gates and runs a call by tool name; every failure is an error result. */
  call(name: string, args: unknown, context: ToolContext): Promise<ToolCallResult>;
  /** The same for a tool definition that is not in the registry (a variant of a native tool). */
  run(tool: ToolDefinition, args: unknown, context: ToolContext): Promise<ToolCallResult>;
}

export interface DescribeContext {
  coordinateMode: CoordinateMode;
}

/**
 * What a call does to the world. It decides the MCP hints a client reads before running a tool
 * (a client may run read-only tools without asking anyone), so it is declared, never guessed:
 * - `observes`: looks at the desktop or the session and changes nothing;
 * - `configures`: changes the session's own settings (its grants, the monitor it is shown) but
 *   sends no input and destroys nothing on the desktop;
 * - `acts`: changes the desktop (input into apps, starting apps, the clipboard); what follows
 *   is up to the apps, cannot be taken back, and may reach beyond the desktop (a browser).
 */
export type Effect = 'observes' | 'configures' | 'acts';

/** The facts a tool carries about itself; the gate pipeline, computer_batch and tools/list read them. */
export interface ToolFacts {
  /** A short human title, shown by clients. */
  title: string;
  effect: Effect;
  /** A second call with the same arguments changes nothing more. Default: true unless the tool acts. */
  idempotent?: boolean;
  /**
   * Runs the gate pipeline before its handler. False only for tools that must work before any
   * grant (request_access, list_granted_applications, wait) or whose parts are gated one by one
   * (computer_batch, computer).
   */
  gated: boolean;
  /** The pixel staleness gate compares its target with the last screenshot before it runs. */
  pixelChecked: boolean;
  /** Allowed as an action inside computer_batch. */
  batchable: boolean;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> extends ToolFacts {
  name: string;
  description: (context: DescribeContext) => string;
  inputSchema: Schema;
  actionKind: ActionKind;
  /** When the arguments or state change what the action is (a click with modifiers is mouse_full). */
  actionKindFor?: (args: z.infer<Schema>, state: SessionState) => ActionKind;
  /** Longest time the call may take beyond the dispatch budget (waits, holds). */
  extraSeconds?: (args: z.infer<Schema>) => number;
  handle: (args: z.infer<Schema>, context: ToolContext) => Promise<ToolOutput>;
}

export function actionKindOf(tool: ToolDefinition, args: unknown, state: SessionState): ActionKind {
  return tool.actionKindFor?.(args as never, state) ?? tool.actionKind;
}

/** MCP tool annotations (the hints of the 2025-11-25 and 2026-07-28 schemas). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The one mapping from a tool's facts to the hints MCP clients read. */
export function annotationsOf(tool: ToolFacts): ToolAnnotations {
  const acts = tool.effect === 'acts';
  return {
    title: tool.title,
    readOnlyHint: tool.effect === 'observes',
    destructiveHint: acts,
    idempotentHint: tool.idempotent ?? !acts,
    openWorldHint: acts,
  };
}

export function defineTool<Schema extends z.ZodType>(tool: ToolDefinition<Schema>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export const text = (value: string): ToolOutput => ({ content: [{ type: 'text', text: value }] });
