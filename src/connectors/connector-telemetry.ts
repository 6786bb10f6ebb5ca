import type { ErrorCode } from '../domain/errors';
import type { CallObserver } from './http/call-observer';

/**
 * What a connector tells telemetry (src/telemetry implements it, src/runtime hands it over):
 * every attempt of every call to its target, and every failed attempt to sign in to it.
 */
export interface ConnectorTelemetry {
  calls: CallObserver;
  /** An access token could not be had, with the code it failed with. */
  tokenFailed(code: ErrorCode): void;
}
