/**
 * Access requests waiting for a person (tenant policy `approval: human`). The worker parks a
 * request in its tenant's hash and blocks on a decision list; the gateway's approval API lists
 * the tenant's pending requests and pushes a decision. A request id is only found in its own
 * tenant's hash, so one tenant can never decide another's. Each change is told to the tenant's
 * console pages as it happens (console-events.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AccessRequest, ApprovalBroker, ApprovalDecision, Proposal } from '@deskgate/computer-use';
import { queueConsoleEvent } from './console-events.ts';
import type { PendingApproval } from './pending-approval.ts';
import { keys } from './keys.ts';

export type { PendingApproval } from './pending-approval.ts';

export class ApprovalStore {
  constructor(private readonly redis: Redis) {}

  async list(tenant: string): Promise<PendingApproval[]> {
    const now = Date.now();
    const all = Object.values(await this.redis.hgetall(keys.approvals(tenant))).map((json) => JSON.parse(json) as PendingApproval);
    return all.filter((item) => Date.parse(item.expiresAt) > now).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Records a person's decision; false when the tenant has no such pending request. */
  async decide(tenant: string, id: string, decision: 'approved' | 'denied'): Promise<boolean> {
    const removed = await this.redis.hdel(keys.approvals(tenant), id);
    if (removed !== 1) return false;
    await queueConsoleEvent(this.redis.multi().rpush(keys.approvalDecision(id), decision).expire(keys.approvalDecision(id), 60), tenant, { type: 'approval_gone', id }).exec();
    return true;
  }

  /** The worker's side: a broker that parks requests of one session. */
  brokerFor(tenant: string, session: string): ApprovalBroker {
    return {
      decide: (request, proposal, timeoutMs, signal) => this.wait(tenant, session, request, proposal, timeoutMs, signal),
    };
  }

  private async wait(tenant: string, session: string, request: AccessRequest, proposal: Proposal, timeoutMs: number, signal: AbortSignal): Promise<ApprovalDecision> {
    const id = randomUUID();
    const now = Date.now();
    const pending: PendingApproval = {
      id,
      tenant,
      session,
      apps: request.apps,
      reason: request.reason,
      flags: request.flags,
      proposed: proposal.grants,
      policyDenied: proposal.policyDenied,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
    };
    await queueConsoleEvent(this.redis.multi().hset(keys.approvals(tenant), id, JSON.stringify(pending)), tenant, { type: 'approval', approval: pending }).exec();
    // BLPOP holds its connection, so the wait gets one of its own.
    const waiter = this.redis.duplicate();
    const abort = () => waiter.disconnect();
    signal.addEventListener('abort', abort);
    try {
      const popped = await waiter.blpop(keys.approvalDecision(id), Math.max(1, Math.ceil(timeoutMs / 1000))).catch(() => null);
      return popped ? (popped[1] as ApprovalDecision) : 'timeout';
    } finally {
      signal.removeEventListener('abort', abort);
      waiter.disconnect();
      await queueConsoleEvent(this.redis.multi().hdel(keys.approvals(tenant), id), tenant, { type: 'approval_gone', id }).exec().catch(() => undefined);
    }
  }
}
