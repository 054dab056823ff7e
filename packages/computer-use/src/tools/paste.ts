/**
 * Long or multi-line text goes in through the clipboard when the session holds clipboardWrite:
 * one paste instead of thousands of keystrokes, and no Return pressed mid-text (a chat box
 * would send it). The clipboard is put back afterwards. The app fetches pasted text
 * asynchronously, so the restore waits a moment first; the input runtime cannot tell when the
 * app has finished reading.
 */
import type { ToolContext } from './define-tool.ts';
import { parseKeys } from '../keys/keysyms.ts';

const PASTE = parseKeys('ctrl+v');

export const PASTE_MIN_CHARACTERS = 200;
const PASTE_SETTLE_MS = 300;

export function shouldPaste(text: string, context: ToolContext): boolean {
  return context.state.grants.flags.clipboardWrite && (text.includes('\n') || text.length >= PASTE_MIN_CHARACTERS);
}

export async function pasteText(text: string, { executor }: ToolContext): Promise<void> {
  const previous = await executor.readClipboard();
  await executor.writeClipboard(text);
  try {
    await executor.key(PASTE, 1);
    await new Promise((resolve) => setTimeout(resolve, PASTE_SETTLE_MS));
  } finally {
    await executor.writeClipboard(previous ?? '');
  }
}
