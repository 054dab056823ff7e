/**
 * The one dispatcher: validate the arguments, run the gate pipeline, run the handler, and turn
 * every failure into an MCP error result that carries a machine-readable kind. Handlers only
 * ever throw.
 */
import { z } from 'zod';
import { ToolError, isToolError, type ToolErrorKind } from './errors.ts';
import { annotationsOf, type ContentBlock, type DescribeContext, type ToolAnnotations, type ToolContext, type ToolDefinition } from './tools/define-tool.ts';
import { findTool, toolsOf, type Surface } from './tools/registry.ts';
import { runGates } from './gates/pipeline.ts';
import { throwIfStopped } from './abort.ts';

export interface ToolCallResult {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: { error?: { kind: ToolErrorKind; message: string }; [field: string]: unknown };
}

export function errorResult(kind: ToolErrorKind, message: string): ToolCallResult {
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: { kind, message } } };
}

function describeIssues(tool: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : 'arguments';
    return `${path}: ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${lines.join('; ')}`;
}

/** Looks a tool up and validates its arguments; throws ToolError('bad_args') with every problem named. */
export function parseCall(name: string, args: unknown): { tool: ToolDefinition; args: unknown } {
  const tool = findTool(name);
  if (!tool) throw new ToolError('bad_args', `Unknown tool "${name}". Call tools/list for the tools deskgate offers.`);
  const parsed = tool.inputSchema.safeParse(args ?? {});
  if (!parsed.success) throw new ToolError('bad_args', describeIssues(name, parsed.error));
  return { tool, args: parsed.data };
}

export async function callTool(name: string, args: unknown, context: ToolContext): Promise<ToolCallResult> {
  try {
    throwIfStopped(context.signal);
    const call = parseCall(name, args);
    const refusal = await runGates(call.tool, call.args, context);
    if (refusal) return errorResult(refusal.kind, refusal.message);
    return await call.tool.handle(call.args, context);
  } catch (error) {
    if (isToolError(error)) return errorResult(error.kind, error.message);
    const message = error instanceof Error ? error.message : String(error);
    return errorResult('executor_failed', `${name} failed on the desktop: ${message}`);
  }
}

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
