/**
 * What an executor may offer the gates when its input layer reports the facts (optional; the
 * Linux executor does, docs/input-runtime.md "Judged on reported facts"): the gates then judge
 * on the facts reported last, and the input layer sends only if they still hold at the moment
 * of sending. Two rules keep every verdict what a fresh read would give:
 * - a refusal on guessed facts is never given as it is: the facts are read for the purpose and
 *   judged again (pipeline.ts);
 * - a pixel check is skipped only for a target the pointer rests on in the facts judged, where
 *   its answer would not count anyway (facts.ts).
 */
import type { Executor } from '../executor.ts';
import type { Point } from '../geometry/coordinates.ts';

export interface ReportingExecutor {
  /** The gates' facts of this call were guessed from a report, not read for it. */
  factsWereGuessed?(): boolean;
  /** Read the facts from now on in this call. */
  stopGuessing?(): void;
  /** The pointer as the report the gates will judge on has it (null: they read the facts). */
  knownPointer?(): Point | null;
}

export const reporting = (executor: Executor): ReportingExecutor => executor as Executor & ReportingExecutor;
