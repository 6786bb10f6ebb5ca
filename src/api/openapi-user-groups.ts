/**
 * The OpenAPI text of a SCIM connector's kept verdict on its server's user groups attribute
 * (the health report's `userGroups`) and of the operator's end of a cut.
 */

/** `userGroups` in the health report. */
export const userGroupsVerdictSchema = {
  type: 'object',
  description:
    "SCIM: what is known of the server's user groups attribute, for every worker. cut: it was seen to leave out a group the account is in (by a read, or a compatibility run), and its silence is never taken for a non-membership; complete: a compatibility run found it complete, which ends an earlier cut a run recorded, or an operator ended a cut on such a run (POST /api/connectors/{name}/user-groups/end-cut). Absent: nothing known",
  properties: {
    verdict: { enum: ['cut', 'complete'] },
    why: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    by: { enum: ['connector', 'compatibility run', 'operator'] },
    jobId: { type: 'string' },
    byName: {
      type: 'string',
      description: "operator: who ended the cut (a signed-in caller's name, or which key)",
    },
    endsCutOf: {
      type: 'string',
      format: 'date-time',
      description: 'operator: when the cut it ended was seen',
    },
    endedAt: { type: 'string', format: 'date-time', description: 'operator: when' },
  },
};

/** `POST /connectors/{name}/user-groups/end-cut`. */
export function endGroupsCutPath(name: object, error: (description: string) => object) {
  return {
    post: {
      summary:
        "SCIM: end the cut kept for the server's user groups attribute (its silence is not believed for a non-membership) once the server is mended: only on the connector's last compatibility run, when it found the attribute complete after the cut was seen. Who ended it, why and on which run are kept",
      parameters: [name],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['reason'],
              properties: {
                reason: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 300,
                  description: "Why (a vendor's fix, a ticket): kept with the verdict",
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description:
            'ended: whether this call ended a cut (false: none was kept); the verdict kept now',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  connector: { type: 'string' },
                  ended: { type: 'boolean' },
                  note: { type: 'string' },
                  userGroups: userGroupsVerdictSchema,
                },
              },
            },
          },
        },
        400: error('Not a SCIM connector, or no reason given'),
        404: error('Unknown connector'),
        409: error('No compatibility run found the attribute complete after the cut'),
      },
    },
  };
}
