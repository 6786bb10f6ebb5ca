import { z } from 'zod';
import { ERROR_CATALOGUE, ERROR_CODES } from '../domain/error-catalogue';
import { JOURNAL_CHANGES } from '../domain/journal-entry';
import { compatibilityResultSchema } from './openapi-compatibility';
import { ACCOUNT_FILTER, driftPaths, driftSchemas } from './openapi-drift';
import { credentialSchema, operatingPaths } from './openapi-health';
import { roleFor, type Access } from './caller';
import { previewResponses, requestPlanSchema } from './openapi-preview';
import {
  quarantinePath,
  quarantineSchema,
  releasePath,
  requestHoldSchema,
} from './openapi-quarantine';
import { provisioningRequestSchema } from './request-schema';
import { endGroupsCutPath } from './openapi-user-groups';
import { linkAccountPath } from './openapi-account-link';

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: ERROR_CODES,
          description:
            'Stable error code: match on this, not on the message. The closed set, each with ' +
            'the status it comes with and what it means:\n' +
            ERROR_CODES.map(
              (code) =>
                `- ${code} (${ERROR_CATALOGUE[code].status}): ${ERROR_CATALOGUE[code].meaning}`,
            ).join('\n'),
        },
        message: { type: 'string' },
        object: { type: 'string' },
        connector: { type: 'string', description: 'ATTRIBUTE_NOT_MAPPED: the connector' },
        attributes: {
          type: 'array',
          items: { type: 'string' },
          description: "ATTRIBUTE_NOT_MAPPED: the attributes the connector's Mapping does not name",
        },
        problems: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
        details: { type: 'object' },
      },
    },
  },
};

const stepSchema = {
  type: 'object',
  properties: {
    index: { type: 'integer' },
    action: { type: 'string' },
    groups: { type: 'array', items: { type: 'string' } },
    state: { enum: ['pending', 'running', 'succeeded', 'failed', 'skipped'] },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          change: { type: 'string' },
          groupId: { type: 'string' },
          groupName: { type: 'string' },
        },
      },
    },
    notices: { type: 'array', items: { type: 'string' } },
    error: {
      type: 'object',
      description:
        'MEMBERSHIP_MISMATCH carries details.missing and details.unexpected ({id, name}[])',
    },
  },
};

const connectorSchema = {
  type: 'object',
  required: ['name', 'kind', 'catalogueJobType', 'capabilities', 'features'],
  properties: {
    name: { type: 'string' },
    kind: { type: 'string', description: 'scim, graph, or a registered kind' },
    catalogueJobType: { type: 'string' },
    reconciliationJobType: {
      type: 'string',
      description:
        'The job POST /connectors/{name}/reconciliations starts; absent where the connector cannot be reconciled',
    },
    capabilities: {
      type: 'object',
      properties: {
        visibilityWindowMs: {
          type: 'integer',
          description: 'How long writes may take to show in reads; re-reads run this long',
        },
        membershipReadScope: { enum: ['all', 'named'] },
        membershipWriteBatchSize: { type: 'integer' },
        membershipWritesSayIfInPlace: {
          type: 'boolean',
          description:
            'A membership write says whether it was in place already: no read before the writes for an account the request just created',
        },
      },
    },
    features: {
      type: 'object',
      properties: {
        compatibilityRun: { type: 'boolean' },
        groupStructure: { type: 'boolean' },
        inheritedMemberships: { type: 'boolean' },
      },
    },
    quarantine: { $ref: '#/components/schemas/Quarantine' },
  },
};

const groupLinkSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    displayName: { type: 'string' },
    notReadable: {
      type: 'string',
      description:
        'Set when the app may not read the group (Graph returned only its type and id): why. displayName is then the id.',
    },
  },
};

const statusSchema = {
  type: 'object',
  properties: {
    connector: { type: 'string' },
    kind: { type: 'string' },
    ok: { type: 'boolean', description: 'Graph: a token was obtained, nothing more (spec)' },
    summary: { type: 'string' },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Graph: a task of the permission table' },
          outcome: {
            enum: ['ok', 'failed', 'granted', 'missing', 'not verified'],
            description: 'granted only on proof; not verified where nothing the service saw tells',
          },
          evidence: {
            enum: ['probe', 'token'],
            description: "probe: a read just made (proof); token: the token's roles claim (a hint)",
          },
          detail: { type: 'string' },
        },
      },
    },
    error: {
      type: 'object',
      description:
        'When the check failed on a code of the catalogue (GRAPH_CLIENT_SECRET_EXPIRED, GRAPH_TOKEN_FAILED, ...)',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
    credential: {
      ...credentialSchema,
      description: "Graph: the client secret's expiry and the days left, where it is known",
    },
    lastCompatibilityRun: {
      type: ['object', 'null'],
      description:
        'Kinds with a compatibility run: the last one in brief (null: none yet); GET /connectors/{name}/compatibility-run has it whole',
      properties: {
        at: { type: 'string', format: 'date-time' },
        verdict: { type: 'string' },
        summary: { type: 'string' },
        jobId: { type: 'string' },
      },
    },
    quarantine: { $ref: '#/components/schemas/Quarantine' },
  },
};

const contextProperties = {
  requestedBy: { type: 'string', description: 'Who asked, as the request named them' },
  reason: { type: 'string', description: 'Why, as the request said' },
  correlationId: {
    type: 'string',
    description: "The governance workflow's id for the case (ticket, approval)",
  },
  submittedBy: {
    type: 'string',
    description:
      'Who the service saw submit the request, whatever requestedBy says: the signed-in ' +
      'principal\'s name, "function key" (Azure) or "local API key" (the local host). Set by the ' +
      'service, never by the caller; absent where nobody was authenticated (the bulk queue, the ' +
      'command line) and in records made before it was kept',
  },
};

const journalEntrySchema = {
  type: 'object',
  required: ['key', 'connector', 'accountId', 'requestId', 'step', 'change', 'at'],
  properties: {
    key: { type: 'string', description: 'Stable per request, step and change' },
    connector: { type: 'string' },
    accountId: { type: 'string' },
    requestId: { type: 'string' },
    step: { type: 'integer' },
    change: { enum: JOURNAL_CHANGES },
    groupId: { type: 'string' },
    groupName: { type: 'string' },
    ...contextProperties,
    at: {
      type: 'string',
      format: 'date-time',
      description: 'When the step that made the change ended',
    },
    foundBy: {
      type: 'string',
      description:
        "Only on a change whose answer was lost and that its own step could not tell was applied: what found it in place later (a later request's read or write answer); the entry is still the request's that sent it",
    },
    foundAt: {
      type: 'string',
      format: 'date-time',
      description: 'When foundBy found it',
    },
    recordedAt: {
      type: 'string',
      format: 'date-time',
      description:
        'When the entry was written to the journal (its row last written, to the millisecond): at or after at, up to a step later when its commit was carried into the next step',
    },
  },
};

const JOURNAL_FILTERS: Record<string, string> = {
  connector: 'Connector name',
  accountId: ACCOUNT_FILTER,
  requestId: 'Request id (exact)',
  correlationId: "The governance workflow's case id the requests carried (exact)",
  requestedBy: 'Who asked, as the requests named them (exact)',
  from: 'ISO 8601 time of the change (at), inclusive',
  to: 'ISO 8601 time of the change (at), exclusive',
  recordedFrom:
    "ISO 8601 time the entry was written (recordedAt), inclusive: to export the journal as it grows, pass the previous answer's recordedTo; entries written late (a carried commit) are found, never passed over",
  recordedTo:
    "ISO 8601 time the entry was written, exclusive; never later than a minute before now (the answer's recordedTo). Required with continuationToken when recordedFrom is given: the first page's recordedTo",
  limit: 'Page size, 1-1000 (default 100)',
  continuationToken: "The previous page's continuationToken",
};

const json = (schema: unknown) => ({ 'application/json': { schema } });
const error = (description: string) => ({
  description,
  content: json({ $ref: '#/components/schemas/Error' }),
});
const name = {
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Connector name',
};

const PATH_SEGMENT = 'a path segment is not percent-encoded UTF-8 (PATH_SEGMENT_INVALID)';

/** Every route answers 400 PATH_SEGMENT_INVALID before it runs (path-segments.ts). */
function withPathSegmentCheck<T extends Record<string, Record<string, { responses: object }>>>(
  paths: T,
): T {
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const responses = operation.responses as Record<string, { description: string }>;
      const existing = responses['400'];
      responses['400'] =
        existing === undefined
          ? error(`Invalid path: ${PATH_SEGMENT}`)
          : { ...existing, description: `${existing.description}; or ${PATH_SEGMENT}` };
    }
  }
  return paths;
}

/** An operation of the API and what it lets its caller do (src/api/routes.ts). */
export interface DocumentedOperation {
  method: string;
  /** The route template under /api, e.g. `requests/{id}`. */
  route: string;
  access: Access;
}

/**
 * `GET /api/openapi.json`: the inbound API (DESIGN: Inbound API), OpenAPI 3.1, each
 * operation marked with the app role a signed-in caller needs for it (`x-app-role`).
 */
export function openApiDocument(
  operations: readonly DocumentedOperation[] = [],
): Record<string, unknown> {
  const document = describeApi();
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const { method, route, access } of operations) {
    const operation = paths[`/${route}`]?.[method.toLowerCase()];
    if (operation !== undefined) operation['x-app-role'] = roleFor(access);
  }
  return document;
}

function describeApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Provisioning service',
      version: '0.1.0',
      description:
        'Accounts and group memberships on SCIM 2.0 applications and Entra ID (Microsoft Graph v1.0). ' +
        'Every call needs a function key (header x-functions-key or query parameter code) at /api/<path>, ' +
        'or a caller signed in with App Service Authentication (Entra ID) at /api/signed-in/<path>: ' +
        'there the app role Provisioning.Reader allows the reads and the status check, and ' +
        'Provisioning.Operator also submitting requests (and previews), imports, compatibility runs, ' +
        'reconciliations and restores, and releasing a quarantined connector ' +
        '(401 UNAUTHORIZED without a sign-in, 403 FORBIDDEN without the role; x-app-role names it per operation).',
    },
    servers: [
      { url: '/api', description: 'with a function key' },
      { url: '/api/signed-in', description: 'signed in with App Service Authentication' },
    ],
    security: [
      { functionKeyHeader: [] },
      { functionKeyQuery: [] },
      { appServiceAuthentication: [] },
    ],
    components: {
      securitySchemes: {
        functionKeyHeader: { type: 'apiKey', in: 'header', name: 'x-functions-key' },
        functionKeyQuery: { type: 'apiKey', in: 'query', name: 'code' },
        appServiceAuthentication: {
          type: 'openIdConnect',
          openIdConnectUrl:
            'https://login.microsoftonline.com/{tenant}/v2.0/.well-known/openid-configuration',
          description:
            'App Service Authentication with Entra ID: a browser signs in at /.auth/login/aad; an app sends a bearer token for the app registration. The roles claim carries Provisioning.Reader or Provisioning.Operator.',
        },
      },
      schemas: {
        ProvisioningRequest: z.toJSONSchema(provisioningRequestSchema, {
          io: 'input',
          unrepresentable: 'any',
        }),
        Step: stepSchema,
        RequestPlan: requestPlanSchema,
        Quarantine: quarantineSchema,
        StatusResult: statusSchema,
        GroupLink: groupLinkSchema,
        JournalEntry: journalEntrySchema,
        Error: errorSchema,
        Connector: connectorSchema,
        CompatibilityResult: compatibilityResultSchema,
        ...driftSchemas,
      },
    },
    paths: withPathSegmentCheck({
      ...driftPaths(),
      ...operatingPaths(),
      '/requests': {
        get: {
          summary: 'Provisioning requests, newest first, filtered and paged',
          description:
            'pending and running are live states; a page may hold fewer than limit requests and still carry a continuationToken: read on while there is one.',
          parameters: [
            { name: 'connector', in: 'query', schema: { type: 'string' } },
            {
              name: 'accountId',
              in: 'query',
              description: ACCOUNT_FILTER,
              schema: { type: 'string' },
            },
            {
              name: 'status',
              in: 'query',
              schema: { enum: ['pending', 'running', 'succeeded', 'failed'] },
            },
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
            },
            { name: 'continuationToken', in: 'query', schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'A page of requests',
              content: json({
                type: 'object',
                properties: {
                  requests: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        requestId: { type: 'string' },
                        connector: { type: 'string' },
                        accountId: { type: 'string' },
                        actions: { type: 'array', items: { type: 'string' } },
                        status: { enum: ['pending', 'running', 'succeeded', 'failed'] },
                        source: { enum: ['http', 'queue', 'cli'] },
                        receivedAt: { type: 'string', format: 'date-time' },
                        finishedAt: { type: 'string', format: 'date-time' },
                        ...contextProperties,
                      },
                    },
                  },
                  continuationToken: { type: 'string' },
                },
              }),
            },
            400: error('Invalid query'),
          },
        },
        post: {
          summary:
            'Submit a provisioning request (idempotent on requestId), or with "mode": "preview" get its plan without writing anything',
          requestBody: {
            required: true,
            content: json({ $ref: '#/components/schemas/ProvisioningRequest' }),
          },
          responses: {
            ...previewResponses,
            400: error(
              'Invalid request, nothing stored or started: REQUEST_INVALID with every problem listed ' +
                '(also attributes named like a secret: password, secret, token, credential, in any ' +
                'case, whatever the Mapping says; a password goes in `password`), or ' +
                "ATTRIBUTE_NOT_MAPPED: `account.attributes` names attributes the connector's Mapping " +
                'does not name (it would drop them); `connector` and `attributes` name them, ' +
                '`problems` has one entry each',
            ),
            404: error('Unknown connector'),
            409: error(
              'requestId already used for a different request (the same request in another ' +
                'spelling, e.g. a group as "Sales" or {"name": "Sales"}, attributes in another ' +
                'order, is a duplicate: 200)',
            ),
            413: error('Body too large'),
          },
        },
      },
      '/requests/{id}': {
        get: {
          summary: 'The state of a request and of each of its steps',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: {
              description: 'The request',
              content: json({
                type: 'object',
                properties: {
                  requestId: { type: 'string' },
                  connector: { type: 'string' },
                  accountId: { type: 'string' },
                  ...contextProperties,
                  status: { enum: ['pending', 'running', 'succeeded', 'failed'] },
                  notices: {
                    type: 'array',
                    items: { type: 'string' },
                    description:
                      "About the request as a whole: the connector's credential expires within 30 days, or has expired",
                  },
                  steps: { type: 'array', items: { $ref: '#/components/schemas/Step' } },
                  hold: requestHoldSchema,
                },
              }),
            },
            404: error('No such request'),
          },
        },
      },
      '/connectors': {
        get: {
          summary: 'The configured connectors, each with its kind and what it can do',
          responses: {
            200: {
              description: 'The connectors',
              content: json({
                type: 'object',
                properties: {
                  connectors: { type: 'array', items: { $ref: '#/components/schemas/Connector' } },
                },
              }),
            },
          },
        },
      },
      '/me': {
        get: {
          summary: 'Who the API takes the caller for, and the app roles that gives',
          responses: {
            200: {
              description:
                'kind "function key" (every role) or "principal" with name, identityProvider and roles',
            },
          },
        },
      },
      '/connectors/{name}/status': {
        post: {
          summary:
            "Check status (Graph: a token was obtained, and the permission report per task; ?probe=true adds the probe reads that prove read permissions), and the connector's quarantine",
          parameters: [
            name,
            { name: 'probe', in: 'query', schema: { type: 'boolean', default: false } },
          ],
          responses: {
            200: {
              description:
                'The check ran (ok says whether it passed); for kinds with a compatibility run, lastCompatibilityRun',
              content: json({ $ref: '#/components/schemas/StatusResult' }),
            },
            404: error('Unknown connector'),
            502: error('Target failed'),
          },
        },
      },
      '/connectors/{name}/quarantine': quarantinePath(name, error),
      '/connectors/{name}/release': releasePath(name, error),
      '/connectors/{name}/user-groups/end-cut': endGroupsCutPath(name, error),
      '/connectors/{name}/imports': {
        post: {
          summary:
            'Start a catalogue import job ("Import SCIM groups" / "Import Directory Groups")',
          parameters: [name],
          requestBody: {
            content: json({
              type: 'object',
              additionalProperties: false,
              properties: {
                overwriteExisting: {
                  type: 'boolean',
                  default: false,
                  description: '"Overwrite existing roles": renamed groups rename their roles',
                },
                incremental: {
                  type: 'boolean',
                  default: false,
                  description:
                    'Only the changes since the last import, where the connector can tell them (Graph: groups/delta); otherwise, or when the delta link expired, the whole catalogue with a notice in the result',
                },
              },
            }),
          },
          responses: {
            202: {
              description:
                'Job started; Location is the job URL. Its result (GET /jobs/{id}): mode, groups, added, renamed, renameSkipped, returned, unchanged, markedGone (roles whose group the target answered 404 to a read by id, or reported removed), foundById (groups the pages did not list that a read by id found: kept), goneUnconfirmed (roles not listed whose read by id failed: left as they were) and notices naming them',
            },
            404: error('Unknown connector'),
            409: error(
              'IMPORT_ALREADY_RUNNING: an import of this connector is running (one at a time); the error names the connector (object) and the running job (runningJobId, statusUrl; also Location); nothing was started',
            ),
          },
        },
      },
      '/connectors/{name}/compatibility-run': {
        post: {
          summary: 'Start the compatibility run of a SCIM connector (test account, cleaned up)',
          parameters: [name],
          requestBody: {
            content: json({
              type: 'object',
              properties: {
                groupName: {
                  type: 'string',
                  description:
                    "The group to grant and revoke; default the catalogue's first, else a temporary one",
                },
              },
            }),
          },
          responses: {
            202: {
              description:
                'Job started; its result (GET /jobs/{id}) is a CompatibilityResult with the run itself',
            },
            400: error('Not a SCIM connector, or invalid options'),
            404: error('Unknown connector'),
          },
        },
        get: {
          summary: "The connector's last compatibility run (a new run replaces it)",
          parameters: [name],
          responses: {
            200: {
              description: 'The last run',
              content: json({ $ref: '#/components/schemas/CompatibilityResult' }),
            },
            400: error('Not a SCIM connector'),
            404: error('Unknown connector, or no run yet'),
          },
        },
      },
      '/jobs/{id}': {
        get: {
          summary: 'A job and, once done, its result',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          ],
          responses: { 200: { description: 'The job' }, 404: error('No such job') },
        },
      },
      '/connectors/{name}/roles': {
        get: {
          summary: 'The imported role catalogue',
          parameters: [
            name,
            { name: 'search', in: 'query', schema: { type: 'string' } },
            { name: 'includeGone', in: 'query', schema: { type: 'boolean' } },
          ],
          responses: { 200: { description: 'Roles' }, 404: error('Unknown connector') },
        },
      },
      '/connectors/{name}/groups': {
        get: {
          summary: 'Live group search on the target',
          parameters: [
            name,
            { name: 'search', in: 'query', required: true, schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'Groups' },
            400: error('No search text'),
            404: error('Unknown connector'),
          },
        },
      },
      '/connectors/{name}/accounts/{accountId}': {
        get: {
          summary:
            'The account on the target: enabled, last logon, memberships (Graph: effective inherited)',
          parameters: [
            name,
            { name: 'accountId', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description:
                'The account: enabled (absent when the target shows no state, e.g. a SCIM user without `active`), lastLogon ({ status: found | none found | not available, value, detail saying why }), directMemberships and (Graph) effectiveInheritedMemberships with notices',
              content: json({
                type: 'object',
                properties: {
                  lastLogon: { type: 'object' },
                  directMemberships: {
                    type: 'array',
                    items: { $ref: '#/components/schemas/GroupLink' },
                  },
                  notices: { type: 'array' },
                },
              }),
            },
            404: error('Unknown connector or account'),
          },
        },
      },
      '/connectors/{name}/accounts/{accountId}/link': linkAccountPath(name, error),
      '/connectors/{name}/groups/{id}/structure': {
        get: {
          summary: 'Nested group structure (Graph): up to 500 groups and 32 levels',
          parameters: [
            name,
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description:
                'The structure: groups (a GroupLink each, with depth, path and memberCount: its direct members of every kind, where the walk read them; not for groups beyond the depth limit), edges, notices, complete',
            },
            400: error('No nested groups'),
            404: error('Unknown connector, or no group has this id (GROUP_NOT_FOUND)'),
          },
        },
      },
      '/journal': {
        get: {
          summary: 'Effective changes with the context of their requests, filtered and paged',
          description:
            "With Accept: text/csv, every entry the filter matches as CSV (limit and continuationToken do not apply; at most 100,000 entries). Header x-csv-rows gives the entries in it, x-csv-complete false says the limit cut it short, and with recordedFrom or recordedTo, x-journal-recorded-to the horizon. Paging by time: a page by at (from, to) can miss entries written after it with an earlier at (a step's commit carried into the next step's); a query by recordedFrom/recordedTo answers recordedTo, and every matching entry written before it is in that query's pages: the next query passes it as recordedFrom. An entry written again (a retried commit) may show again with a later recordedAt, under the same key.",
          parameters: Object.entries(JOURNAL_FILTERS).map(([q, description]) => ({
            name: q,
            in: 'query',
            description,
            schema: { type: q === 'limit' ? 'integer' : 'string' },
          })),
          responses: {
            200: {
              description: 'A page of journal entries (JSON), or every matching entry (CSV)',
              content: {
                ...json({
                  type: 'object',
                  properties: {
                    entries: {
                      type: 'array',
                      items: { $ref: '#/components/schemas/JournalEntry' },
                    },
                    continuationToken: { type: 'string' },
                    recordedTo: {
                      type: 'string',
                      format: 'date-time',
                      description:
                        'With recordedFrom or recordedTo: every matching entry written before this time is in the pages of this query; pass it as recordedTo with continuationToken, and as recordedFrom in the next query',
                    },
                  },
                }),
                'text/csv': { schema: { type: 'string' } },
              },
            },
            400: error('Invalid query'),
          },
        },
      },
    }),
  };
}

export function openApiHandler(operations: readonly DocumentedOperation[]) {
  const document = openApiDocument(operations);
  return async () => ({ status: 200, jsonBody: document });
}
