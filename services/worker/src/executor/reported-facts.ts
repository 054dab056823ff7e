/**
 * The gate facts the input runtime reported last, kept so the gates can judge the next input
 * action without asking for them first (docs/input-runtime.md, "Judged on reported facts"): the
 * input op then carries the facts' token, and the runtime sends it only if, under its server
 * grab, the facts are still what the token stands for — otherwise it refuses, sends nothing,
 * and answers with the fresh facts for the gates to judge again. One round trip per action
 * instead of two; the verdict is always on facts the server confirmed at the moment of sending.
 *
 * The facts of a point nobody asked about yet are guessed here from the window list: the
 * topmost mapped client whose rectangle holds it (the runtime checks the guess like any other
 * guard entry). A point outside every client is not guessed: the gates would refuse on it, and
 * a refusal is only ever given on facts read for the purpose.
 */
import type { FactsAfter, GateFactsResult } from '@deskgate/helper-protocol';

type Facts = GateFactsResult;
type Surface = Facts['focus'];
interface Point {
  x: number;
  y: number;
}

export class ReportedFacts {
  private facts: Facts | null = null;
  /** The points the last report's `at` answers for (a gate_facts answer, or a refusal's). */
  private points: Point[] = [];

  get token(): string | null {
    return this.facts?.token ?? null;
  }

  get cursor(): Point | null {
    return this.facts?.cursor ?? null;
  }

  /** A gate_facts answer (or a refusal's fresh facts) for `points`. */
  reported(facts: Facts, points: Point[]): void {
    this.facts = facts;
    this.points = points;
  }

  /**
   * The answer of an input op judged on the facts of token `judged`: the facts after it (kept),
   * only the pointer's parts under a new token (the rest is what `judged` stood for), or only
   * the token (nothing changed).
   */
  after(answer: FactsAfter | undefined, judged: string): void {
    if (!answer) return;
    if ('windows' in answer) return this.reported(answer, []);
    if (!this.facts || this.facts.token !== judged) return this.forget();
    if ('cursor' in answer) this.reported({ ...this.facts, ...answer, at: [] }, []);
    else if (answer.token !== judged) this.forget();
  }

  forget(): void {
    this.facts = null;
    this.points = [];
  }

  /** The facts for `points` without asking the runtime, or null when one cannot be known. */
  guess(points: Point[]): Facts | null {
    const facts = this.facts;
    if (!facts) return null;
    const at: Surface[] = [];
    for (const point of points) {
      const surface = this.surfaceAt(facts, point);
      if (!surface) return null;
      at.push(surface);
    }
    return { ...facts, at };
  }

  private surfaceAt(facts: Facts, point: Point): Surface | null {
    const asked = this.points.findIndex((p) => p.x === point.x && p.y === point.y);
    if (asked >= 0) return facts.at[asked] ?? null;
    if (point.x === facts.cursor.x && point.y === facts.cursor.y) return facts.under_pointer;
    for (let i = facts.windows.length - 1; i >= 0; i--) {
      const w = facts.windows[i]!;
      if (w.mapped && point.x >= w.x && point.y >= w.y && point.x < w.x + w.width && point.y < w.y + w.height) {
        return { kind: 'client', window: w.id, app: { window: w.id, title: w.title, wm_class: w.wm_class, pid: w.pid, exe: w.exe } };
      }
    }
    return null;
  }
}
