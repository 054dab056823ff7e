/**
 * The one dispatcher: validate the arguments, run the gate pipeline, run the handler, and turn
 * every failure into an MCP error result that carries a machine-readable kind. Handlers only
 * ever throw.
 */
import { z } from 'zod';
import { ToolError, isToolError } from './errors.ts';
import { annotationsOf, type DescribeContext, type Dispatcher, type ToolAnnotations, type ToolContext, type ToolDefinition } from './tools/define-tool.ts';
import { findTool, toolsOf, type Surface } from './tools/registry.ts';
import { errorResult, toolErrorResult, type ToolCallResult } from './tools/result.ts';
import { runGates } from './gates/pipeline.ts';
import { throwIfStopped } from './abort.ts';

export { errorResult, textOf, toolErrorResult, type ToolCallResult } from './tools/result.ts';

/** A call's context as the caller (the worker) builds it; the dispatcher adds itself. */
export type CallContext = Omit<ToolContext, 'dispatcher'>;

function describeIssues(tool: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : 'arguments';
    return `${path}: ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${lines.join('; ')}`;
}

function validate(tool: ToolDefinition, args: unknown): unknown {
  const parsed = tool.inputSchema.safeParse(args ?? {});
  if (!parsed.success) throw new ToolError('bad_args', describeIssues(tool.name, parsed.error));
  return parsed.data;
}

/** Looks a tool up and validates its arguments; throws ToolError('bad_args') with every problem named. */
export function parseCall(name: string, args: unknown): { tool: ToolDefinition; args: unknown } {
  const tool = findTool(name);
  if (!tool) throw new ToolError('bad_args', `Unknown tool "${name}". Call tools/list for the tools deskgate offers.`);
  return { tool, args: validate(tool, args) };
}

/** Validate → gates → handler for one tool definition; every throw becomes an error result. */
export async function runTool(tool: ToolDefinition, args: unknown, context: CallContext): Promise<ToolCallResult> {
  return settle(tool.name, async () => {
    const valid = validate(tool, args);
    const full = toolContext(context);
    const refusal = await runGates(tool, valid, full);
    if (refusal) return errorResult(refusal.kind, refusal.message);
    try {
      return await tool.handle(valid, full);
    } finally {
      // The guard the gates set holds this call's input only.
      if (tool.gated) context.executor.guard(null);
    }
  }, context);
}

export async function callTool(name: string, args: unknown, context: CallContext): Promise<ToolCallResult> {
  const tool = findTool(name);
  if (!tool) return errorResult('bad_args', `Unknown tool "${name}". Call tools/list for the tools deskgate offers.`);
  return runTool(tool, args, context);
}

async function settle(name: string, run: () => Promise<ToolCallResult>, context: CallContext): Promise<ToolCallResult> {
  try {
    throwIfStopped(context.signal);
    return await run();
  } catch (error) {
    if (isToolError(error)) return toolErrorResult(error);
    const message = error instanceof Error ? error.message : String(error);
    return errorResult('executor_failed', `${name} failed on the desktop: ${message}`);
  }
}

const dispatcher: Dispatcher = { parse: parseCall, call: callTool, run: runTool };

/** A caller's context with the dispatcher in it, for core functions called from outside a tool (the worker's settled screenshot). */
export const toolContext = (context: CallContext): ToolContext => ({ ...context, dispatcher });

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/** The tools/list answer, with descriptions that state the coordinate mode in force. */
export function describeTools(context: DescribeContext, surface: Surface = 'native'): ToolDescriptor[] {
  return toolsOf(surface).map((tool) => {
    const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as Record<string, unknown>;
    return { name: tool.name, title: tool.title, description: tool.description(context), inputSchema, annotations: annotationsOf(tool) };
  });
}
