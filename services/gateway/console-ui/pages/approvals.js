// Access requests waiting for a person (tenant policy `approval: human`): app, tier, flags and
// reason; approving or denying releases the agent's waiting request_access. The list is pushed
// by the gateway as requests arrive and go (live-updates.js), on every open page of the tenant.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { html } from '../html.js';
import { useLiveUpdates, useNow } from '../live-updates.js';
import { time } from './format.js';

const flagText = (flags) => Object.entries(flags ?? {}).filter(([, on]) => on).map(([name]) => name).join(', ') || 'none';

export function Approvals() {
  const { approvals, status } = useLiveUpdates();
  const now = useNow();
  const [message, setMessage] = useState('');
  async function decide(id, decision) {
    try {
      await api(`/approvals/${encodeURIComponent(id)}`, { method: 'POST', body: { decision } });
      setMessage(`${decision === 'approve' ? 'Approved' : 'Denied'}.`);
    } catch (e) {
      setMessage(e.message);
    }
  }
  const waiting = (approvals ?? []).filter((a) => Date.parse(a.expiresAt) > now);
  return html`<h1>Approvals</h1>
    ${status && html`<p class="notice" id="updates-state">${status}</p>`}
    ${message && html`<p class="notice" role="status">${message}</p>`}
    ${approvals && waiting.length === 0 && html`<p>No requests are waiting.</p>`}
    ${waiting.map((a) => html`<section class="approval" data-approval=${a.id}>
      <h2>Session ${a.session}</h2>
      <p class="reason">“${a.reason}”</p>
      <ul>${a.proposed.apps.map((g) => html`<li>${g.app} — tier <b>${g.tier}</b></li>`)}</ul>
      ${a.policyDenied?.length > 0 && html`<p>Denied by policy: ${a.policyDenied.map((d) => d.app ?? d).join(', ')}</p>`}
      <p>Flags asked: ${flagText(a.flags)} · asked ${time(a.createdAt)} · expires ${time(a.expiresAt)}</p>
      <button class="approve" onClick=${() => decide(a.id, 'approve')}>Approve</button>
      <button class="danger deny" onClick=${() => decide(a.id, 'deny')}>Deny</button>
    </section>`)}`;
}
