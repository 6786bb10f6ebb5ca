import { randomBytes } from 'node:crypto';
import type { ScimConnectorSettings } from './scim-settings';
import type {
  ActionOutcome,
  CompatibilityChange,
  CompatibilityCheck,
  Evidence,
  ServiceAction,
  SettingValue,
  SuggestedSetting,
} from '../../domain/compatibility-result';
import { isProvisioningError, type SerializedError } from '../../domain/errors';
import type { EffectiveChange } from '../../domain/journal-entry';
import type { Logger } from '../../domain/logger';
import type { SecretStore } from '../../secrets/secret-store';
import type { HttpMethod, HttpResult } from '../http/transport';
import type { MembershipCheck } from './membership-check';
import { ScimConnector } from './scim-connector';

/** One step of the run as the operator reads it afterwards. */
export interface CompatibilityStep {
  name: string;
  outcome: 'succeeded' | 'failed' | 'skipped';
  detail: string;
}

/** What one attempt showed: its value or its error, and the calls it made. */
export interface Attempt<T> {
  value?: T;
  error?: SerializedError;
  evidence: Evidence[];
}

/** An answer to a probe the run judges itself, with the call that got it. */
export interface ProbeAnswer {
  result: HttpResult;
  evidence: Evidence[];
}

/** Settings the run may switch to once it has seen them work (its suggestions). */
export type TriedSetting =
  'baseUrl' | 'memberValue' | 'memberRemoveStyle' | 'emailUpdateStyle' | 'notFoundAnswer';

/** How many of a check's calls its evidence keeps: the last ones, which decided it. */
const EVIDENCE_PER_CHECK = 3;

/**
 * The state of one compatibility run: the connector as configured and as the run's tried
 * suggestions change it, the checks per point, the action table as observed, the steps, and
 * the calls each attempt made (its evidence). Every connector it builds reports its calls
 * here; none outlives the run.
 */
export class CompatibilitySession {
  readonly testAccount = `compat-test-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  readonly steps: CompatibilityStep[] = [];
  readonly checks: CompatibilityCheck[][] = [[], [], [], [], [], []];
  readonly suggestions: SuggestedSetting[] = [];
  readonly observed = new Map<
    ServiceAction,
    { outcome: ActionOutcome; reason: string; point?: number }
  >();
  /** The effective changes the run made on the target, in order: the journal gets them. */
  readonly changes: CompatibilityChange[] = [];
  private changeSteps = 0;
  /** Why the run could not go on past the endpoints (nothing found, credentials refused...). */
  stopped?: string;
  /** GET /Groups answered 404: the server has no groups. */
  noGroups = false;
  /** The settings in effect: as configured, changed by suggestions the run saw work. */
  settings: ScimConnectorSettings;
  connector: ScimConnector;
  private bucket: Evidence[] = [];
  private readonly built: ScimConnector[] = [];

  constructor(
    readonly configured: ScimConnectorSettings,
    private readonly secrets: SecretStore,
    private readonly logger?: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.settings = configured;
    this.connector = this.build(configured);
  }

  /** A connector with other settings for one try; the run's own connector stays as it is. */
  connectorWith(overrides: Partial<Pick<ScimConnectorSettings, TriedSetting>>): ScimConnector {
    return this.build({ ...this.settings, ...overrides });
  }

  /**
   * The run's connector with a credential the server must refuse: a random value in place of
   * the configured secret (same scheme, same user name). It is one of the connector's secrets
   * for the transport, so no error or evidence ever shows it.
   */
  connectorWithWrongCredential(): ScimConnector {
    const wrong = `compat-refuse-me-${randomBytes(16).toString('hex')}`;
    const secrets: SecretStore = {
      get: () => Promise.resolve(wrong),
      set: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    };
    return this.build(this.settings, secrets);
  }

  /** Goes on with a setting the run saw work: later checks are made with it. */
  use(overrides: Partial<Pick<ScimConnectorSettings, TriedSetting>>): void {
    this.settings = { ...this.settings, ...overrides };
    this.connector = this.build(this.settings);
  }

  /** The tried suggestions in effect now, as `setting: value`. */
  inEffect(): SettingValue[] {
    return this.suggestions
      .filter((s) => s.tried && String(this.settings[s.setting as TriedSetting]) === s.value)
      .map(({ setting, value }) => ({ setting, value }));
  }

  /** Runs one step of the run, keeping the calls it made; a ProvisioningError becomes data. */
  async attempt<T>(name: string, run: () => Promise<T>): Promise<Attempt<T>> {
    this.bucket = [];
    try {
      const value = await run();
      this.steps.push({ name, outcome: 'succeeded', detail: '' });
      return { value, evidence: this.bucket };
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      this.steps.push({ name, outcome: 'failed', detail: error.message });
      return { error: error.toJSON(), evidence: this.bucket };
    } finally {
      this.bucket = [];
    }
  }

  /** One call whose answer the run judges itself (any status comes back). */
  async probe(method: HttpMethod, url: URL, connector = this.connector): Promise<ProbeAnswer> {
    this.bucket = [];
    try {
      const result = await connector.http.probe(method, url);
      return { result, evidence: this.bucket };
    } finally {
      this.bucket = [];
    }
  }

  /**
   * Records what one write step of the run changed on the test account, as the step's own
   * answers decided (DESIGN invariant 9), failed steps too: each step is one journal step.
   */
  made(changes: readonly EffectiveChange[]): void {
    const step = this.changeSteps++;
    const at = this.now().toISOString();
    for (const change of changes) {
      this.changes.push({ ...change, step, accountId: this.testAccount, at });
    }
  }

  /** Records a step the run did itself (a probe), or one it skipped and why. */
  note(name: string, outcome: CompatibilityStep['outcome'], detail = ''): void {
    this.steps.push({ name, outcome, detail });
  }

  check(
    point: number,
    aspect: string,
    holds: boolean | undefined,
    note: string,
    evidence: readonly Evidence[],
    withSetting?: SettingValue,
  ): void {
    this.checks[point - 1]?.push({
      aspect,
      holds,
      note,
      evidence: evidence.slice(-EVIDENCE_PER_CHECK),
      ...(withSetting === undefined ? {} : { withSetting }),
    });
  }

  suggest(suggestion: SuggestedSetting): void {
    if (!this.suggestions.some((s) => s.setting === suggestion.setting)) {
      this.suggestions.push(suggestion);
    }
  }

  /** What the run saw of one of the service's actions; a later observation replaces it. */
  observe(action: ServiceAction, outcome: ActionOutcome, reason: string, point?: number): void {
    this.observed.set(action, { outcome, reason, ...(point === undefined ? {} : { point }) });
  }

  /** Observes an action only if nothing was seen of it yet (why it stays untested). */
  untested(action: ServiceAction, why: string): void {
    if (!this.observed.has(action)) this.observe(action, 'untested', why);
  }

  /**
   * How the run's connectors checked memberships, as the last one to decide it found (a tried
   * setting builds a connector of its own); undefined before any membership read.
   */
  get membershipCheck(): MembershipCheck | undefined {
    return this.built
      .flatMap((c) => (c.membershipCheck === undefined ? [] : [c.membershipCheck]))
      .at(-1);
  }

  async close(): Promise<void> {
    await Promise.all(this.built.map((connector) => connector.close()));
  }

  private build(settings: ScimConnectorSettings, secrets = this.secrets): ScimConnector {
    const connector = new ScimConnector(settings, {
      secrets,
      observer: (exchange) => this.bucket.push(exchange),
      ...(this.logger === undefined ? {} : { logger: this.logger }),
    });
    this.built.push(connector);
    return connector;
  }
}
