/** request_access and list_granted_applications: the seed's grant model, decided by the tenant's policy. */
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { proposeGrants } from '../access/decide.ts';
import { grantFor, mergeGrants, type Grants } from '../access/grants.ts';
import type { Executor } from '../executor.ts';
import type { SessionState } from '../session-state.ts';
import { defineTool, type ToolOutput } from './define-tool.ts';

/** The longest a human-mode request may wait; policies ask for at most this. */
export const APPROVAL_MAX_SECONDS = 300;

const describeGrants = (grants: Grants) =>
  grants.apps.length ? grants.apps.map((grant) => `${grant.app} (${grant.tier})`).join(', ') : 'none';

/**
 * Windows the hide gate iconified stay hidden only while their app is not granted: once it
 * is, they are brought back (the seed restores hidden apps when its session ends; here a
 * session's desktop ends with it, so the grant is the moment that matters).
 */
async function restoreGranted(executor: Executor, state: SessionState): Promise<string[]> {
  if (state.hidden.length === 0) return [];
  const windows = new Map((await executor.listWindows()).map((window) => [window.window, window]));
  const restored: string[] = [];
  for (const id of [...state.hidden]) {
    const window = windows.get(id);
    if (window && !grantFor(window, state.grants)) continue;
    state.hidden = state.hidden.filter((hidden) => hidden !== id);
    if (!window) continue; // gone meanwhile
    await executor.activate(id);
    restored.push(window.title || window.wmClass?.[1] || `window ${id}`);
  }
  return restored;
}

function accessResult(summary: string, data: Record<string, unknown>): ToolOutput {
  return { content: [{ type: 'text', text: `${summary}\n${JSON.stringify(data)}` }], structuredContent: data };
}

export const accessTools = [
  defineTool({
    name: 'request_access',
    title: 'Request access to applications', effect: 'configures', gated: false, pixelChecked: false, batchable: false,
    description: () =>
      'Ask for access to applications on the desktop (call this first). Apps are granted at a tier: read (screenshots only), click (plain left clicks and scrolling), or full (everything). Clipboard and system key combos need their flags. A later request can add apps; grants are never taken away during the session.',
    inputSchema: z.strictObject({
      apps: z.array(z.string().min(1).max(200)).min(1, { message: 'name at least one app' }).max(50, { message: 'at most 50 apps per request' }).describe('Apps to use, by name or id: e.g. "xterm", "firefox-esr", "org.gnome.Terminal"'),
      reason: z.string().min(1, { message: 'say why you need access' }).max(2000).describe('Why you need them, shown to the person who approves'),
      clipboardRead: z.boolean().optional().describe('Also read the clipboard'),
      clipboardWrite: z.boolean().optional().describe('Also write the clipboard'),
      systemKeyCombos: z.boolean().optional().describe('Also send system key combos such as alt+f4 or ctrl+alt+backspace'),
    }),
    actionKind: 'none',
    extraSeconds: () => APPROVAL_MAX_SECONDS,
    async handle(args, { executor, state, policy, approvals, signal }) {
      const request = { apps: args.apps, reason: args.reason, flags: { clipboardRead: args.clipboardRead, clipboardWrite: args.clipboardWrite, systemKeyCombos: args.systemKeyCombos } };
      const proposal = proposeGrants(request, policy);
      const asked = proposal.grants.apps.length > 0 || Object.values(proposal.grants.flags).some(Boolean);
      let denied: string[] = [];
      let note = '';
      if (asked && policy.approval === 'deny') {
        denied = proposal.grants.apps.map((grant) => grant.app);
        note = "This tenant's policy grants no access.";
      } else if (asked && policy.approval === 'human') {
        if (!approvals) throw new ToolError('permission_missing', 'This tenant requires a person to approve access, and no approval service is available.');
        const decision = await approvals.decide(request, proposal, Math.min(policy.approvalTimeoutSeconds, APPROVAL_MAX_SECONDS) * 1000, signal);
        if (decision !== 'approved') {
          denied = proposal.grants.apps.map((grant) => grant.app);
          note = decision === 'timeout' ? `Nobody approved the request within ${policy.approvalTimeoutSeconds} s.` : 'A person denied the request.';
        }
      }
      if (asked && denied.length === 0 && !note) state.grants = mergeGrants(state.grants, proposal.grants);
      const granted = note ? [] : proposal.grants.apps;
      const restored = granted.length ? await restoreGranted(executor, state) : [];
      const data = {
        granted,
        denied,
        policyDenied: proposal.policyDenied,
        flags: state.grants.flags,
        flagsRefused: proposal.flagsRefused,
        ...(restored.length ? { restored } : {}),
      };
      const parts = [`Granted: ${granted.length ? granted.map((g) => `${g.app} (${g.tier})`).join(', ') : 'nothing new'}.`];
      if (note) parts.push(note);
      if (restored.length) parts.push(`Brought back windows hidden earlier: ${restored.join(', ')}.`);
      if (proposal.policyDenied.length) parts.push(`Never grantable: ${proposal.policyDenied.map((d) => `${d.app} — ${d.reason}`).join('; ')}.`);
      if (proposal.flagsRefused.length) parts.push(`Flags the policy never gives: ${proposal.flagsRefused.join(', ')}.`);
      parts.push(`Now allowed: ${describeGrants(state.grants)}. read = screenshots only; click = plain left clicks and scrolling; full = everything.`);
      return accessResult(parts.join(' '), data);
    },
  }),
  defineTool({
    name: 'list_granted_applications',
    title: 'List granted applications', effect: 'observes', gated: false, pixelChecked: false, batchable: false,
    description: () => 'List the applications this session may use, with their tiers and the grant flags.',
    inputSchema: z.strictObject({}),
    actionKind: 'none',
    async handle(_args, { state }) {
      return accessResult(`Allowed: ${describeGrants(state.grants)}.`, { apps: state.grants.apps, flags: state.grants.flags });
    },
  }),
];
