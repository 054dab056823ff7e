/**
 * @deskgate/helper-protocol — the worker's typed contract with the desktop helpers: the
 * capture helper's framed protocol (`capture.ts`), the input runtime's JSON lines
 * (`input.ts`), one table from their error kinds to tool error kinds (`error-kinds.ts`) and
 * the numbers both sides share (`constants.ts`). The test vectors in `vectors/` are checked
 * against this package and against the Rust and Python helpers themselves.
 */
export * from './constants.ts';
export * from './capture.ts';
export * from './input.ts';
export * from './error-kinds.ts';
export { LineSplitter, ProtocolStreamError } from './frames.ts';
