// htm bound to Preact: JSX-like templates as tagged strings, no build step.
import { h } from 'preact';
import htm from 'htm';
export const html = htm.bind(h);
