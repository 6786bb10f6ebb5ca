export { HttpTransport } from './transport';
export type {
  HttpCall,
  HttpExchange,
  HttpMethod,
  HttpResult,
  TransportOptions,
  TransportStats,
} from './transport';
export { parseRetryAfter } from './retry-after';
export { backoffDelay, type BackoffPolicy } from './backoff';
export { redactSecrets, describeUrl, oneLine } from './redact';
export {
  ThrottleGate,
  type AttemptSignal,
  type GatePass,
  type ThrottleGateStats,
} from './throttle-gate';
