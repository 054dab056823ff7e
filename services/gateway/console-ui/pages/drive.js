// A session live, and takeover: the person watches the screen as it changes, may share a
// view-only link, takes the desktop's lock, drives it with the mouse, the keyboard and the
// clipboard through the same gates as the agent (each action audited as theirs), and hands it
// back. A click on the live picture is a click at the same spot of the desktop, so nothing
// above the picture changes height while the person drives: statuses come and go in a line
// of their own.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html } from '../html.js';
import { LiveScreen } from './live-screen.js';

const imageOf = (result) => result.content.find((c) => c.type === 'image');
const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

export function Drive({ session, canDrive }) {
  const base = `/sessions/${encodeURIComponent(session)}`;
  const [takeover, setTakeover] = useState(null);
  const [frame, setFrame] = useState(null);
  const [status, setStatus] = useState('');
  const [share, setShare] = useState(null);
  const [clipboard, setClipboard] = useState(null);
  const renewTimer = useRef(null);

  useEffect(() => () => clearInterval(renewTimer.current), []);

  async function act(tool, args = {}) {
    try {
      const result = await api(`${base}/act`, { method: 'POST', body: { tool, args } });
      const image = imageOf(result);
      if (image) setFrame(`data:${image.mimeType};base64,${image.data}`);
      const clipboard = tool === 'read_clipboard' && !result.isError ? textOf(result) : null;
      if (clipboard !== null) setClipboard(clipboard);
      setStatus(result.isError ? `${tool} refused: ${textOf(result)}` : `${tool} done.${clipboard !== null ? ` ${clipboard.length} characters, shown under the picture.` : ''}`);
      return result;
    } catch (e) {
      setStatus(e.message);
    }
  }
  async function takeOver() {
    try {
      const taken = await api(`${base}/takeover`, { method: 'POST' });
      setTakeover(taken);
      renewTimer.current = setInterval(() => api(`${base}/takeover/renew`, { method: 'POST', body: { epoch: taken.epoch } }).catch((e) => (setStatus(e.message), setTakeover(null), clearInterval(renewTimer.current))), taken.leaseMs / 3);
      await act('screenshot');
    } catch (e) {
      setStatus(e.message);
    }
  }
  async function handBack() {
    clearInterval(renewTimer.current);
    await api(`${base}/takeover`, { method: 'DELETE' }).then(() => setStatus('Handed back to the agent.'), (e) => setStatus(e.message));
    setTakeover(null);
  }
  async function shareLink() {
    await api(`${base}/share`, { method: 'POST' }).then(setShare, (e) => setStatus(e.message));
  }
  function click(event) {
    if (!takeover) return;
    const img = event.currentTarget;
    const rect = img.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * img.naturalWidth;
    const y = ((event.clientY - rect.top) / rect.height) * img.naturalHeight;
    const coordinate = takeover.coordinateMode === 'normalized_0_100' ? [(x / img.naturalWidth) * 100, (y / img.naturalHeight) * 100] : [Math.round(x), Math.round(y)];
    act(event.button === 2 ? 'right_click' : 'left_click', { coordinate });
  }
  const submit = (tool, field) => (event) => {
    event.preventDefault();
    const input = event.target.elements[field];
    act(tool, { text: input.value });
    input.value = '';
  };
  return html`<h1>Live: ${session}</h1>
    <p><button id="share" onClick=${shareLink}>Share a view-only link</button>
      ${share && html` <input id="share-url" readonly value=${share.url} size="80" aria-label="View-only link" /> (expires ${new Date(share.expiresAt).toLocaleTimeString()})`}</p>
    ${canDrive && !takeover && html`<p>While you drive, the agent's calls are refused with <code>lock_held</code> ("a person is driving"); nothing it sends is queued. Hand back when done: its next call is told the screen changed.</p>
      <button id="take-over" onClick=${takeOver}>Take over</button>`}
    ${takeover && html`<p class="driving">You are driving (lock epoch ${takeover.epoch}). <button id="hand-back" onClick=${handBack}>Hand back</button></p>
      <form class="inline" onSubmit=${submit('type', 'text')}><input name="text" placeholder="Text to type" aria-label="Text to type" /><button>Type</button></form>
      <form class="inline" onSubmit=${submit('key', 'text')}><input name="text" placeholder="Key, e.g. ctrl+a" aria-label="Key" /><button>Press key</button></form>
      <form class="inline" onSubmit=${submit('write_clipboard', 'text')}><input name="text" placeholder="Clipboard text" aria-label="Clipboard text" /><button>Set clipboard</button></form>
      <button onClick=${() => act('read_clipboard')}>Read clipboard</button>
      <button onClick=${() => act('screenshot')}>Refresh</button>`}
    <p class="status-line notice" role="status" id="drive-status" title=${status}>${status}</p>
    <${LiveScreen} url=${`/console/api${base}/live`} onClick=${click} fallback=${frame} />
    ${clipboard !== null && html`<p><label>The clipboard, as last read<br /><textarea id="clipboard-text" readonly rows="4" cols="100" value=${clipboard} /></label></p>`}`;
}
