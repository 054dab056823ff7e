// A view-only share link (/console/watch#<token>): the token, read from the fragment (never
// sent to a server in the URL), is traded once for a view-only cookie; then the live view.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { LiveScreen } from './live-screen.js';

export function Watch() {
  const [link, setLink] = useState(null);
  const [error, setError] = useState('');
  useEffect(() => {
    const token = location.hash.slice(1);
    history.replaceState(null, '', location.pathname);
    fetch('/console/share/open', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) })
      .then(async (r) => ((r.ok ? setLink : (d) => setError(d.message))(await r.json())))
      .catch((e) => setError(e.message));
  }, []);
  if (error) return html`<main><h1>deskgate — view only</h1><p class="error" role="alert">${error}</p></main>`;
  if (!link) return html`<main><p>Opening…</p></main>`;
  return html`<main><h1>Session ${link.session} — view only</h1>
    <p>This link shows the screen until ${new Date(link.expiresAt).toLocaleTimeString()}; it cannot drive the desktop.</p>
    <${LiveScreen} url="/console/share/live" />
  </main>`;
}
