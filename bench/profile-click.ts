/**
 * A focused profile run, not part of `npm run bench`: one stack, one session; N pings, N
 * left_clicks and N/2 screenshots (1280×800), each with its p50, deskgate's own timings and
 * the CPU each process spent per call — for before/after comparisons while working on the
 * hot paths. PROFILE_N sets N (default 400); PROFILE_SCREENSHOTS=0 leaves the screenshots out
 * (a CPU profile of clicks alone); DESKGATE_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" writes CPU
 * profiles of the services.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from '../scripts/lib/stack.ts';
import { BENCH_POLICY_FILE, connectBench } from './client.ts';
import { stackPidGroups, startCpuMeter } from './cpu.ts';
import { sessionDesktop, showContent } from './desktop.ts';
import { summarize } from './stats.ts';

const N = Number(process.env.PROFILE_N ?? 400);
const SCREENSHOTS = process.env.PROFILE_SCREENSHOTS !== '0';
const stack = await startStack({
  env: {
    REDIS_URL: '',
    DESKGATE_PORT: '0',
    DESKGATE_TENANT_CALLS_PER_SECOND: '0',
    DESKGATE_POLICY_FILE: BENCH_POLICY_FILE,
  },
  tenant: 'bench',
  logDir: mkdtempSync(join(tmpdir(), 'deskgate-profile-')),
});
try {
  const client = await connectBench(`${stack.mcpUrl}/profile`, stack.apiKey);
  const facts = await sessionDesktop(stack.redisUrl, stack.tenant, 'profile');
  const xterm = await showContent(facts.display);
  const point = { coordinate: [300, 200] };
  await client.ok('screenshot');
  // Warm-up: fresh services are slower until V8 has optimised their hot paths.
  for (let i = 0; i < 100; i++) {
    await client.ok('left_click', point);
    await client.ping();
  }
  const pings: number[] = [];
  const clicks: number[] = [];
  const timings: Record<string, number[]> = {};
  const groups = stackPidGroups(stack, [facts]);
  const pingMeter = startCpuMeter(groups);
  for (let i = 0; i < N; i++) pings.push(await client.ping());
  const pingCpu = pingMeter.stop();
  const clickMeter = startCpuMeter(groups);
  for (let i = 0; i < N; i++) {
    const click = await client.ok('left_click', point);
    clicks.push(click.ms);
    for (const [key, value] of Object.entries(click.timings)) (timings[key] ??= []).push(value);
  }
  const clickCpu = clickMeter.stop();
  const shots: number[] = [];
  const shotTimings: Record<string, number[]> = {};
  const shotMeter = startCpuMeter(groups);
  for (let i = 0; SCREENSHOTS && i < N / 2; i++) {
    const shot = await client.ok('screenshot');
    shots.push(shot.ms);
    for (const [key, value] of Object.entries(shot.timings)) (shotTimings[key] ??= []).push(value);
  }
  const shotCpu = shotMeter.stop();
  const p50 = (values: number[]) => summarize(values).p50.toFixed(3);
  const perCall = (cpu: Record<string, number>, n = N) => Object.entries(cpu).map(([name, ms]) => `${name} ${(ms / n).toFixed(2)}`).join(' · ');
  console.log(`ping p50 ${p50(pings)} ms · left_click p50 ${p50(clicks)} ms`);
  console.log(`  CPU ms per ping:  ${perCall(pingCpu)}`);
  console.log(`  CPU ms per click: ${perCall(clickCpu)}`);
  for (const [key, values] of Object.entries(timings)) console.log(`  ${key.padEnd(24)} p50 ${p50(values)}`);
  if (SCREENSHOTS) {
    console.log(`screenshot 1280×800 p50 ${p50(shots)} ms`);
    console.log(`  CPU ms per screenshot: ${perCall(shotCpu, N / 2)}`);
    for (const [key, values] of Object.entries(shotTimings)) console.log(`  ${key.padEnd(24)} p50 ${p50(values)}`);
  }
  xterm.kill();
  await client.close();
} finally {
  await stack.stop();
}
