/**
 * The gate pipeline, run by the dispatcher before every action: facts → verdicts → effects.
 * The facts are gathered once (facts.ts), the verdicts are pure functions over them in the
 * seed's order (refusals.ts), and only then does anything touch the desktop (effects.ts): the
 * hide step always, focus and the clipboard guard only for an action that will run.
 * The kill switch is enforced by the worker before every action and batch step.
 */
import { isToolError } from '../errors.ts';
import { actionKindOf, type ToolContext, type ToolDefinition } from '../tools/define-tool.ts';
import { hideStrangers, prepareInput } from './effects.ts';
import { gatherFacts } from './facts.ts';
import { allowlistGate, judge, type Refusal } from './refusals.ts';
import { reporting } from './reported-facts.ts';

export async function runGates(tool: ToolDefinition, args: unknown, context: ToolContext): Promise<Refusal | undefined> {
  // Tools that work before any grant, or whose parts are gated one by one, say so themselves.
  if (!tool.gated) return undefined;
  const kind = actionKindOf(tool, args, context.state);
  const empty = allowlistGate({ grants: context.state.grants });
  if (empty || kind === 'none') return empty;

  let facts;
  let refusal;
  try {
    facts = await gatherFacts(tool, kind, args, context);
    refusal = judge(facts);
    const executor = reporting(context.executor);
    if (refusal && executor.factsWereGuessed?.()) {
      // Guessed from a report: refused only on facts read for the purpose.
      executor.stopGuessing?.();
      facts = await gatherFacts(tool, kind, args, context);
      refusal = judge(facts);
    }
  } catch (error) {
    if (isToolError(error)) return { kind: error.kind, message: error.message };
    throw error;
  }
  await hideStrangers(facts, context);
  if (refusal) return refusal;
  await prepareInput(facts, context);
  return undefined;
}
