/**
 * Several monitors on one Xvfb screen: the screen is N monitors wide, and each monitor is a
 * RandR 1.5 monitor defined with `xrandr --setmonitor` (Xvfb runs with -noreset, so the
 * definitions outlive the client that made them). The first takes over the screen's own
 * output and is primary, so RandR reports exactly the monitors defined here.
 */
export interface MonitorSpec {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  primary: boolean;
}

export const monitorName = (index: number) => `DG-${index + 1}`;

/** `count` monitors of width×height, left to right. */
export function monitorLayout(width: number, height: number, count: number): MonitorSpec[] {
  return Array.from({ length: count }, (_, index) => ({ name: monitorName(index), x: index * width, y: 0, width, height, primary: index === 0 }));
}

/** Millimetres at 96 dpi: RandR wants a physical size, and toolkits derive their DPI from it. */
const mm = (pixels: number) => Math.max(1, Math.round((pixels * 25.4) / 96));

/** The xrandr arguments that define one monitor; `output` is the output it takes over ("none" for none). */
export function setMonitorArgs(monitor: MonitorSpec, output: string): string[] {
  const geometry = `${monitor.width}/${mm(monitor.width)}x${monitor.height}/${mm(monitor.height)}+${monitor.x}+${monitor.y}`;
  return ['--setmonitor', `${monitor.primary ? '*' : ''}${monitor.name}`, geometry, output];
}
