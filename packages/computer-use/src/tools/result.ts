/** What a tool call answers, as MCP carries it; a failure is data with a machine-readable kind. */
import type { ToolError, ToolErrorKind } from '../errors.ts';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

export interface ToolCallResult {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: { error?: { kind: ToolErrorKind; message: string; retryAfterMs?: number }; [field: string]: unknown };
}

/** A failure; `retryAfterMs` (whole milliseconds) tells a client when the same call may succeed. */
export function errorResult(kind: ToolErrorKind, message: string, retryAfterMs?: number): ToolCallResult {
  const error = retryAfterMs === undefined ? { kind, message } : { kind, message, retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) };
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error } };
}

export const toolErrorResult = (error: ToolError): ToolCallResult => errorResult(error.kind, error.message, error.retryAfterMs);

/** The text blocks of a result, joined. */
export const textOf = (result: ToolCallResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).filter(Boolean).join(' ');
