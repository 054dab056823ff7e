/** What the console offers a role: the pages (and the actions on them) its key may use. */
import { CAN, type Role } from '../auth/roles.ts';

const has = (capability: readonly string[], role: Role) => capability.includes(role);

export function offers(role: Role) {
  return {
    sessions: has(CAN.listSessions, role),
    endSessions: has(CAN.endSessions, role),
    approvals: has(CAN.decideApprovals, role),
    killSwitch: has(CAN.flipKillSwitch, role),
    audit: has(CAN.readAudit, role),
    watch: has(CAN.watchSessions, role),
    takeOver: has(CAN.takeOverDesktops, role),
  };
}
