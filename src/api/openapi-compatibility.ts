import { SERVICE_ACTIONS } from '../domain/compatibility-result';
import { JOURNAL_CHANGES } from '../domain/journal-entry';

const setting = {
  type: 'object',
  required: ['setting', 'value'],
  properties: {
    setting: {
      type: 'string',
      description:
        'As written in the connector settings: memberValue, memberRemoveStyle, emailUpdateStyle, notFoundAnswer, baseUrl, auth.type',
    },
    value: { type: 'string' },
  },
};

const evidence = {
  type: 'object',
  description: 'One request and its answer, with every secret redacted',
  properties: {
    request: { type: 'string' },
    requestBody: { type: 'string' },
    status: { type: 'integer' },
    answer: { type: 'string' },
  },
};

/**
 * The result of a compatibility run (src/domain/compatibility-result.ts): the six points as
 * a checklist, the suggested settings and the action table; a job's `result`, and what
 * `GET /connectors/{name}/compatibility-run` answers.
 */
export const compatibilityResultSchema = {
  type: 'object',
  required: ['connector', 'at', 'verdict', 'summary', 'points', 'suggestedSettings', 'actions'],
  properties: {
    connector: { type: 'string' },
    at: { type: 'string', format: 'date-time', description: 'When the run ended' },
    jobId: { type: 'string' },
    verdict: {
      enum: ['fits', 'fits with the suggested settings', 'does not fit', 'could not tell'],
    },
    summary: { type: 'string' },
    points: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          number: { type: 'integer', minimum: 1, maximum: 6 },
          title: { type: 'string' },
          outcome: {
            enum: ['fits', 'does not fit', 'could not tell'],
            description: 'As configured; fits only when every part of the point was seen to work',
          },
          reason: { type: 'string' },
          advice: {
            type: 'string',
            description: 'What to do, when it does not fit or could not be told',
          },
          fitsWith: {
            type: 'array',
            items: setting,
            description: 'Settings the run saw it fit with',
          },
          checks: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                aspect: { type: 'string' },
                holds: {
                  type: ['boolean', 'null'],
                  description: 'Absent: not seen (the note says why)',
                },
                note: { type: 'string' },
                evidence: { type: 'array', items: evidence },
                withSetting: setting,
              },
            },
          },
        },
      },
    },
    suggestedSettings: {
      type: 'array',
      items: {
        ...setting,
        properties: {
          ...setting.properties,
          point: { type: 'integer' },
          tried: {
            type: 'boolean',
            description: 'false: what the server asks for, which the run could not try',
          },
          reason: { type: 'string' },
        },
      },
    },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          action: { enum: [...SERVICE_ACTIONS] },
          outcome: { enum: ['works', 'will fail', 'untested'] },
          reason: { type: 'string' },
          point: { type: 'integer' },
          needs: { type: 'array', items: setting },
        },
      },
    },
    judgedSettings: { type: 'object', additionalProperties: { type: 'string' } },
    userGroups: {
      type: 'object',
      description:
        'SCIM: whether the user\'s groups attribute (RFC 7643 §4.1.2) listed the membership the run made and read back, and dropped it after the revoke. reliedOn: the run\'s membership reads could not use the members filter, so verdicts on groups whose member list does not show the account lean on it; where it is then incomplete or stale, the summary says such grants and revokes end "could not tell"',
      required: ['outcome', 'note', 'evidence'],
      properties: {
        outcome: { enum: ['complete', 'incomplete', 'stale', 'refused', 'not checked'] },
        note: { type: 'string' },
        evidence: { type: 'array', items: evidence },
        reliedOn: { type: 'boolean' },
      },
    },
    changes: {
      type: 'array',
      description:
        'The effective changes the run made on the target (its test account), in order; the journal records them under the run\'s job id (requestedBy "compatibility run")',
      items: {
        type: 'object',
        required: ['step', 'accountId', 'change', 'at'],
        properties: {
          step: { type: 'integer' },
          accountId: { type: 'string' },
          change: { enum: [...JOURNAL_CHANGES] },
          groupId: { type: 'string' },
          groupName: { type: 'string' },
          at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
