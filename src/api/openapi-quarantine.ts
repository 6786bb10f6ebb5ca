/**
 * The OpenAPI parts of connector quarantine (issue 14): the quarantine as status and the
 * connector list show it, the release, and a held request's `hold`.
 */

const reason = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' } },
};

/** A connector's quarantine. */
export const quarantineSchema = {
  type: 'object',
  required: ['state', 'heldRequests'],
  description:
    "Quarantined: the target failed in a way that fails every request (credentials refused, token authority unreachable, the connector's failureThreshold of 5xx or connection failures in a row); its requests are held, not failed, while a probe checks the target",
  properties: {
    state: { enum: ['quarantined', 'active'] },
    since: {
      type: 'string',
      format: 'date-time',
      description: 'When the current (or last) quarantine began',
    },
    reason: { ...reason, description: 'The failure that quarantined it; no secret in the message' },
    lastError: {
      type: 'object',
      description: 'The latest failure seen since (a probe, or the reason itself)',
      properties: { ...reason.properties, at: { type: 'string', format: 'date-time' } },
    },
    probes: { type: 'integer' },
    lastProbeAt: { type: 'string', format: 'date-time' },
    nextProbeAt: {
      type: 'string',
      format: 'date-time',
      description: 'While quarantined: the next probe (intervals double up to maxProbeSeconds)',
    },
    heldRequests: { type: 'integer', description: 'Requests held now' },
    held: {
      type: 'array',
      description: 'The first 100 held requests, oldest first (status and release only)',
      items: {
        type: 'object',
        properties: {
          requestId: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
        },
      },
    },
    releasedAt: { type: 'string', format: 'date-time' },
    releasedBy: { enum: ['probe', 'operator'] },
    releasedByName: {
      type: 'string',
      description:
        'Who released it, where an operator did: a signed-in caller\'s name, or which key ("function key", "local API key"), or "command line"',
    },
  },
};

/** A request's `hold`, present while it waits for its connector or its target's throttling. */
export const requestHoldSchema = {
  type: 'object',
  description:
    "Present while the request is held. `quarantine`: its connector is quarantined; it goes on when the connector is released, and fails with CONNECTOR_QUARANTINED once held longer than the connector's quarantine.maxHoldHours. `throttling`: its target throttled a step past the connector's maxThrottleWaitSeconds; the request waits as long as the target's Retry-After asks and runs the step again at `nextCheckAt`, and the step fails with TARGET_THROTTLED once the request has waited the connector's maxThrottleHoldMinutes in all",
  required: ['cause', 'since', 'reason', 'nextCheckAt'],
  properties: {
    cause: { enum: ['quarantine', 'throttling'] },
    since: { type: 'string', format: 'date-time' },
    quarantinedSince: {
      type: 'string',
      format: 'date-time',
      description: 'when the connector was quarantined (quarantine only)',
    },
    reason,
    nextCheckAt: { type: 'string', format: 'date-time' },
  },
};

/** `POST /connectors/{name}/release`. */
export function releasePath(name: object, error: (description: string) => object) {
  return {
    post: {
      summary:
        'Release a quarantined connector: its held requests go on at their next look (within a minute; five after their first hour held)',
      parameters: [name],
      responses: {
        200: {
          description: 'released: whether this call ended a quarantine (false: there was none)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  connector: { type: 'string' },
                  released: { type: 'boolean' },
                  quarantine: { $ref: '#/components/schemas/Quarantine' },
                },
              },
            },
          },
        },
        404: error('Unknown connector'),
      },
    },
  };
}

/** `GET /connectors/{name}/quarantine`. */
export function quarantinePath(name: object, error: (description: string) => object) {
  return {
    get: {
      summary:
        "A connector's quarantine with its held requests (the first 100, oldest first), read from the service's own store: the target is not asked",
      parameters: [name],
      responses: {
        200: {
          description: 'The quarantine (state active when there is none)',
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Quarantine' } },
          },
        },
        404: error('Unknown connector'),
      },
    },
  };
}
