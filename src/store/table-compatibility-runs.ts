import type { TableClient } from '@azure/data-tables';
import type { CompatibilityResult } from '../domain/compatibility-result';
import { ProvisioningError } from '../domain/errors';
import type { CompatibilityRunStore } from './compatibility-runs';
import { EnsuredTable } from './ensured-table';
import { guardStorage, storageFailure, storageStatus } from './storage-failure';
import { encodeTableKey } from './table-key';

/** The one row of a connector: its last run. */
const ROW_KEY = 'last';
/** Table Storage holds at most 64 KiB in a string property: 32,768 UTF-16 characters. */
const PART_LENGTH = 30_000;
/** An entity holds at most 1 MiB: 15 full parts and the other columns stay below it. */
const MAX_PARTS = 15;

interface RunRow {
  at: string;
  verdict: string;
  summary: string;
  jobId?: string;
  /** How many `part<N>` columns hold the result's JSON. */
  parts: number;
  /** True when the requests and answers behind the checks had to be left out to fit. */
  evidenceDropped?: boolean;
  [part: `part${number}`]: string;
}

/** The result without the requests and answers of its checks (notes and verdicts stay). */
function withoutEvidence(result: CompatibilityResult): CompatibilityResult {
  return {
    ...result,
    points: result.points.map((point) => ({
      ...point,
      checks: point.checks.map((check) => ({ ...check, evidence: [] })),
    })),
  };
}

function split(json: string): string[] {
  const parts: string[] = [];
  for (let at = 0; at < json.length; at += PART_LENGTH)
    parts.push(json.slice(at, at + PART_LENGTH));
  return parts;
}

/**
 * Compatibility runs in Table Storage: PartitionKey is the connector (encoded), RowKey
 * `last`; the result's JSON spread over `part<N>` columns, replaced whole by the next run.
 * A result too big for one entity is kept without its evidence, and says so.
 */
export class TableCompatibilityRuns implements CompatibilityRunStore {
  private readonly table: EnsuredTable;

  constructor(client: TableClient) {
    this.table = new EnsuredTable(client);
  }

  async last(connector: string): Promise<CompatibilityResult | undefined> {
    const client = await this.table.client();
    let row: RunRow;
    try {
      row = await client.getEntity<RunRow>(encodeTableKey(connector), ROW_KEY);
    } catch (error) {
      if (storageStatus(error) === 404) return undefined;
      throw storageFailure('read the last compatibility run', error);
    }
    const json = Array.from({ length: row.parts }, (_, i) => row[`part${i}`] ?? '').join('');
    const result = JSON.parse(json) as CompatibilityResult;
    return row.evidenceDropped === true ? { ...result, evidenceDropped: true } : result;
  }

  async keep(result: CompatibilityResult): Promise<void> {
    let parts = split(JSON.stringify(result));
    let evidenceDropped = false;
    if (parts.length > MAX_PARTS) {
      parts = split(JSON.stringify(withoutEvidence(result)));
      evidenceDropped = true;
    }
    if (parts.length > MAX_PARTS) {
      throw new ProvisioningError(
        'INTERNAL_ERROR',
        `storage: the compatibility run of connector "${result.connector}" is larger than a table row holds, even without its evidence`,
        { object: result.connector },
      );
    }
    const row: RunRow & { partitionKey: string; rowKey: string } = {
      partitionKey: encodeTableKey(result.connector),
      rowKey: ROW_KEY,
      at: result.at,
      verdict: result.verdict,
      summary: result.summary,
      ...(result.jobId === undefined ? {} : { jobId: result.jobId }),
      parts: parts.length,
      ...(evidenceDropped ? { evidenceDropped } : {}),
    };
    parts.forEach((part, index) => {
      row[`part${index}`] = part;
    });
    const client = await this.table.client();
    await guardStorage('keep the compatibility run', () => client.upsertEntity(row, 'Replace'));
  }
}
