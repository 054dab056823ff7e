/**
 * Which installed app a window belongs to: the .desktop entry whose StartupWMClass is the
 * window's WM_CLASS class, else the one whose id is its WM_CLASS instance or class (all
 * compared case-insensitively), the first in XDG order. The gates then know a window by the
 * same id an agent asks for ("mousepad", "org.gnome.Terminal").
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applicationDirs, parseDesktopEntry, type DesktopEntry } from '../launch/desktop-entries.ts';

/** The entries indexed for lookups by WM_CLASS. */
export interface DesktopIds {
  byWmClass: Map<string, string>;
  byId: Map<string, string>;
}

export function indexDesktopEntries(entries: readonly DesktopEntry[]): DesktopIds {
  const byWmClass = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const entry of entries) {
    // The first entry in XDG order wins: the user's own overrides the system's.
    if (entry.wmClass && !byWmClass.has(entry.wmClass.toLowerCase())) byWmClass.set(entry.wmClass.toLowerCase(), entry.id);
    if (!byId.has(entry.id.toLowerCase())) byId.set(entry.id.toLowerCase(), entry.id);
  }
  return { byWmClass, byId };
}

/** The desktop id of a window with this WM_CLASS ([instance, class]), or null. */
export function desktopIdFor(ids: DesktopIds, wmClass: readonly [string, string] | null): string | null {
  if (!wmClass) return null;
  const [instance, klass] = wmClass.map((part) => part.toLowerCase()) as [string, string];
  return ids.byWmClass.get(klass) ?? ids.byId.get(instance) ?? ids.byId.get(klass) ?? null;
}

export async function loadDesktopEntries(dirs: string[] = applicationDirs()): Promise<DesktopEntry[]> {
  const perDir = await Promise.all(
    dirs.map(async (dir) => {
      const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.desktop')).sort();
      const entries = await Promise.all(names.map(async (name) => parseDesktopEntry(await readFile(join(dir, name), 'utf8').catch(() => ''), join(dir, name))));
      return entries.filter((entry): entry is DesktopEntry => entry !== null);
    }),
  );
  return perDir.flat();
}

const EMPTY: DesktopIds = { byWmClass: new Map(), byId: new Map() };

/**
 * The worker's index of installed apps, read once and re-read in the background when older
 * than `maxAgeMs` (apps installed meanwhile), so a lookup never waits on the disk after the
 * first read.
 */
export class DesktopIndex {
  private ids: DesktopIds | null = null;
  private loadedAt = 0;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly load: () => Promise<readonly DesktopEntry[]> = () => loadDesktopEntries(),
    private readonly maxAgeMs = 30_000,
  ) {}

  /** Resolves once an index is there (at once after the first read). */
  ready(): Promise<void> {
    if (this.ids && performance.now() - this.loadedAt > this.maxAgeMs) void this.reload();
    return this.ids ? Promise.resolve() : this.reload();
  }

  /** The desktop id for a WM_CLASS, from the index as last read (null before the first read). */
  idFor(wmClass: readonly [string, string] | null): string | null {
    return desktopIdFor(this.ids ?? EMPTY, wmClass);
  }

  private reload(): Promise<void> {
    this.loading ??= this.load()
      .then(
        (entries) => {
          this.ids = indexDesktopEntries(entries);
        },
        () => {
          this.ids ??= EMPTY; // unreadable: no ids rather than no answers
        },
      )
      .finally(() => {
        this.loadedAt = performance.now();
        this.loading = null;
      });
    return this.loading;
  }
}

/** One index per worker process: every desktop has the same applications installed. */
export const workerDesktopIndex = new DesktopIndex();
