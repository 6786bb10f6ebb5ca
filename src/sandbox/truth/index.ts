export { TruthLog } from './truth-log.js';
export { sameValue } from './same-value.js';
export type { TruthChange, TruthEvent } from './truth-event.js';
