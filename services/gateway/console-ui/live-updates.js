// What the gateway pushes to the console (/console/api/events, Server-Sent Events): one stream
// per page while a page that shows approvals or sessions is open. It starts with a snapshot of
// both lists and then carries each change; the browser reconnects on its own after a drop and
// gets a fresh snapshot, so the pages never ask for a list. window.deskgateEvents counts what
// arrived and names the latest 100 (read by the tests).
import { useEffect, useState } from 'preact/hooks';

let source = null;
let state = { approvals: null, sessions: null, status: 'connecting…' };
const pages = new Set();

const publish = (next) => {
  state = next;
  for (const page of pages) page(state);
};
const byName = (a, b) => a.name.localeCompare(b.name);
const byCreated = (a, b) => a.createdAt.localeCompare(b.createdAt);
const upsert = (list, item, key, order) => [...(list ?? []).filter((x) => x[key] !== item[key]), item].sort(order);

function connect() {
  const stats = (window.deskgateEvents = { snapshots: 0, events: 0, seen: [] });
  source = new EventSource('/console/api/events');
  const on = (name, apply) =>
    source.addEventListener(name, (event) => {
      const data = JSON.parse(event.data);
      stats.events++;
      stats.seen.push({ event: name, tenant: data.tenant ?? null, session: data.session?.name ?? data.session ?? data.name ?? null, id: data.id ?? null });
      if (stats.seen.length > 100) stats.seen.shift();
      apply(data);
    });
  on('snapshot', (data) => {
    stats.snapshots++;
    publish({ approvals: data.approvals ?? null, sessions: data.sessions ?? null, status: '' });
  });
  on('approval', (approval) => publish({ ...state, approvals: upsert(state.approvals, approval, 'id', byCreated) }));
  on('approval_gone', ({ id }) => publish({ ...state, approvals: (state.approvals ?? []).filter((a) => a.id !== id) }));
  on('session', ({ name, session }) => {
    const sessions = session ? upsert(state.sessions, session, 'name', byName) : (state.sessions ?? []).filter((s) => s.name !== name);
    publish({ ...state, sessions });
  });
  on('signed_out', () => {
    closeLiveUpdates();
    dispatchEvent(new Event('deskgate:signed-out'));
  });
  source.onerror = () => source && publish({ ...state, status: source.readyState === EventSource.CLOSED ? 'Updates stopped; reload the page.' : 'reconnecting…' });
}

export function closeLiveUpdates() {
  source?.close();
  source = null;
  state = { approvals: null, sessions: null, status: 'connecting…' };
}

/** The pushed lists, kept current while the calling page is shown. */
export function useLiveUpdates() {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    pages.add(setCurrent);
    if (!source) connect();
    setCurrent(state);
    return () => {
      pages.delete(setCurrent);
      if (pages.size === 0) closeLiveUpdates();
    };
  }, []);
  return current;
}

/** Now, once a second: idle times and expiries move on without asking the gateway. */
export function useNow(ms = 1000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
