/** Looks at a desktop's X server directly, for assertions: which top-level windows are mapped. */
import { execFileSync } from 'node:child_process';

const LIST = `
import sys
from Xlib import X, display
d = display.Display(sys.argv[1])
for w in d.screen().root.query_tree().children:
    if w.get_attributes().map_state == X.IsViewable:
        print(w.id)
`;

/** Ids of the root's mapped children (frames, menus, popups, unmanaged windows), sorted. */
export function topLevelWindows(display: string, xauthority?: string): number[] {
  const out = execFileSync('/usr/bin/python3', ['-c', LIST, display], { env: { ...process.env, ...(xauthority ? { XAUTHORITY: xauthority } : {}) }, timeout: 10_000 }).toString();
  return out.split('\n').filter(Boolean).map(Number).sort((a, b) => a - b);
}
