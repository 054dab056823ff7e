import type { AccessRequest, Proposal } from './decide.ts';

export type ApprovalDecision = 'approved' | 'denied' | 'timeout';

/** Where a `human`-mode request waits for a person (the worker's is backed by Redis). */
export interface ApprovalBroker {
  decide(request: AccessRequest, proposal: Proposal, timeoutMs: number, signal: AbortSignal): Promise<ApprovalDecision>;
}
