/**
 * An access request waiting for a person, as the approval store keeps it and the console's
 * events carry it (its own file, so approvals.ts and console-events.ts need not import each other).
 */
import type { AccessRequest, Proposal } from '@deskgate/computer-use';

export interface PendingApproval {
  id: string;
  tenant: string;
  session: string;
  apps: string[];
  reason: string;
  flags: AccessRequest['flags'];
  proposed: Proposal['grants'];
  policyDenied: Proposal['policyDenied'];
  createdAt: string;
  expiresAt: string;
}
