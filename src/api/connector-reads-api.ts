import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { Connector } from '../connectors/connector';
import { httpStatusOf } from '../domain/error-catalogue';
import { isProvisioningError, ProvisioningError } from '../domain/errors';
import type { ApiDeps } from './api-deps';
import type { RoleCatalogueStore } from '../store/role-catalogue';
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

/** How many catalogue groups an account view reads where memberships are read group by group. */
const NAMED_READ_LIMIT = 200;

/**
 * `GET /api/connectors/{name}/accounts/{accountId}`: the account on the target: enabled,
 * last logon, direct memberships and, where groups nest, "Effective inherited memberships".
 * Where the target reads memberships only among named groups (SCIM), the direct memberships
 * are read among the role catalogue's groups, and a notice says so.
 */
export function accountViewHandler(deps: Pick<ApiDeps, 'services'>) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const services = await deps.services();
    return connectorRead(deps, async (connector) => {
      const accountId = request.params.accountId ?? '';
      const account = await connector.findAccount(accountId);
      if (account === undefined) {
        return problem(
          404,
          'ACCOUNT_NOT_FOUND',
          `account "${accountId}" not found on connector "${connector.name}"`,
          { object: accountId },
        );
      }
      const lastLogon = await connector.readLastLogon(account);
      const view: Record<string, unknown> = { connector: connector.name, account, lastLogon };
      if (connector.readInheritedMemberships !== undefined) {
        const memberships = await connector.readInheritedMemberships(account);
        view.directMemberships = memberships.direct;
        view.effectiveInheritedMemberships = memberships.inherited;
        view.notices = memberships.notices;
        return { status: 200, jsonBody: view };
      }
      const { groupIds, notices } = await groupsToRead(services.catalogue, connector);
      const direct = await connector.readMemberships(account, groupIds);
      view.directMemberships = direct.groupIds.map((id) => ({
        id,
        displayName: direct.names[id] ?? id,
      }));
      view.notices = [...notices, ...direct.notices];
      return { status: 200, jsonBody: view };
    })(request, context);
  };
}

/** The groups whose membership an account view asks about: all, or the catalogue's. */
async function groupsToRead(
  catalogue: RoleCatalogueStore,
  connector: Connector,
): Promise<{ groupIds: string[]; notices: string[] }> {
  if (connector.capabilities.membershipReadScope === 'all') return { groupIds: [], notices: [] };
  const roles = await catalogue.list(connector.name);
  if (roles.length === 0) {
    return {
      groupIds: [],
      notices: [
        `direct memberships are read among the role catalogue's groups on this target, and the catalogue of connector "${connector.name}" is empty: import it first`,
      ],
    };
  }
  const read = roles.slice(0, NAMED_READ_LIMIT);
  return {
    groupIds: read.map((role) => role.groupId),
    notices: [
      roles.length > NAMED_READ_LIMIT
        ? `direct memberships are read among the role catalogue's groups on this target: the first ${NAMED_READ_LIMIT} of ${roles.length} were read`
        : `direct memberships are read among the role catalogue's ${roles.length} groups on this target; groups outside the catalogue are not shown`,
    ],
  };
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
