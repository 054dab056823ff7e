import { ToolError } from '../errors.ts';
import type { Monitor } from '../executor.ts';

/** The monitor a screenshot shows: the one chosen with switch_display, else the primary one. */
export function chooseMonitor(monitors: Monitor[], chosen: string | null): Monitor {
  if (monitors.length === 0) throw new ToolError('display_error', 'The desktop reports no monitors.');
  if (chosen !== null) {
    const match = monitors.find((monitor) => monitor.name === chosen);
    if (match) return match;
  }
  return monitors.find((monitor) => monitor.primary) ?? monitors[0]!;
}
