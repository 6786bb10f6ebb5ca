/** The OpenAPI description of the operating routes: health, liveness, metrics (issue 19). */
import { userGroupsVerdictSchema } from './openapi-user-groups';

const partSchema = {
  type: 'object',
  required: ['status', 'detail'],
  properties: {
    status: { enum: ['ok', 'failing', 'not checked'] },
    detail: { type: 'string' },
    error: { type: 'string', description: 'The error code it failed with' },
  },
};

const errorBrief = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' } },
};

/** A credential's expiry, as the status check and the health report show it. */
export const credentialSchema = {
  type: 'object',
  required: ['expiresOn', 'source', 'daysLeft', 'expired'],
  properties: {
    expiresOn: { type: 'string', format: 'date-time' },
    source: {
      enum: ['secret store', 'setting'],
      description:
        "secret store: the secret's expiry in Key Vault; setting: the connector's clientSecretExpiresOn (the earlier counts)",
    },
    daysLeft: {
      type: 'integer',
      description: 'Whole days left, rounded down; negative once expired',
    },
    expired: { type: 'boolean' },
  },
};

const healthReportSchema = {
  type: 'object',
  required: ['status', 'reasons', 'checkedAt', 'storage', 'secretStore', 'connectors'],
  properties: {
    status: {
      enum: ['ok', 'degraded', 'failing'],
      description:
        'failing: storage fails; degraded: the secret store fails, a last status check or import failed, or a credential expired',
    },
    reasons: { type: 'array', items: { type: 'string' } },
    checkedAt: { type: 'string', format: 'date-time' },
    storage: partSchema,
    secretStore: { ...partSchema, description: 'Key Vault in Azure, read for the credentials' },
    connectors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'kind', 'expiringCredential'],
        properties: {
          name: { type: 'string' },
          kind: { type: 'string' },
          expiringCredential: {
            type: 'boolean',
            description:
              'It keeps a credential that expires (Graph: the client secret); credential is its expiry where known',
          },
          credential: credentialSchema,
          quarantine: {
            type: 'object',
            description:
              'Its quarantine (GET /connectors/{name}/quarantine has the probes and the held requests); absent: never quarantined',
            required: ['state', 'heldRequests'],
            properties: {
              state: { enum: ['quarantined', 'active'] },
              since: { type: 'string', format: 'date-time' },
              reason: errorBrief,
              heldRequests: { type: 'integer' },
              nextProbeAt: { type: 'string', format: 'date-time' },
              releasedAt: { type: 'string', format: 'date-time' },
              releasedBy: { enum: ['probe', 'operator'] },
              releasedByName: {
                type: 'string',
                description:
                  "Who released the last quarantine, where an operator did: a signed-in caller's name, or which key",
              },
            },
          },
          lastStatusCheck: {
            type: 'object',
            description: 'The last POST /connectors/{name}/status; absent: none yet',
            properties: {
              at: { type: 'string', format: 'date-time' },
              ok: { type: 'boolean' },
              summary: { type: 'string' },
              error: errorBrief,
            },
          },
          lastReconciliation: {
            type: 'object',
            description:
              "The bulk pass of the last reconciliation (the job's result has the rest); absent: none yet",
            properties: {
              at: { type: 'string', format: 'date-time' },
              jobId: { type: 'string' },
              ok: { type: 'boolean' },
              mode: { enum: ['full', 'incremental'] },
              found: { type: 'integer', description: 'Findings it added' },
              open: { type: 'integer', description: 'Findings open once it ended' },
              incomplete: { type: 'integer', description: 'Reads that failed' },
              waiting: {
                type: 'integer',
                description: 'Accounts a request kept busy, judged later by the same job',
              },
              error: errorBrief,
            },
          },
          userGroups: userGroupsVerdictSchema,
          lastImport: {
            type: 'object',
            description: 'The last catalogue import; absent: none yet',
            properties: {
              at: { type: 'string', format: 'date-time' },
              jobId: { type: 'string' },
              ok: { type: 'boolean' },
              mode: { enum: ['full', 'incremental'] },
              groups: { type: 'integer' },
              error: errorBrief,
            },
          },
        },
      },
    },
  },
};

/** A fresh copy each time: the document builder adds the path-segment answer to each operation. */
export function operatingPaths() {
  return {
    '/health': {
      get: {
        summary:
          "Health: storage, the secret store and each connector's last known state (quarantine, status check, import, reconciliation, credential expiry); no secret",
        responses: {
          200: {
            description: 'The report, whatever its status',
            content: { 'application/json': { schema: healthReportSchema } },
          },
        },
      },
    },
    '/health/live': {
      get: {
        summary: 'Liveness, open to anyone: the process answers; it reveals nothing else',
        security: [],
        responses: {
          200: {
            description: '{ "status": "alive" }',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { status: { const: 'alive' } } },
              },
            },
          },
        },
      },
    },
    '/metrics': {
      get: {
        summary:
          'The local host only: every metric of the contract in the Prometheus text format (in Azure they go to Application Insights)',
        responses: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
  };
}
