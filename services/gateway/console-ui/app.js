// The console's shell: sign-in, then the pages the key's role is offered, routed by the URL's
// hash (#/sessions, #/approvals, #/killswitch, #/timeline/<session>, #/live/<session>); a
// view-only share link (/console/watch#<token>) gets the live view alone.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setCsrf } from './api.js';
import { closeLiveUpdates } from './live-updates.js';
import { html } from './html.js';
import { SignIn } from './pages/sign-in.js';
import { Sessions } from './pages/sessions.js';
import { Approvals } from './pages/approvals.js';
import { KillSwitch } from './pages/kill-switch.js';
import { Timeline } from './pages/timeline.js';
import { Drive } from './pages/drive.js';
import { Watch } from './pages/watch.js';

const useHash = () => {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const changed = () => setHash(location.hash || '#/');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
};

function Nav({ me, onSignOut }) {
  const o = me.offers;
  return html`<nav>
    <strong>deskgate</strong>
    ${o.sessions && html`<a href="#/sessions">Sessions</a>`}
    ${o.approvals && html`<a href="#/approvals">Approvals</a>`}
    ${o.killSwitch && html`<a href="#/killswitch">Kill switch</a>`}
    <span class="who">${me.role} · ${me.keyId} · tenant ${me.tenant}</span>
    <button id="sign-out" onClick=${onSignOut}>Sign out</button>
  </nav>`;
}

function Page({ me, hash }) {
  const [, page, arg] = hash.split('/');
  const o = me.offers;
  const name = arg ? decodeURIComponent(arg) : '';
  if (page === 'approvals' && o.approvals) return html`<${Approvals} />`;
  if (page === 'killswitch' && o.killSwitch) return html`<${KillSwitch} />`;
  if (page === 'timeline' && o.audit) return html`<${Timeline} session=${name} />`;
  if (page === 'live' && o.watch) return html`<${Drive} session=${name} canDrive=${o.takeOver} />`;
  if (o.sessions) return html`<${Sessions} offers=${o} />`;
  return html`<${Approvals} />`;
}

function App() {
  const [me, setMe] = useState(undefined);
  const hash = useHash();
  useEffect(() => {
    api('/me').then(signedIn, () => setMe(null));
    // The gateway ends the pushed updates when the sign-in ends (expired, signed out elsewhere, key revoked).
    const ended = () => (setCsrf(''), setMe(null));
    addEventListener('deskgate:signed-out', ended);
    return () => removeEventListener('deskgate:signed-out', ended);
  }, []);
  function signedIn(who) {
    setCsrf(who.csrf);
    setMe(who);
  }
  async function signOut() {
    closeLiveUpdates();
    await api('/sign-out', { method: 'POST' }).catch(() => undefined);
    setCsrf('');
    setMe(null);
  }
  if (me === undefined) return html`<p>Loading…</p>`;
  if (me === null) return html`<${SignIn} onSignedIn=${signedIn} />`;
  return html`<${Nav} me=${me} onSignOut=${signOut} /><main><${Page} me=${me} hash=${hash} /></main>`;
}

const viewOnly = location.pathname === '/console/watch';
render(viewOnly ? html`<${Watch} />` : html`<${App} />`, document.getElementById('root'));
