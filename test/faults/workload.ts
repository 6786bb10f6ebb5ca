import { createSeededRandom } from '../../src/sandbox/graph/seeded-random';

/** The writable groups both sandboxes are seeded with (src/runtime/sandbox-connectors.ts). */
export const GROUPS = [
  'Engineering',
  'Sales',
  'Finance',
  'Human Resources',
  'Support',
  'Marketing',
];

export type Action =
  | { type: 'create' | 'update' | 'lock' | 'unlock' | 'setPassword' | 'delete' }
  | { type: 'grant' | 'revoke' | 'setMemberships'; groups: string[] };

/** One request of the workload, as `POST /api/requests` takes it. */
export interface PlannedRequest {
  requestId: string;
  connector: string;
  accountId: string;
  actions: Action[];
  displayName?: string;
  password?: string;
  /** Sent through the bulk queue (else over HTTP); `twice`: the message is delivered twice. */
  via: 'http' | 'queue' | 'queue twice';
}

/** The requests of one account: batches run one after the other; a batch's requests at once. */
export interface AccountScript {
  connector: string;
  accountId: string;
  batches: PlannedRequest[][];
}

export interface WorkloadOptions {
  seed: number;
  connectors: { name: string; domain?: string }[];
  accountsPerConnector: number;
  /** Batches per account after the create (a count drawn in [min, max]). */
  batches: [number, number];
  /** Share of accounts whose later batch sends two requests at once. */
  concurrentShare: number;
  /** Share of requests sent through the bulk queue; half of those are delivered twice. */
  queueShare: number;
}

/**
 * A seeded workload that mixes every action on every connector: accounts created (with
 * groups, often followed at once by every other action), then changed by random requests,
 * some sent through the bulk queue (some delivered twice), some in pairs at once for the
 * same account, some ending in a delete and a create again. Every request is valid: a
 * failure is the service's.
 */
export function planWorkload(options: WorkloadOptions): AccountScript[] {
  const random = createSeededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const some = (min: number, max: number): string[] => {
    const count = min + Math.floor(random() * (max - min + 1));
    return [...GROUPS].sort(() => random() - 0.5).slice(0, count);
  };
  const password = () => `Fs-${Math.floor(random() * 1e9).toString(36)}-Pw9!`;
  const scripts: AccountScript[] = [];
  let next = 0;
  for (const connector of options.connectors) {
    for (let a = 0; a < options.accountsPerConnector; a++) {
      const accountId = `fault${options.seed}.${a}${connector.domain === undefined ? '' : `@${connector.domain}`}`;
      const request = (actions: Action[], extra: Partial<PlannedRequest> = {}): PlannedRequest => {
        const roll = random();
        const via =
          roll < options.queueShare / 2
            ? 'queue twice'
            : roll < options.queueShare
              ? 'queue'
              : 'http';
        return {
          requestId: `f${options.seed}-${++next}`,
          connector: connector.name,
          accountId,
          actions,
          via,
          ...extra,
        };
      };
      const batches: PlannedRequest[][] = [];
      // Create, followed at once by every other action half of the time (an update in the
      // same request would write the values the create just wrote: no change to judge).
      const everything = random() < 0.5;
      const createActions: Action[] = everything
        ? [
            { type: 'create' },
            { type: 'grant', groups: some(2, 3) },
            { type: 'lock' },
            { type: 'setPassword' },
            { type: 'unlock' },
            { type: 'revoke', groups: some(1, 1) },
            { type: 'setMemberships', groups: some(1, 2) },
          ]
        : [{ type: 'create' }, { type: 'grant', groups: some(1, 3) }];
      batches.push([
        request(createActions, {
          displayName: `Fault ${a} v0`,
          ...(everything || random() < 0.5 ? { password: password() } : {}),
        }),
      ]);
      const count =
        options.batches[0] + Math.floor(random() * (options.batches[1] - options.batches[0] + 1));
      const pairAt = random() < options.concurrentShare ? 1 + Math.floor(random() * count) : -1;
      let version = 0;
      for (let b = 1; b <= count; b++) {
        if (b === pairAt) {
          // Two requests for one account at once, whose changes do not conflict.
          const [first, second] = some(2, 2) as [string, string];
          batches.push(
            random() < 0.5
              ? [
                  request([{ type: 'grant', groups: [first] }]),
                  request([{ type: 'grant', groups: [second] }]),
                ]
              : [
                  request([{ type: pick(['lock', 'unlock'] as const) }]),
                  request([{ type: 'grant', groups: [first] }]),
                ],
          );
          continue;
        }
        if (b === count && random() < 0.25) {
          batches.push([request([{ type: 'delete' }])]);
          if (random() < 0.5) {
            batches.push([
              request([{ type: 'create' }, { type: 'grant', groups: some(1, 2) }], {
                displayName: `Fault ${a} again`,
              }),
            ]);
          }
          continue;
        }
        const actions: Action[] = [];
        const kinds = some(1, 3).length;
        for (let k = 0; k < kinds; k++) {
          const type = pick([
            'grant',
            'revoke',
            'setMemberships',
            'lock',
            'unlock',
            'update',
            'setPassword',
          ] as const);
          if (actions.some((action) => action.type === type)) continue;
          actions.push(
            type === 'grant' || type === 'revoke' || type === 'setMemberships'
              ? { type, groups: some(type === 'setMemberships' ? 0 : 1, 3) }
              : { type },
          );
        }
        const update = actions.some((action) => action.type === 'update');
        const setsPassword = actions.some((action) => action.type === 'setPassword');
        batches.push([
          request(actions, {
            ...(update ? { displayName: `Fault ${a} v${++version}` } : {}),
            ...(setsPassword ? { password: password() } : {}),
          }),
        ]);
      }
      scripts.push({ connector: connector.name, accountId, batches });
    }
  }
  return scripts;
}

/** A planned request as the body `POST /api/requests` and the bulk queue take. */
export function requestBody(request: PlannedRequest): Record<string, unknown> {
  return {
    requestId: request.requestId,
    connector: request.connector,
    account: {
      accountId: request.accountId,
      ...(request.displayName === undefined ? {} : { displayName: request.displayName }),
    },
    ...(request.password === undefined ? {} : { password: request.password }),
    actions: request.actions,
  };
}
