/**
 * What an API key may do is its role, stored with the key (a key stored before roles existed
 * is an agent). Agents drive desktops over MCP and nothing else of consequence; the control API
 * belongs to people and their tools: approvers decide access requests, operators also run the
 * tenant (kill switch, sessions, audit, metrics), admins also manage its keys. No role both
 * drives a desktop and controls the gates around it, so a leaked agent key cannot approve
 * itself or lift a kill switch, and a leaked operator key cannot drive a desktop.
 * See docs/roles.md.
 */
import { z } from 'zod';

export const ROLES = ['agent', 'approver', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const role = z.enum(ROLES, { message: `a role is one of: ${ROLES.join(', ')}` });

/** Each capability and the roles that have it — the whole permission model in one table. */
export const CAN = {
  driveDesktops: ['agent'],
  useLocks: ['agent'],
  inspectLocks: ['agent', 'operator', 'admin'],
  listSessions: ['agent', 'operator', 'admin'],
  endSessions: ['agent', 'operator', 'admin'],
  decideApprovals: ['approver', 'operator', 'admin'],
  flipKillSwitch: ['operator', 'admin'],
  readAudit: ['operator', 'admin'],
  readMetrics: ['operator', 'admin'],
  manageKeys: ['admin'],
  /** The web console: every role but the agent's may sign in; each page then needs its own capability. */
  useConsole: ['approver', 'operator', 'admin'],
  watchSessions: ['operator', 'admin'],
  /** A person driving a desktop from the console, with the session's grants, audited as theirs. */
  takeOverDesktops: ['operator', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

/** Operators and admins act on every session of their tenant; agents only as their session's controller. */
export const actsForTenant = (r: Role) => r === 'operator' || r === 'admin';

/** "an agent key", "an operator or admin key". */
export function describeRoles(roles: readonly Role[]): string {
  const names = roles.length > 1 ? `${roles.slice(0, -1).join(', ')} or ${roles.at(-1)}` : roles[0]!;
  return `${/^[aeiou]/.test(names) ? 'an' : 'a'} ${names} key`;
}
