import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { Connector } from '../connectors/connector';
import { httpStatusOf } from '../domain/error-catalogue';
import { isProvisioningError, ProvisioningError } from '../domain/errors';
import type { ApiDeps } from './api-deps';
import { errorResponse, problem, unknownConnector } from './http-problem';

type Read = (connector: Connector, request: HttpRequest) => Promise<HttpResponseInit>;

/** Answers a read on a connector: 404 for an unknown one, failures with their code and the catalogue's status. */
function connectorRead(deps: Pick<ApiDeps, 'services'>, read: Read) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const connector = (await deps.services()).registry.get(name);
    if (connector === undefined) return unknownConnector(name);
    try {
      return await read(connector, request);
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      context.warn(`read on connector ${name} failed: ${error.code}`);
      return errorResponse(httpStatusOf(error), error.toJSON());
    }
  };
}

/** `GET /api/connectors/{name}/roles?search=`: the imported catalogue (gone roles with `includeGone=true`). */
export function rolesHandler(deps: Pick<ApiDeps, 'services'>) {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const name = request.params.name ?? '';
    const services = await deps.services();
    if (services.registry.settings(name) === undefined) return unknownConnector(name);
    const search = request.query.get('search') ?? undefined;
    const roles = await services.catalogue.list(name, {
      ...(search === undefined || search === '' ? {} : { search }),
      includeGone: request.query.get('includeGone') === 'true',
    });
    return { status: 200, jsonBody: { connector: name, roles } };
  };
}

/** `GET /api/connectors/{name}/groups?search=`: live group search on the target (SCIM `co`). */
export function groupSearchHandler(deps: Pick<ApiDeps, 'services'>) {
  return connectorRead(deps, async (connector, request) => {
    const search = request.query.get('search') ?? '';
    if (search.trim() === '') {
      return problem(400, 'REQUEST_INVALID', 'query parameter "search" is required');
    }
    return {
      status: 200,
      jsonBody: { connector: connector.name, groups: await connector.searchGroups(search) },
    };
  });
}

/**
 * `GET /api/connectors/{name}/accounts/{accountId}`: the account on the target: enabled,
 * last logon, direct memberships and, where groups nest, "Effective inherited memberships".
 */
export function accountViewHandler(deps: Pick<ApiDeps, 'services'>) {
  return connectorRead(deps, async (connector, request) => {
    const accountId = request.params.accountId ?? '';
    const account = await connector.findAccount(accountId);
    if (account === undefined) {
      return problem(
        404,
        'ACCOUNT_NOT_FOUND',
        `account "${accountId}" not found on connector "${connector.name}"`,
        {
          object: accountId,
        },
      );
    }
    const lastLogon = await connector.readLastLogon(account);
    const view: Record<string, unknown> = { connector: connector.name, account, lastLogon };
    if (connector.readInheritedMemberships !== undefined) {
      const memberships = await connector.readInheritedMemberships(account);
      view.directMemberships = memberships.direct;
      view.effectiveInheritedMemberships = memberships.inherited;
      view.notices = memberships.notices;
    } else {
      const direct = await connector.readMemberships(account, []);
      view.directMemberships = direct.groupIds.map((id) => ({
        id,
        displayName: direct.names[id] ?? id,
      }));
      view.notices = direct.notices;
    }
    return { status: 200, jsonBody: view };
  });
}

/** `GET /api/connectors/{name}/groups/{id}/structure`: nested group structure (Graph). */
export function groupStructureHandler(deps: Pick<ApiDeps, 'services'>) {
  return connectorRead(deps, async (connector, request) => {
    if (connector.readGroupStructure === undefined) {
      throw new ProvisioningError(
        'OPERATION_NOT_SUPPORTED',
        `connector "${connector.name}" has no nested groups to show`,
        { object: connector.name },
      );
    }
    const structure = await connector.readGroupStructure(request.params.id ?? '');
    return { status: 200, jsonBody: structure };
  });
}
