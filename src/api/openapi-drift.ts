import { z } from 'zod';
import { DRIFT_TYPES } from '../domain/drift-finding';
import { requestContextSchema } from './request-schema';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const problem = (description: string) => ({
  description,
  content: json({ $ref: '#/components/schemas/Error' }),
});
const connectorName = {
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Connector name',
};
const driftType = { type: 'string', enum: DRIFT_TYPES };

/** What a finding is about (the fields a DriftFinding and a DriftEvent share). */
const subjectProperties = {
  type: {
    ...driftType,
    description:
      'memberAddedOutside: a linked account is a direct member of a managed group the service did not assign; memberRemovedOutside: a membership the service assigned is gone; accountDeletedOutside: a linked account no longer exists; accountStateChangedOutside: enabled differs from the state the service set last; unlinkedMember: a member of a managed group that is no account the service links',
  },
  accountId: { type: 'string', description: 'The linked account (every type but unlinkedMember)' },
  targetId: { type: 'string', description: "The target's id of the account or member" },
  groupId: { type: 'string' },
  groupName: { type: 'string' },
  memberName: { type: 'string', description: "unlinkedMember: the member's name on the target" },
  expectedEnabled: { type: 'boolean', description: 'The state the service set last' },
  observedEnabled: { type: 'boolean', description: 'The state the target showed' },
  evidence: {
    type: 'array',
    items: { type: 'string' },
    description: 'The reads the finding rests on: the bulk read, then the second read',
  },
};

const counts = {
  type: 'object',
  properties: Object.fromEntries(DRIFT_TYPES.map((type) => [type, { type: 'integer' }])),
};

/** The drift report's schemas (issue 18), for the document's components. */
export const driftSchemas = {
  DriftFinding: {
    type: 'object',
    required: [
      'findingId',
      'connector',
      'type',
      'targetId',
      'status',
      'firstSeen',
      'lastConfirmed',
    ],
    properties: {
      findingId: { type: 'string' },
      connector: { type: 'string' },
      status: { enum: ['open', 'closed'] },
      ...subjectProperties,
      firstSeen: { type: 'string', format: 'date-time' },
      lastConfirmed: { type: 'string', format: 'date-time' },
      closedAt: { type: 'string', format: 'date-time' },
      closedBecause: { type: 'string' },
      firstJobId: { type: 'string' },
      lastJobId: { type: 'string' },
      closedJobId: { type: 'string' },
      restore: {
        type: 'object',
        properties: {
          requestId: { type: 'string' },
          at: { type: 'string', format: 'date-time' },
        },
        description: 'The provisioning request the last restore of this finding made',
      },
    },
  },
  DriftEvent: {
    type: 'object',
    description:
      'One message on the storage queue drift-events for every new finding (base64 of this JSON, as the Functions queue trigger reads by default). Sent at least once: findingId tells a repeated message from a new finding.',
    required: ['event', 'findingId', 'connector', 'type', 'targetId', 'firstSeen', 'jobId'],
    properties: {
      event: { const: 'drift.found/v1' },
      findingId: { type: 'string' },
      connector: { type: 'string' },
      ...subjectProperties,
      firstSeen: { type: 'string', format: 'date-time' },
      jobId: { type: 'string', description: 'The reconciliation job that found it' },
    },
  },
  ReconciliationResult: {
    type: 'object',
    description: "A reconciliation job's result (GET /jobs/{id} once it is done)",
    properties: {
      mode: { enum: ['full', 'incremental'] },
      complete: {
        type: 'boolean',
        description:
          'False when a read failed or requests kept accounts busy: see incomplete and notChecked',
      },
      incomplete: { type: 'array', items: { type: 'string' } },
      findings: { ...counts, description: 'Open findings per type once the run ended' },
      found: { ...counts, description: 'Findings this run added, per type' },
      closed: { type: 'integer' },
      unconfirmed: {
        type: 'object',
        description:
          'Shown by the first read, not by the second: not stored (an open finding: not confirmed again, its lastConfirmed kept), looked at again next run',
        properties: {
          count: { type: 'integer' },
          first: {
            type: 'array',
            items: {
              type: 'object',
              properties: { finding: { type: 'string' }, why: { type: 'string' } },
            },
          },
        },
      },
      waited: {
        type: 'object',
        description:
          'Accounts a request ran for, or ended for inside the settle window, judged after waiting for it (rounds: the waits)',
        properties: { accounts: { type: 'integer' }, rounds: { type: 'integer' } },
      },
      notChecked: {
        type: 'array',
        items: {
          type: 'object',
          properties: { account: { type: 'string' }, why: { type: 'string' } },
        },
      },
      read: {
        type: 'object',
        properties: { groups: { type: 'integer' }, accounts: { type: 'integer' } },
      },
      notices: { type: 'array', items: { type: 'string' } },
    },
  },
};

/**
 * What a filter by account matches, in the drift report, the journal and the request list:
 * the account under any spelling its connector takes for it (store/account-keys.ts).
 */
export const ACCOUNT_FILTER =
  "The account, in any spelling its connector takes for the same account (SCIM userName and Graph UPN are case-insensitive; Graph completes a bare name with its UPN domain): rows written under every spelling match, each showing the accountId as its request spelled it. Without a connector, each connector's own rule applies to its rows. Rows written before the service kept the account's key are matched by their exact spelling only.";

const filterParameters = [
  { name: 'type', in: 'query', schema: driftType },
  { name: 'accountId', in: 'query', description: ACCOUNT_FILTER, schema: { type: 'string' } },
  { name: 'groupId', in: 'query', schema: { type: 'string' } },
];

/** The reconciliation and drift routes (issue 18): fresh objects each time, as the document is built. */

/** The accounts whose restore request could not start, each with its error. */
const failedRestores = {
  type: 'array',
  description:
    'Accounts whose restore request could not start (a REQUEST_CONFLICT, storage unavailable), each with the findings it would have restored and its error; the restores listed beside them started and run',
  items: {
    type: 'object',
    properties: {
      accountId: { type: 'string' },
      findingIds: { type: 'array', items: { type: 'string' } },
      error: { $ref: '#/components/schemas/Error' },
    },
    required: ['accountId', 'findingIds', 'error'],
  },
};

export function driftPaths() {
  return {
    '/connectors/{name}/reconciliations': {
      post: {
        summary:
          'Start a reconciliation job ("Reconcile SCIM accounts" / "Reconcile Directory accounts")',
        description:
          'Reads the managed groups and the linked accounts in bulk and compares them with what the service assigned; GET /jobs/{id} shows progress and, once done, a ReconciliationResult. No body, or an empty object.',
        parameters: [connectorName],
        responses: {
          202: { description: 'Job started; Location is the job URL' },
          400: problem('A body with options, or a connector that cannot be reconciled'),
          404: problem('Unknown connector'),
        },
      },
    },
    '/connectors/{name}/drift': {
      get: {
        summary: 'The drift report: findings, open first and newest first, filtered and paged',
        description:
          'With Accept: text/csv, every finding the filter matches as CSV (limit and continuationToken do not apply; at most 100,000 findings; headers x-csv-rows and x-csv-complete as for the journal). A finding a later run no longer finds is closed, never deleted.',
        parameters: [
          connectorName,
          ...filterParameters,
          { name: 'status', in: 'query', schema: { enum: ['open', 'closed'] } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } },
          { name: 'continuationToken', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          200: {
            description: 'A page of findings (or the CSV)',
            content: {
              ...json({
                type: 'object',
                properties: {
                  connector: { type: 'string' },
                  findings: { type: 'array', items: { $ref: '#/components/schemas/DriftFinding' } },
                  continuationToken: { type: 'string' },
                },
              }),
              'text/csv': { schema: { type: 'string' } },
            },
          },
          400: problem('A malformed filter: problems names the field'),
          404: problem('Unknown connector'),
        },
      },
    },
    '/connectors/{name}/drift/restore': {
      post: {
        summary:
          'Restore what the service assigned: open findings become ordinary provisioning requests',
        description:
          "One request per account: revoke what was added outside, grant again what was removed, lock or unlock back, through the same procedure, verification and journal as any request. Named findings are all checked first: nothing starts when one is unknown (404), closed (409 DRIFT_FINDING_CLOSED) or not restorable (409 DRIFT_NOT_RESTORABLE: unlinked members, accounts deleted outside). A filter restores the open findings it matches and lists the others under skipped; one matching more than 500 open findings is refused (400), nothing started. Every finding, named or matched, is then checked against the service's record of its account as it is now: one that a later request made stale (the group granted since for a member added outside, revoked since for one removed outside, the account locked or unlocked since, a membership or state whose last write is unsettled, the account deleted or linked anew) is skipped with the reason, never restored over what the service did. Each account's restore starts on its own: those that could not start are listed under failed beside those that did.",
        parameters: [connectorName],
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            additionalProperties: false,
            properties: {
              findingIds: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 500 },
              filter: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  type: driftType,
                  accountId: { type: 'string' },
                  groupId: { type: 'string' },
                },
              },
              mode: {
                enum: ['preview'],
                description: "preview: answer each request's plan (200); nothing is started",
              },
              ...Object.fromEntries(
                Object.entries(requestContextSchema).map(([key, schema]) => [
                  key,
                  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }),
                ]),
              ),
            },
            description: 'findingIds or filter, not both',
          }),
        },
        responses: {
          202: {
            description:
              'At least one request started, or none was needed: the requests started (restores), the accounts whose restore could not start (failed) and the findings left as they are (skipped)',
            content: json({
              type: 'object',
              properties: {
                connector: { type: 'string' },
                restores: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      requestId: { type: 'string' },
                      accountId: { type: 'string' },
                      findingIds: { type: 'array', items: { type: 'string' } },
                      actions: { type: 'array', items: { type: 'object' } },
                      statusUrl: { type: 'string' },
                      alreadyRunning: {
                        type: 'boolean',
                        description:
                          'A restore of these findings asked for earlier has not ended: it is this one, and nothing new started',
                      },
                      alreadyEnded: {
                        type: 'object',
                        properties: { status: { type: 'string' } },
                        description:
                          'The same restore ran before as this request (its findings could not be marked then), which has ended with this status: nothing started now; unless it succeeded, a notice says so, and the same restore sent again starts a new request',
                      },
                      marked: {
                        type: 'boolean',
                        description:
                          'true when the findings, read back after the mark was saved, name this request; false when the request started and runs but its findings do not (another reconciliation or restore kept changing them: DRIFT_FINDING_CONTENDED, storage failed, or the read-back shows a finding gone or without the mark)',
                      },
                      notice: {
                        type: 'string',
                        description:
                          'With marked false: what failed or what the read-back showed for each finding, and that sending the same restore again marks the findings (it joins the running request)',
                      },
                    },
                  },
                },
                failed: failedRestores,
                skipped: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { findingId: { type: 'string' }, reason: { type: 'string' } },
                  },
                },
              },
            }),
          },
          200: {
            description:
              'With "mode": "preview": the plan of each restore request (RequestPlan), the target read now; nothing was written or started, no finding was marked',
            content: json({
              type: 'object',
              properties: {
                mode: { const: 'preview' },
                connector: { type: 'string' },
                restores: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      accountId: { type: 'string' },
                      findingIds: { type: 'array', items: { type: 'string' } },
                      actions: { type: 'array', items: { type: 'object' } },
                      plan: { $ref: '#/components/schemas/RequestPlan' },
                    },
                  },
                },
                skipped: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { findingId: { type: 'string' }, reason: { type: 'string' } },
                  },
                },
              },
            }),
          },
          400: problem(
            'Invalid body, or a filter matching more than 500 open findings (narrow it); nothing was started',
          ),
          404: problem('Unknown connector or finding (DRIFT_FINDING_NOT_FOUND)'),
          409: {
            description:
              'A named finding is closed or not restorable (error only); or no restore could start and the first failure is a REQUEST_CONFLICT: error, with restores (empty), failed and skipped as in 202. Another failure of every account answers its own status (503 when storage is unavailable) with the same body.',
            content: json({
              type: 'object',
              properties: {
                error: { $ref: '#/components/schemas/Error' },
                restores: { type: 'array', maxItems: 0 },
                failed: failedRestores,
                skipped: { type: 'array', items: { type: 'object' } },
              },
              required: ['error'],
            }),
          },
        },
      },
    },
  };
}
