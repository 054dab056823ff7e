// The live view: frames pushed by the gateway (Server-Sent Events) as the desktop's screen
// changes. Each frame is drawn as it arrives; the page keeps when it showed the last one
// (window.deskgateLive, read by the tests and the bench) and the frames per second.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

export function LiveScreen({ url, onClick, fallback }) {
  const [frame, setFrame] = useState(null);
  const [state, setState] = useState('connecting…');
  const img = useRef(null);
  useEffect(() => {
    const source = new EventSource(url);
    // For the tests and bench/console-live.ts: frames shown, when, and capture → shown delays.
    const stats = (window.deskgateLive = { frames: 0, shown: [], delays: [], last: null });
    source.addEventListener('frame', (event) => {
      const frame = JSON.parse(event.data);
      if (frame.unavailable) return setState(frame.unavailable);
      setState('');
      const src = `data:image/jpeg;base64,${frame.jpeg}`;
      if (img.current) img.current.src = src;
      else setFrame(src);
      stats.frames++;
      stats.last = { at: frame.at, width: frame.width, height: frame.height, shownAt: Date.now(), captureMs: frame.captureMs };
      stats.shown.push(Date.now());
      stats.delays.push(Date.now() - frame.at);
      if (stats.shown.length > 1000) (stats.shown.shift(), stats.delays.shift());
    });
    source.addEventListener('expired', () => (setState('This link has expired.'), source.close()));
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'The live view ended.' : 'reconnecting…');
    return () => source.close();
  }, [url]);
  const shown = frame ?? fallback;
  return html`<div class="live">
    <p class="status-line" id="live-state">${state}</p>
    ${shown && html`<img id="screen" ref=${img} class="screen" src=${shown} alt="The desktop, live" onClick=${onClick} onContextMenu=${(e) => (e.preventDefault(), onClick?.(e))} />`}
  </div>`;
}
