import type { HttpMethod } from '@azure/functions';
import type { ApiDeps } from './api-deps';
import { guardHandler, type ApiHandler } from './guard-handler';
import {
  accountViewHandler,
  groupSearchHandler,
  groupStructureHandler,
  rolesHandler,
} from './connector-reads-api';
import { lastCompatibilityRunHandler } from './compatibility-runs-api';
import { connectorStatusHandler } from './connector-status';
import { listConnectorsHandler } from './connectors-api';
import { getJobHandler, startCompatibilityRunHandler, startImportHandler } from './jobs-api';
import { journalHandler } from './journal-api';
import { openApiHandler } from './openapi';
import { getRequestHandler, submitRequestHandler } from './requests-api';

export interface ApiRoute {
  name: string;
  method: HttpMethod;
  /** Azure Functions route template, under /api. */
  route: string;
  handler: ApiHandler;
}

/** Every HTTP route: registered by functions/ in Azure and served by the local host. */
export function apiRoutes(deps: ApiDeps): ApiRoute[] {
  return routes(deps).map((route) => ({
    ...route,
    handler: guardHandler(route.name, route.handler),
  }));
}

function routes(deps: ApiDeps): ApiRoute[] {
  return [
    {
      name: 'submitRequest',
      method: 'POST',
      route: 'requests',
      handler: submitRequestHandler(deps),
    },
    { name: 'getRequest', method: 'GET', route: 'requests/{id}', handler: getRequestHandler(deps) },
    {
      name: 'listConnectors',
      method: 'GET',
      route: 'connectors',
      handler: listConnectorsHandler(deps),
    },
    {
      name: 'connectorStatus',
      method: 'POST',
      route: 'connectors/{name}/status',
      handler: connectorStatusHandler(deps),
    },
    {
      name: 'startImport',
      method: 'POST',
      route: 'connectors/{name}/imports',
      handler: startImportHandler(deps),
    },
    {
      name: 'startCompatibilityRun',
      method: 'POST',
      route: 'connectors/{name}/compatibility-run',
      handler: startCompatibilityRunHandler(deps),
    },
    {
      name: 'getLastCompatibilityRun',
      method: 'GET',
      route: 'connectors/{name}/compatibility-run',
      handler: lastCompatibilityRunHandler(deps),
    },
    { name: 'getJob', method: 'GET', route: 'jobs/{id}', handler: getJobHandler(deps) },
    {
      name: 'listRoles',
      method: 'GET',
      route: 'connectors/{name}/roles',
      handler: rolesHandler(deps),
    },
    {
      name: 'searchGroups',
      method: 'GET',
      route: 'connectors/{name}/groups',
      handler: groupSearchHandler(deps),
    },
    {
      name: 'getAccount',
      method: 'GET',
      route: 'connectors/{name}/accounts/{accountId}',
      handler: accountViewHandler(deps),
    },
    {
      name: 'getGroupStructure',
      method: 'GET',
      route: 'connectors/{name}/groups/{id}/structure',
      handler: groupStructureHandler(deps),
    },
    { name: 'journal', method: 'GET', route: 'journal', handler: journalHandler(deps) },
    { name: 'openApi', method: 'GET', route: 'openapi.json', handler: openApiHandler() },
  ];
}
