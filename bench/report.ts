/**
 * The bench's one table (stdout), the same rows as JSON, and a hand-written SVG chart
 * (p50 bar + p99 tick per latency row, log-scaled), all under bench-results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Summary } from './stats.ts';

export type Status = 'PASS' | 'MISS';

export interface Row {
  section: string;
  name: string;
  n?: number;
  p50?: number;
  p90?: number;
  p99?: number;
  /** A figure that is not a latency (actions/s, MiB, …), shown in the p50 column's place. */
  value?: string;
  /** Ratios to floors or peers, free text. */
  compare?: string;
  target?: string;
  status?: Status;
}

export interface Report {
  title: string;
  machine: Record<string, unknown>;
  rows: Row[];
  extra: Record<string, unknown>;
}

export const fromSummary = (summary: Summary): Pick<Row, 'n' | 'p50' | 'p90' | 'p99'> => ({ n: summary.n, p50: summary.p50, p90: summary.p90, p99: summary.p99 });

export function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function ratio(value: number): string {
  if (!Number.isFinite(value)) return '?';
  return value >= 10 ? `${value.toFixed(0)}×` : `${value.toFixed(2)}×`;
}

export function verdict(ok: boolean): Status {
  return ok ? 'PASS' : 'MISS';
}

const COLUMNS: { title: string; width?: number; align: 'left' | 'right'; of: (row: Row) => string }[] = [
  { title: 'figure', align: 'left', of: (row) => row.name },
  { title: 'n', align: 'right', of: (row) => (row.n === undefined ? '' : String(row.n)) },
  { title: 'p50 ms', align: 'right', of: (row) => row.value ?? ms(row.p50) },
  { title: 'p90 ms', align: 'right', of: (row) => ms(row.p90) },
  { title: 'p99 ms', align: 'right', of: (row) => ms(row.p99) },
  { title: 'compared', align: 'left', of: (row) => row.compare ?? '' },
  { title: 'target', align: 'left', of: (row) => row.target ?? '' },
  { title: '', align: 'left', of: (row) => row.status ?? '' },
];

export function renderTable(report: Report): string {
  const widths = COLUMNS.map((column) => Math.max(column.title.length, ...report.rows.map((row) => [...column.of(row)].length)));
  const pad = (text: string, width: number, align: 'left' | 'right') => {
    const fill = ' '.repeat(Math.max(0, width - [...text].length));
    return align === 'left' ? text + fill : fill + text;
  };
  const line = (cells: string[]) => cells.map((cell, i) => pad(cell, widths[i]!, COLUMNS[i]!.align)).join('  ').trimEnd();
  const total = widths.reduce((sum, width) => sum + width + 2, 0);
  const out: string[] = [report.title, Object.entries(report.machine).map(([k, v]) => `${k}: ${v}`).join(' · '), ''];
  out.push(line(COLUMNS.map((column) => column.title)));
  let section = '';
  for (const row of report.rows) {
    if (row.section !== section) {
      section = row.section;
      out.push('─'.repeat(Math.min(total, 160)));
      out.push(`▸ ${section}`);
    }
    out.push(line(COLUMNS.map((column) => column.of(row))));
  }
  const judged = report.rows.filter((row) => row.status);
  out.push('─'.repeat(Math.min(total, 160)));
  out.push(`targets: ${judged.filter((row) => row.status === 'PASS').length} PASS, ${judged.filter((row) => row.status === 'MISS').length} MISS (a benchmark reports, it never fails)`);
  return out.join('\n');
}

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const SECTION_COLOURS = ['#2f6fdb', '#6b8e23', '#d2691e', '#8a2be2', '#c0392b', '#138d75'];

/** Horizontal bars, one per latency row: p50 bar, p99 tick, log-scaled milliseconds. */
export function renderSvg(report: Report): string {
  const rows = report.rows.filter((row) => row.p50 !== undefined && Number.isFinite(row.p50) && row.p50 > 0);
  const sections = [...new Set(rows.map((row) => row.section))];
  const labelWidth = 330;
  const plotWidth = 620;
  const rowHeight = 20;
  const top = 60;
  const height = top + rows.length * rowHeight + 50;
  const width = labelWidth + plotWidth + 130;
  const min = 0.01;
  const max = 1_000;
  const x = (value: number) => labelWidth + (Math.log10(Math.min(max, Math.max(min, value)) / min) / Math.log10(max / min)) * plotWidth;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${esc(report.title)}</text>`,
    `<text x="10" y="38" fill="#555">p50 bar, p99 tick · milliseconds, log scale · ${esc(String(report.machine.date ?? ''))}</text>`,
  ];
  for (let decade = min; decade <= max; decade *= 10) {
    const gx = x(decade).toFixed(1);
    parts.push(`<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${top + rows.length * rowHeight}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${gx}" y="${top + rows.length * rowHeight + 14}" text-anchor="middle" fill="#555">${decade >= 1 ? decade.toFixed(0) : String(Number(decade.toPrecision(1)))}</text>`);
  }
  rows.forEach((row, i) => {
    const y = top + i * rowHeight;
    const colour = SECTION_COLOURS[sections.indexOf(row.section) % SECTION_COLOURS.length]!;
    const bar = x(row.p50!) - labelWidth;
    parts.push(`<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end">${esc(row.name)}</text>`);
    parts.push(`<rect x="${labelWidth}" y="${y + 4}" width="${Math.max(1, bar).toFixed(1)}" height="${rowHeight - 8}" fill="${colour}" opacity="0.85"/>`);
    if (row.p99 !== undefined && Number.isFinite(row.p99)) {
      const px = x(row.p99).toFixed(1);
      parts.push(`<line x1="${px}" y1="${y + 2}" x2="${px}" y2="${y + rowHeight - 2}" stroke="#222" stroke-width="2"/>`);
    }
    const label = `${ms(row.p50)} ms${row.status ? ` ${row.status}` : ''}`;
    parts.push(`<text x="${(x(Math.max(row.p50!, row.p99 ?? 0)) + 6).toFixed(1)}" y="${y + 13}" fill="${row.status === 'MISS' ? '#c0392b' : '#333'}">${esc(label)}</text>`);
  });
  sections.forEach((section, i) => {
    const lx = 10 + i * 180;
    const ly = height - 16;
    parts.push(`<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${SECTION_COLOURS[i % SECTION_COLOURS.length]}"/>`);
    parts.push(`<text x="${lx + 14}" y="${ly}">${esc(section.split(/[:(,]/)[0]!.trim().slice(0, 26))}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export function writeReport(report: Report, dir: string): { json: string; svg: string; txt: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const table = renderTable(report);
  const svg = renderSvg(report);
  const json = JSON.stringify(report, null, 2);
  const files = { json: join(dir, `bench-${stamp}.json`), svg: join(dir, `bench-${stamp}.svg`), txt: join(dir, `bench-${stamp}.txt`) };
  writeFileSync(files.json, json);
  writeFileSync(files.svg, svg);
  writeFileSync(files.txt, `${table}\n`);
  writeFileSync(join(dir, 'latest.json'), json);
  writeFileSync(join(dir, 'latest.svg'), svg);
  writeFileSync(join(dir, 'latest.txt'), `${table}\n`);
  return files;
}
