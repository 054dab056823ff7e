/**
 * A tool is data: its seed name, a description for the model, a zod schema for its
 * arguments, the kind of action it performs (which decides the tier it needs) and a handler
 * that drives the desktop through the executor. Handlers just throw ToolError; the dispatcher
 * turns every throw into an error result.
 */
import type { z } from 'zod';
import type { Executor } from '../executor.ts';
import type { CoordinateMode } from '../geometry/coordinates.ts';
import type { ApprovalBroker } from '../access/approvals.ts';
import type { TenantPolicy } from '../access/policy.ts';
import type { SessionState } from '../session-state.ts';

/** hover < mouse < mouse_full < keyboard decide the tier; `none` is never tier-gated. */
export type ActionKind = 'none' | 'hover' | 'mouse' | 'mouse_full' | 'keyboard';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

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
}

export interface DescribeContext {
  coordinateMode: CoordinateMode;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
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

export function defineTool<Schema extends z.ZodType>(tool: ToolDefinition<Schema>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export const text = (value: string): ToolOutput => ({ content: [{ type: 'text', text: value }] });
