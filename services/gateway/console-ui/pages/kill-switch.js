// The tenant's kill switch (operators): on stops every tool call of the tenant at once.
import { useCallback, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html } from '../html.js';
import { usePoll } from './use-poll.js';

const VIA = { console: 'in the console', api: 'through the REST API', cli: 'with the CLI' };

// Who flipped the switch and when, whichever way it was flipped (recorded with the flip itself).
function LastFlip({ flip }) {
  if (!flip) return html`<p class="last-flip">No record of who flipped it.</p>`;
  const who = flip.keyId ? `${flip.role} key ${flip.keyId}` : 'an operator';
  return html`<p class="last-flip" data-via=${flip.via}>Switched ${flip.on ? 'on' : 'off'} by ${who} ${VIA[flip.via] ?? ''} at ${new Date(flip.at).toLocaleString()}.</p>`;
}

export function KillSwitch() {
  const load = useCallback(() => api('/killswitch'), []);
  const { data, error, reload } = usePoll(load, 3000);
  const [failure, setFailure] = useState('');
  async function flip(on) {
    await api('/killswitch', { method: 'PUT', body: { on } }).then(() => setFailure(''), (e) => setFailure(e.message));
    reload();
  }
  return html`<h1>Kill switch</h1>
    ${(error || failure) && html`<p class="error">${error || failure}</p>`}
    ${data && html`<section class=${`kill-switch ${data.tenant ? 'on' : 'off'}`}>
      <p class="state">Computer use for this tenant is <b>${data.tenant ? 'switched OFF (kill switch on)' : 'running'}</b>${data.global ? ' — the global switch is on too' : ''}.</p>
      <${LastFlip} flip=${data.lastFlip} />
      ${data.global && html`<div class="global-flip">The global switch: ${data.globalLastFlip ? html`<${LastFlip} flip=${data.globalLastFlip} />` : 'no record of who flipped it.'}</div>`}
      ${data.tenant ? html`<button onClick=${() => flip(false)}>Lift the kill switch</button>` : html`<button class="danger" onClick=${() => flip(true)}>Stop all computer use</button>`}
    </section>`}`;
}
