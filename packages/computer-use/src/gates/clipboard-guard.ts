/**
 * The clipboard guard. While a click-tier app (a terminal, an IDE) is in front, the agent can
 * click but not type, so a clipboard it filled could still be pasted as a command with a click
 * on "Paste". So: the first time such an app is in front, the clipboard is stashed and cleared;
 * it is cleared again before every action while it stays in front; once a non-click-tier app
 * is in front, the stash is put back (the seed never restored it).
 */
import { grantFor } from '../access/grants.ts';
import type { AppInfo } from '../executor.ts';
import type { ToolContext } from '../tools/define-tool.ts';

export function clickTierInFront(frontmost: AppInfo | undefined, context: ToolContext): boolean {
  return frontmost !== undefined && grantFor(frontmost, context.state.grants)?.tier === 'click';
}

export async function guardClipboard(frontmost: AppInfo | undefined, context: ToolContext): Promise<void> {
  const { state, executor } = context;
  if (clickTierInFront(frontmost, context)) {
    if (state.clipboardStash === null) state.clipboardStash = { text: await executor.readClipboard() };
    await executor.writeClipboard('');
  } else if (state.clipboardStash !== null) {
    await executor.writeClipboard(state.clipboardStash.text ?? '');
    state.clipboardStash = null;
  }
}
