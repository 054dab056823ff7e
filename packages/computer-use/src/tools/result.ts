/** What a tool call answers, as MCP carries it; a failure is data with a machine-readable kind. */
import type { ToolErrorKind } from '../errors.ts';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

export interface ToolCallResult {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: { error?: { kind: ToolErrorKind; message: string }; [field: string]: unknown };
}

export function errorResult(kind: ToolErrorKind, message: string): ToolCallResult {
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: { kind, message } } };
}

/** The text blocks of a result, joined. */
export const textOf = (result: ToolCallResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).filter(Boolean).join(' ');
