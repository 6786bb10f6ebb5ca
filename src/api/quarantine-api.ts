import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { ErrorCode } from '../domain/errors';
import type { QuarantineState } from '../domain/quarantine';
import type { HeldRequest } from '../store/quarantine-store';
import type { WorkflowServices } from '../workflows/workflow-services';
import type { ApiDeps } from './api-deps';
import { FUNCTION_KEY_HOLDER, submitterOf } from './caller';
import { callerOf } from './entrances';
import { unknownConnector } from './http-problem';

/** Held requests a status answer lists by id (the count is always whole). */
const HELD_LISTED = 100;

/** What the API shows of a connector's quarantine (issue 14). */
export interface QuarantineView {
  state: 'quarantined' | 'active';
  /** Quarantined since (while quarantined), or when the last quarantine began. */
  since?: string;
  /** The failure that quarantined it: code, and its message without secrets. */
  reason?: { code: ErrorCode; message: string };
  /** The latest failure seen since (a probe's, or the reason itself). */
  lastError?: { code: ErrorCode; message: string; at: string };
  probes?: number;
  lastProbeAt?: string;
  /** While quarantined: when the probe checks the target next. */
  nextProbeAt?: string;
  /** Requests held now; `held` lists the first ones, oldest first. */
  heldRequests: number;
  held?: HeldRequest[];
  /** How the last quarantine ended. */
  releasedAt?: string;
  releasedBy?: 'probe' | 'operator';
  /** Who released it, where an operator did: a signed-in caller's name, or which key. */
  releasedByName?: string;
}

/** The view of a connector's quarantine state, with its held requests when asked for. */
export function viewOf(state: QuarantineState | undefined, held: HeldRequest[]): QuarantineView {
  if (state === undefined) return { state: 'active', heldRequests: held.length };
  return {
    state: state.quarantined ? 'quarantined' : 'active',
    since: state.since,
    reason: state.reason,
    lastError: state.lastError,
    probes: state.probes,
    ...(state.lastProbeAt === undefined ? {} : { lastProbeAt: state.lastProbeAt }),
    ...(state.quarantined ? { nextProbeAt: state.nextProbeAt } : {}),
    heldRequests: held.length,
    ...(held.length === 0 ? {} : { held: held.slice(0, HELD_LISTED) }),
    ...(state.releasedAt === undefined ? {} : { releasedAt: state.releasedAt }),
    ...(state.releasedBy === undefined ? {} : { releasedBy: state.releasedBy }),
    ...(state.releasedByName === undefined ? {} : { releasedByName: state.releasedByName }),
  };
}

/** A connector's quarantine as the status check and the release show it. */
export async function quarantineOf(
  services: WorkflowServices,
  connector: string,
): Promise<QuarantineView> {
  const [state, held] = await Promise.all([
    services.quarantine.get(connector),
    services.quarantine.held(connector),
  ]);
  return viewOf(state, held);
}

/** Every connector's quarantine, by name: one query, plus the held requests of those quarantined. */
export async function quarantinesOf(
  services: WorkflowServices,
): Promise<Map<string, QuarantineView>> {
  const states = await services.quarantine.list();
  const views = await Promise.all(
    states.map(async (state) => {
      const held = state.quarantined ? await services.quarantine.held(state.connector) : [];
      const view = viewOf(state, held);
      delete view.held;
      return [state.connector, view] as const;
    }),
  );
  return new Map(views);
}

/**
 * `GET /api/connectors/{name}/quarantine`: the connector's quarantine with its held requests,
 * read from the store alone (the status check asks the target too; this never does).
 */
export function getQuarantineHandler(deps: Pick<ApiDeps, 'services'>) {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    return { status: 200, jsonBody: await quarantineOf(services, name) };
  };
}

/**
 * `POST /api/connectors/{name}/release`: an operator ends the connector's quarantine; its
 * held requests go on at their next look (within a minute, five after their first hour).
 * Who released it is recorded as requests record who submitted them (`releasedByName`: a
 * signed-in caller's name, or which key). 200 with `released` (false: it was not
 * quarantined) and the quarantine as it is now.
 */
export function releaseConnectorHandler(deps: Pick<ApiDeps, 'services' | 'now' | 'keyHolder'>) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    const operator = submitterOf(callerOf(request), deps.keyHolder ?? FUNCTION_KEY_HOLDER);
    const { released } = await services.quarantine.release(
      name,
      { operator },
      deps.now().toISOString(),
    );
    if (released) context.log(`connector ${name} released by an operator`);
    return {
      status: 200,
      jsonBody: { connector: name, released, quarantine: await quarantineOf(services, name) },
    };
  };
}
