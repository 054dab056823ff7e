// A session's audit timeline: every call with its outcome, refusal kind, duration and actor,
// a small frame of the screen after each call that ran, filtered by kind, exported as JSON.
import { useCallback, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html } from '../html.js';
import { actorText, time } from './format.js';
import { usePoll } from './use-poll.js';

export function Timeline({ session }) {
  const [kind, setKind] = useState('');
  const query = kind ? `?kind=${encodeURIComponent(kind)}` : '';
  const base = `/sessions/${encodeURIComponent(session)}`;
  const path = `${base}/audit`;
  const load = useCallback(() => api(`${path}${query}`), [path, query]);
  const all = useCallback(() => api(path), [path]);
  const { data, error } = usePoll(load, 2000);
  const kinds = usePoll(all, 5000).data;
  const present = [...new Set((kinds?.entries ?? []).map((e) => e.kind ?? 'ok'))].sort();
  return html`<h1>Timeline of ${session}</h1>
    <p class="tools">
      <label>Kind <select id="kind-filter" value=${kind} onChange=${(e) => setKind(e.target.value)}>
        <option value="">all</option>
        ${present.map((k) => html`<option value=${k}>${k}</option>`)}
      </select></label>
      <a id="export" href=${`/console/api${path}/export${query}`} download>Export JSON</a>
    </p>
    ${error && html`<p class="error">${error}</p>`}
    ${data && html`<table class="timeline">
      <thead><tr><th>When</th><th>Tool</th><th>Outcome</th><th>ms</th><th>Actor</th><th>Arguments</th><th>Screen after</th></tr></thead>
      <tbody>${data.entries.map((e) => html`<tr data-entry=${e.id} data-actor=${e.actor.type} data-kind=${e.kind ?? 'ok'} class=${e.outcome}>
        <td>${time(new Date(e.at).toISOString())}</td>
        <td>${e.tool}</td>
        <td>${e.kind ?? e.outcome}</td>
        <td>${e.ms}</td>
        <td>${actorText(e.actor)}</td>
        <td><code>${JSON.stringify(e.args)}</code></td>
        <td>${e.frameId && html`<img class="thumb" loading="lazy" alt=${`the screen after ${e.tool}`} src=${`/console/api${base}/frames/${e.frameId}`} />`}</td>
      </tr>`)}</tbody>
    </table>`}`;
}
