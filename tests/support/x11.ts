/** Looks at a desktop's X server directly, for assertions: which top-level windows are mapped. */
import { execFileSync } from 'node:child_process';
import { onDisplay, type XTarget } from './desktops.ts';

const LIST = `
import sys
from Xlib import X, display
d = display.Display(sys.argv[1])
for w in d.screen().root.query_tree().children:
    if w.get_attributes().map_state == X.IsViewable:
        print(w.id)
`;

/** Ids of the root's mapped children (frames, menus, popups, unmanaged windows), sorted. */
export function topLevelWindows(target: string | XTarget, xauthority?: string): number[] {
  const { file, args, env } = onDisplay(typeof target === 'string' ? { display: target, enter: [], ...(xauthority ? { xauthority } : {}) } : target, ['/usr/bin/python3', '-c', LIST, typeof target === 'string' ? target : target.display]);
  const out = execFileSync(file, args, { env, timeout: 10_000 }).toString();
  return out.split('\n').filter(Boolean).map(Number).sort((a, b) => a - b);
}
