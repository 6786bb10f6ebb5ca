/** The actions of a provisioning request (DESIGN: Inbound API), in the order the form offers them. */
export const ACTIONS = [
  'create',
  'update',
  'lock',
  'unlock',
  'setPassword',
  'delete',
  'grant',
  'revoke',
  'setMemberships',
] as const;
export type Action = (typeof ACTIONS)[number];

export const MEMBERSHIP_ACTIONS: readonly Action[] = ['grant', 'revoke', 'setMemberships'];

export interface DraftAction {
  /** Stable across moves, for the form's own bookkeeping. */
  key: number;
  type: Action;
  groups: string[];
}

/** What the form holds, the password aside: it is never part of anything kept or shown. */
export interface RequestDraft {
  connector: string;
  requestId: string;
  /** Who asked, why, and the case in the governance workflow (journaled with every change). */
  requestedBy: string;
  reason: string;
  correlationId: string;
  accountId: string;
  displayName: string;
  givenName: string;
  familyName: string;
  email: string;
  /** Further attributes, one `name=value` per line. */
  attributes: string;
  actions: DraftAction[];
}

/** Whether a password goes with the request: only a create or setPassword uses one. */
export function usesPassword(draft: Pick<RequestDraft, 'actions'>): boolean {
  return draft.actions.some((action) => action.type === 'create' || action.type === 'setPassword');
}

/**
 * The body of `POST /api/requests` for a draft: empty fields are left out, the password only
 * when an action uses it. The API validates it and names every problem.
 *
 * @example
 * requestBody({ ...draft, actions: [{ key: 1, type: 'grant', groups: ['Sales'] }] }, '');
 */
export function requestBody(draft: RequestDraft, password: string): Record<string, unknown> {
  const account: Record<string, unknown> = { accountId: draft.accountId.trim() };
  for (const field of ['displayName', 'givenName', 'familyName', 'email'] as const) {
    const value = draft[field].trim();
    if (value !== '') account[field] = value;
  }
  const attributes = Object.fromEntries(
    draft.attributes
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .map((line) => {
        const at = line.indexOf('=');
        return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      }),
  );
  if (Object.keys(attributes).length > 0) account.attributes = attributes;
  const context = Object.fromEntries(
    (['requestedBy', 'reason', 'correlationId'] as const)
      .map((field) => [field, draft[field].trim()] as const)
      .filter(([, value]) => value !== ''),
  );
  return {
    ...(draft.requestId.trim() === '' ? {} : { requestId: draft.requestId.trim() }),
    ...context,
    connector: draft.connector,
    account,
    ...(password !== '' && usesPassword(draft) ? { password } : {}),
    actions: draft.actions.map((action) =>
      MEMBERSHIP_ACTIONS.includes(action.type)
        ? { type: action.type, groups: action.groups }
        : { type: action.type },
    ),
  };
}
