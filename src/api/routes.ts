import type { HttpMethod } from '@azure/functions';
import type { ApiDeps } from './api-deps';
import type { Access } from './caller';
import {
  accountViewHandler,
  groupSearchHandler,
  groupStructureHandler,
  rolesHandler,
} from './connector-reads-api';
import { lastCompatibilityRunHandler } from './compatibility-runs-api';
import { defaultConsoleDirectory } from './console-assets';
import { consoleHandler } from './console-handler';
import { connectorStatusHandler } from './connector-status';
import { listConnectorsHandler } from './connectors-api';
import { keyEntrance, signedInEntrance, SIGNED_IN_PREFIX } from './entrances';
import { guardHandler, type ApiHandler } from './guard-handler';
import { driftReportHandler } from './drift-report-api';
import { driftRestoreHandler } from './drift-restore-api';
import { healthHandler, livenessHandler } from './health-api';
import {
  getJobHandler,
  startCompatibilityRunHandler,
  startImportHandler,
  startReconciliationHandler,
} from './jobs-api';
import { journalHandler } from './journal-api';
import { meHandler } from './me-api';
import { metricsHandler } from './metrics-api';
import { openApiHandler } from './openapi';
import { listRequestsHandler } from './request-list-api';
import { getQuarantineHandler, releaseConnectorHandler } from './quarantine-api';
import { endGroupsCutHandler } from './user-groups-end-api';
import { linkAccountHandler } from './account-link-api';
import { getRequestHandler, submitRequestHandler } from './requests-api';

export interface ApiRoute {
  name: string;
  method: HttpMethod;
  /** Azure Functions route template, under /api. */
  route: string;
  /**
   * `function`: the host lets the call in only with a function key (the local host: its API
   * key). `anonymous`: the handler decides (a signed-in caller's roles; the console's files).
   */
  authLevel: 'function' | 'anonymous';
  handler: ApiHandler;
}

interface ApiOperation {
  name: string;
  method: HttpMethod;
  route: string;
  access: Access;
  handler: ApiHandler;
}

/**
 * Every HTTP route: registered by functions/ in Azure and served by the local host. Each
 * operation is reachable twice: at `/api/<route>` with a function key (the governance
 * workflow), and at `/api/signed-in/<route>` for a caller signed in with App Service
 * Authentication whose app role allows the operation. The console's own files are served
 * at `/api/console/...`.
 */
export function apiRoutes(deps: ApiDeps): ApiRoute[] {
  const signedIn = { appServiceAuthentication: deps.appServiceAuthentication === true };
  return [
    ...operations(deps).flatMap(({ name, method, route, access, handler }): ApiRoute[] => [
      {
        name,
        method,
        route,
        authLevel: 'function',
        handler: guardHandler(name, keyEntrance(handler)),
      },
      {
        name: `${name}SignedIn`,
        method,
        route: `${SIGNED_IN_PREFIX}/${route}`,
        authLevel: 'anonymous',
        handler: guardHandler(name, signedInEntrance(access, handler, signedIn)),
      },
    ]),
    {
      name: 'console',
      method: 'GET',
      route: 'console/{*path}',
      authLevel: 'anonymous',
      handler: guardHandler(
        'console',
        consoleHandler(deps.consoleDirectory ?? defaultConsoleDirectory()),
      ),
    },
    {
      name: 'healthLive',
      method: 'GET',
      route: 'health/live',
      authLevel: 'anonymous',
      handler: guardHandler('healthLive', livenessHandler()),
    },
  ];
}

function operations(deps: ApiDeps): ApiOperation[] {
  const list: ApiOperation[] = [
    {
      name: 'submitRequest',
      method: 'POST',
      route: 'requests',
      access: 'operate',
      handler: submitRequestHandler(deps),
    },
    {
      name: 'listRequests',
      method: 'GET',
      route: 'requests',
      access: 'read',
      handler: listRequestsHandler(deps),
    },
    {
      name: 'getRequest',
      method: 'GET',
      route: 'requests/{id}',
      access: 'read',
      handler: getRequestHandler(deps),
    },
    {
      name: 'listConnectors',
      method: 'GET',
      route: 'connectors',
      access: 'read',
      handler: listConnectorsHandler(deps),
    },
    {
      name: 'connectorStatus',
      method: 'POST',
      route: 'connectors/{name}/status',
      access: 'read',
      handler: connectorStatusHandler(deps),
    },
    {
      name: 'getQuarantine',
      method: 'GET',
      route: 'connectors/{name}/quarantine',
      access: 'read',
      handler: getQuarantineHandler(deps),
    },
    {
      name: 'releaseConnector',
      method: 'POST',
      route: 'connectors/{name}/release',
      access: 'operate',
      handler: releaseConnectorHandler(deps),
    },
    {
      name: 'endGroupsCut',
      method: 'POST',
      route: 'connectors/{name}/user-groups/end-cut',
      access: 'operate',
      handler: endGroupsCutHandler(deps),
    },
    {
      name: 'startImport',
      method: 'POST',
      route: 'connectors/{name}/imports',
      access: 'operate',
      handler: startImportHandler(deps),
    },
    {
      name: 'startCompatibilityRun',
      method: 'POST',
      route: 'connectors/{name}/compatibility-run',
      access: 'operate',
      handler: startCompatibilityRunHandler(deps),
    },
    {
      name: 'getLastCompatibilityRun',
      method: 'GET',
      route: 'connectors/{name}/compatibility-run',
      access: 'read',
      handler: lastCompatibilityRunHandler(deps),
    },
    {
      name: 'startReconciliation',
      method: 'POST',
      route: 'connectors/{name}/reconciliations',
      access: 'operate',
      handler: startReconciliationHandler(deps),
    },
    {
      name: 'driftReport',
      method: 'GET',
      route: 'connectors/{name}/drift',
      access: 'read',
      handler: driftReportHandler(deps),
    },
    {
      name: 'restoreDrift',
      method: 'POST',
      route: 'connectors/{name}/drift/restore',
      access: 'operate',
      handler: driftRestoreHandler(deps),
    },
    {
      name: 'getJob',
      method: 'GET',
      route: 'jobs/{id}',
      access: 'read',
      handler: getJobHandler(deps),
    },
    {
      name: 'listRoles',
      method: 'GET',
      route: 'connectors/{name}/roles',
      access: 'read',
      handler: rolesHandler(deps),
    },
    {
      name: 'searchGroups',
      method: 'GET',
      route: 'connectors/{name}/groups',
      access: 'read',
      handler: groupSearchHandler(deps),
    },
    {
      name: 'getAccount',
      method: 'GET',
      route: 'connectors/{name}/accounts/{accountId}',
      access: 'read',
      handler: accountViewHandler(deps),
    },
    {
      name: 'linkAccount',
      method: 'POST',
      route: 'connectors/{name}/accounts/{accountId}/link',
      access: 'operate',
      handler: linkAccountHandler(deps),
    },
    {
      name: 'getGroupStructure',
      method: 'GET',
      route: 'connectors/{name}/groups/{id}/structure',
      access: 'read',
      handler: groupStructureHandler(deps),
    },
    {
      name: 'journal',
      method: 'GET',
      route: 'journal',
      access: 'read',
      handler: journalHandler(deps),
    },
    { name: 'me', method: 'GET', route: 'me', access: 'read', handler: meHandler() },
    {
      name: 'health',
      method: 'GET',
      route: 'health',
      access: 'read',
      handler: healthHandler(deps),
    },
    ...(deps.metricsText === undefined
      ? []
      : [
          {
            name: 'metrics',
            method: 'GET' as const,
            route: 'metrics',
            access: 'read' as const,
            handler: metricsHandler(deps.metricsText),
          },
        ]),
  ];
  return [
    ...list,
    {
      name: 'openApi',
      method: 'GET',
      route: 'openapi.json',
      access: 'read',
      handler: openApiHandler(list),
    },
  ];
}
