export * from './keys.ts';
export * from './names.ts';
export * from './action-protocol.ts';
export { ActionClient, DesktopGoneError, type SendOptions } from './action-client.ts';
export { ActionServer, type ActionHandler, type HandledAction } from './action-server.ts';
export * from './session-store.ts';
export * from './desktop-registry.ts';
export * from './lifecycle.ts';
