/**
 * The OpenAPI parts of request previews (issue 14): the plan `POST /requests` answers with
 * `"mode": "preview"`, and the job it hands slow previews to.
 */

/** A request's plan: what each step would change, notice and meet; nothing written. */
export const requestPlanSchema = {
  type: 'object',
  required: ['mode', 'connector', 'accountId', 'status', 'steps', 'notices', 'readAt'],
  properties: {
    mode: { const: 'preview' },
    requestId: {
      type: 'string',
      description: "The body's requestId, shown only: a preview never takes it",
    },
    connector: { type: 'string' },
    accountId: { type: 'string' },
    requestedBy: { type: 'string' },
    reason: { type: 'string' },
    correlationId: { type: 'string' },
    status: {
      enum: ['succeeded', 'failed'],
      description: 'How the request would end, as the reads show the target now',
    },
    steps: {
      type: 'array',
      description:
        'Each step as it would end: succeeded with the changes it would make and its notices, failed with the error it would meet (later steps skipped, as in a request)',
      items: { $ref: '#/components/schemas/Step' },
    },
    notices: {
      type: 'array',
      items: { type: 'string' },
      description:
        "What the plan rests on: nothing written; reads that may lag the target's writes (Graph); a password checked and discarded; groups whose writability shows only on writing",
    },
    readAt: { type: 'string', format: 'date-time' },
  },
};

/** The answers of `POST /requests` to a preview. */
export const previewResponses = {
  200: {
    description:
      'With "mode": "preview": the plan (RequestPlan); nothing was written and nothing started. Otherwise: this requestId was submitted before with the same content, nothing started',
    content: {
      'application/json': {
        schema: {
          oneOf: [
            { $ref: '#/components/schemas/RequestPlan' },
            {
              type: 'object',
              properties: {
                requestId: { type: 'string' },
                statusUrl: { type: 'string' },
                duplicate: { const: true },
                notices: {
                  type: 'array',
                  items: { type: 'string' },
                  description:
                    'Where this body carries a password: it was not used (the request runs with the password it was first sent with)',
                },
              },
            },
          ],
        },
      },
    },
  },
  202: {
    description:
      'Started; Location is the status URL. With "mode": "preview" and slow reads: a "Request preview" job ({ mode, jobId, type, statusUrl }); GET /jobs/{id} holds the plan as its result',
  },
};
