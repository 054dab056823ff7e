/**
 * A person driving a desktop from the console. Taking over takes the desktop's lock in the
 * person's name (controller "person:<key id>"): while they hold it, the agent's calls are
 * refused with `lock_held` saying a person is driving — refused, never queued. Their actions
 * then go the agent's way exactly: the same validation, the same action channel, the same
 * gates and executor on the worker, each recorded in the audit log with the person as the
 * controller. Each action answers with the settled screen, so the page always shows what the
 * person's next click lands on. Handing back releases the lock; the agent's next call is told
 * that a person drove the desktop and the screen changed (the worker's session host).
 */
import { randomUUID } from 'node:crypto';
import { SETTLE_MAX_MS, ToolError, errorResult, isToolError, parseCall, toolErrorResult, type CoordinateMode, type ToolCallResult } from '@deskgate/computer-use';
import { DesktopLocks, claimLock, describeController, isRedisUnavailable, personController, unavailableToolError, type SessionStore } from '@deskgate/dispatch';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CallAuditor } from '../mcp/call-auditor.ts';
import type { SessionRouter } from '../sessions/session-router.ts';
import { ApiError } from '../http/api-error.ts';

/** What a person may do from the console: look, point, click, type, the clipboard. */
export const PERSON_TOOLS = [
  'screenshot', 'mouse_move', 'left_click', 'double_click', 'right_click', 'middle_click', 'left_click_drag',
  'scroll', 'type', 'key', 'read_clipboard', 'write_clipboard',
] as const;

export interface PersonDeps {
  redis: Redis;
  router: SessionRouter;
  sessions: SessionStore;
  locks: DesktopLocks;
  auditCall: CallAuditor;
  log: Logger;
  /** How long a takeover holds the desktop without the page renewing it. */
  leaseMs: number;
}

export interface Person {
  tenant: string;
  keyId: string;
}

export class PersonActions {
  constructor(private readonly deps: PersonDeps) {}

  private async desktopOf(person: Person, session: string): Promise<string> {
    const desktopId = await this.deps.router.desktopOf({ tenant: person.tenant, name: session });
    if (!desktopId) throw new ApiError(404, 'not_found', `Session "${session}" has no desktop to take over.`);
    return desktopId;
  }

  /** Takes the desktop's lock; 409 `lock_held` naming the holder while an agent's call holds it. */
  async takeOver(person: Person, session: string): Promise<{ epoch: number; leaseMs: number; coordinateMode: CoordinateMode }> {
    const desktopId = await this.desktopOf(person, session);
    const claim = await claimLock(this.deps.redis, desktopId, personController(person.keyId), this.deps.leaseMs);
    if (!claim.held) {
      const seconds = Math.max(1, Math.ceil(claim.leaseLeftMs / 1000));
      throw new ApiError(409, 'lock_held', `${describeController(claim.holder)} holds this desktop; its lock ends within ${seconds} s unless it keeps acting. Try again then.`);
    }
    const record = await this.deps.sessions.get({ tenant: person.tenant, name: session });
    await this.deps.sessions.changed({ tenant: person.tenant, name: session });
    return { epoch: claim.epoch, leaseMs: this.deps.leaseMs, coordinateMode: record?.state.coordinateMode ?? 'pixels' };
  }

  /** Keeps the takeover while the page is open; 409 `lock_lost` once it lapsed. */
  async renew(person: Person, session: string, epoch: number): Promise<{ leaseMs: number }> {
    const desktopId = await this.desktopOf(person, session);
    const renewed = await this.deps.locks.renew(desktopId, { epoch, controller: personController(person.keyId) }, this.deps.leaseMs);
    if (!renewed) throw new ApiError(409, 'lock_lost', 'This takeover lapsed (the page stopped renewing it, or the session ended). Take over again.');
    return { leaseMs: this.deps.leaseMs };
  }

  async handBack(person: Person, session: string): Promise<void> {
    const desktopId = await this.desktopOf(person, session);
    const outcome = await this.deps.locks.release(desktopId, personController(person.keyId));
    if (outcome !== 'released') throw new ApiError(409, 'lock_lost', 'You do not hold this desktop (the takeover lapsed or was never taken). Nothing was done.');
    await this.deps.sessions.changed({ tenant: person.tenant, name: session });
  }

  /** Runs one action as the person, who must hold the desktop; audited as theirs. */
  async act(person: Person, session: string, tool: string, args: unknown): Promise<ToolCallResult> {
    const ref = { tenant: person.tenant, name: session };
    const controller = personController(person.keyId);
    const desktopId = await this.desktopOf(person, session);
    const lock = await this.deps.locks.inspect(desktopId);
    if (lock?.controller !== controller) throw new ApiError(409, 'not_taken_over', 'Take over the desktop before driving it; actions are never queued behind another controller.');
    const started = performance.now();
    const actionId = randomUUID();
    let result: ToolCallResult;
    try {
      if (!(PERSON_TOOLS as readonly string[]).includes(tool)) throw new ToolError('bad_args', `The console drives with ${PERSON_TOOLS.join(', ')}; not "${tool}".`);
      const call = parseCall(tool, args);
      const record = await this.deps.sessions.get(ref);
      const acts = call.tool.effect === 'acts';
      const caller = { controller, keyId: person.keyId, actor: 'person' as const, actionId, ...(acts ? { screenshotAfter: 'settled' as const } : {}) };
      const extraMs = (call.tool.extraSeconds?.(call.args as never) ?? 0) * 1000 + (acts ? SETTLE_MAX_MS : 0);
      result = (await this.deps.router.call(ref, caller, tool, call.args, extraMs, record?.state.coordinateMode ?? 'pixels')).result as ToolCallResult;
    } catch (error) {
      if (isToolError(error)) result = toolErrorResult(error);
      else if (isRedisUnavailable(error)) result = errorResult(unavailableToolError().kind, unavailableToolError().message);
      else {
        this.deps.log.error({ err: error, tool, tenant: person.tenant }, 'console action failed inside the gateway');
        result = errorResult('executor_failed', `deskgate could not run ${tool}; the gateway logged the cause.`);
      }
    }
    const ms = performance.now() - started;
    this.deps.auditCall({ scope: { ref, keyId: person.keyId, controller, surface: 'native', coordinateMode: 'pixels' }, tool, args, result, ms, sessionExists: true, actionId });
    return result;
  }
}
