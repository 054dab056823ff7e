// Sign-in: the key goes once, in a POST body, and is cleared from the page at once; the answer
// is an HttpOnly session cookie the page cannot read.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { html } from '../html.js';

export function SignIn({ onSignedIn }) {
  const [error, setError] = useState('');
  async function submit(event) {
    event.preventDefault();
    const field = event.target.elements.key;
    const key = field.value;
    field.value = '';
    try {
      onSignedIn(await api('/sign-in', { method: 'POST', body: { key } }));
    } catch (e) {
      setError(e.message);
    }
  }
  return html`<main class="sign-in">
    <h1>deskgate console</h1>
    <p>Sign in with an approver, operator or admin API key. Agent keys drive desktops over MCP and cannot sign in here.</p>
    <form onSubmit=${submit}>
      <input name="key" type="password" autocomplete="off" placeholder="dg_…" aria-label="API key" required />
      <button type="submit">Sign in</button>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
  </main>`;
}
