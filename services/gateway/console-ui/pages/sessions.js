// The tenant's sessions: desktop, lock holder, granted apps, last action, idle time; links to
// the timeline and to driving it; end a session. Rows are pushed by the gateway as sessions
// start, end, act or change hands (live-updates.js); idle time moves on in the page.
import { api } from '../api.js';
import { html } from '../html.js';
import { useLiveUpdates, useNow } from '../live-updates.js';
import { actorText, ago } from './format.js';

export function Sessions({ offers }) {
  const { sessions, status } = useLiveUpdates();
  const now = useNow();
  async function end(name) {
    if (!confirm(`End session "${name}"? Its desktop is destroyed.`)) return;
    await api(`/sessions/${encodeURIComponent(name)}`, { method: 'DELETE' }).catch((e) => alert(e.message));
  }
  return html`<h1>Sessions</h1>
    ${status && html`<p class="notice" id="updates-state">${status}</p>`}
    ${sessions && sessions.length === 0 && html`<p>No sessions.</p>`}
    ${sessions && sessions.length > 0 && html`<table class="sessions">
      <thead><tr><th>Session</th><th>Desktop</th><th>Lock</th><th>Granted apps</th><th>Last action</th><th>Idle</th><th></th></tr></thead>
      <tbody>${sessions.map((s) => html`<tr data-session=${s.name}>
        <td>${s.name}</td>
        <td>${s.desktop ? `${s.desktop.width}×${s.desktop.height}${s.desktop.alive ? '' : ' (gone)'}` : 'none'}</td>
        <td class=${s.lock?.person ? 'person' : ''}>${s.lock ? s.lock.holder : 'free'}</td>
        <td>${s.grants?.apps.length ? s.grants.apps.map((g) => `${g.app} (${g.tier})`).join(', ') : '—'}</td>
        <td>${s.lastAction ? html`${s.lastAction.tool} · ${s.lastAction.kind ?? s.lastAction.outcome} · ${actorText(s.lastAction.actor)}` : '—'}</td>
        <td>${ago(Math.max(0, now - Date.parse(s.lastUsedAt)))}</td>
        <td class="actions">
          ${offers.audit && html`<a href=${`#/timeline/${encodeURIComponent(s.name)}`}>Timeline</a>`}
          ${offers.watch && s.desktop && html`<a href=${`#/live/${encodeURIComponent(s.name)}`}>Live</a>`}
          ${offers.endSessions && html`<button class="danger" onClick=${() => end(s.name)}>End</button>`}
        </td>
      </tr>`)}</tbody>
    </table>`}`;
}
