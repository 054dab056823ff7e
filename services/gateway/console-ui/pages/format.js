// Small formatting helpers shared by the pages.
export const ago = (ms) => (ms < 1000 ? 'now' : ms < 60_000 ? `${Math.round(ms / 1000)} s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`);
export const time = (iso) => new Date(iso).toLocaleTimeString();
export const actorText = (actor) => (actor.type === 'person' ? `person (${actor.name})` : `agent (${actor.name})`);
