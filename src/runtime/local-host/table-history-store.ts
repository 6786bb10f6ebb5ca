import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';
import { EnsuredTable } from '../../store/ensured-table';
import { guardStorage } from '../../store/storage-failure';
import { decodeTableKey, encodeTableKey } from '../../store/table-key';
import type {
  HistoryStore,
  InstanceSave,
  InstanceStart,
  InstanceState,
  SavedInstance,
} from './history-store';
import type { RecordedAction } from './driver-instance';
import type { HistoryEvent } from './history-events';
import { submitTransaction } from '../../store/table-transaction';

/*
 * A string property holds at most 64 KiB (32K UTF-16 characters) and an entity 1 MiB: JSON
 * is cut into properties of 30,000 characters, four to a row, rows as many as needed.
 */
const PROPERTY_CHARS = 30_000;
const PROPERTIES_PER_ROW = 4;
const ROW_CHARS = PROPERTY_CHARS * PROPERTIES_PER_ROW;
/** An entity group transaction takes at most 100 operations. */
const MAX_ROWS_PER_SAVE = 100;

/** Row keys: the start once, the state replaced at each save, each save's additions kept. */
const START = 'a';
const STATE = 'b';
const ADDED = 'c';

interface BlobRow {
  /** How many rows the value has (on its first row). */
  rows?: number;
  [property: `p${number}`]: string;
}

interface Added {
  events: HistoryEvent[];
  actions: RecordedAction[];
  canceledTimers: number[];
}

/**
 * Orchestration histories in a table of the local host's own Azurite, next to the journal,
 * the catalogue and the write intents: one partition per instance, each save one entity
 * group transaction (whole or not at all). Azurite saves all its tables in one snapshot,
 * so whatever a crash keeps of a history, it keeps every table write that happened before
 * it; an activity whose completion was lost is run again, as Durable runs activities at
 * least once.
 */
export class TableHistoryStore implements HistoryStore {
  private readonly table: EnsuredTable;

  constructor(
    client: TableClient,
    private readonly flush: () => Promise<void>,
  ) {
    this.table = new EnsuredTable(client);
  }

  async save(save: InstanceSave): Promise<void> {
    const partitionKey = encodeTableKey(save.instanceId);
    const rows = [
      ...(save.start === undefined ? [] : blobRows(START, save.start)),
      ...blobRows(STATE, save.state),
    ];
    const added: Added = {
      events: save.events,
      actions: save.actions,
      canceledTimers: save.canceledTimers,
    };
    if (added.events.length + added.actions.length + added.canceledTimers.length > 0) {
      rows.push(...blobRows(`${ADDED}-${String(save.seq).padStart(10, '0')}`, added));
    }
    if (rows.length > MAX_ROWS_PER_SAVE) {
      throw new Error(
        `the state of orchestration "${save.instanceId}" is too large to save (${rows.length} rows)`,
      );
    }
    const actions: TransactionAction[] = rows.map(({ rowKey, ...properties }) => [
      'upsert',
      { partitionKey, rowKey, ...properties } satisfies TableEntity,
      'Replace',
    ]);
    const client = await this.table.client();
    await guardStorage('save an orchestration history', () => submitTransaction(client, actions));
  }

  durable(): Promise<void> {
    return this.flush();
  }

  async load(): Promise<SavedInstance[]> {
    const client = await this.table.client();
    const partitions = new Map<string, Map<string, BlobRow>>();
    await guardStorage('read orchestration histories', async () => {
      for await (const entity of client.listEntities<BlobRow>()) {
        const partition = entity.partitionKey ?? '';
        let rows = partitions.get(partition);
        if (rows === undefined) {
          rows = new Map();
          partitions.set(partition, rows);
        }
        rows.set(entity.rowKey ?? '', entity);
      }
    });
    const instances: SavedInstance[] = [];
    for (const [partition, rows] of partitions) {
      const start = readBlob<InstanceStart>(rows, START);
      const state = readBlob<InstanceState>(rows, STATE);
      if (start === undefined || state === undefined) continue;
      const saved: SavedInstance = {
        instanceId: decodeTableKey(partition),
        ...start,
        state,
        history: [],
        actions: [],
        canceledTimers: [],
        saves: 0,
      };
      const seqs = [...rows.keys()]
        .filter((key) => key.startsWith(`${ADDED}-`) && key.endsWith('-0000'))
        .map((key) => key.slice(0, -'-0000'.length))
        .sort();
      for (const prefix of seqs) {
        const added = readBlob<Added>(rows, prefix);
        if (added === undefined) continue;
        saved.history.push(...added.events);
        saved.actions.push(...added.actions);
        saved.canceledTimers.push(...added.canceledTimers);
        saved.saves = Number(prefix.slice(ADDED.length + 1));
      }
      instances.push(saved);
    }
    return instances.sort((a, b) => a.createdAt - b.createdAt);
  }
}

/** A JSON value as rows `${prefix}-0000`, `${prefix}-0001`...; the first says how many. */
function blobRows(prefix: string, value: unknown): ({ rowKey: string } & BlobRow)[] {
  const json = JSON.stringify(value) ?? 'null';
  const count = Math.max(1, Math.ceil(json.length / ROW_CHARS));
  return Array.from({ length: count }, (_, index) => {
    const row: { rowKey: string } & BlobRow = {
      rowKey: `${prefix}-${String(index).padStart(4, '0')}`,
    };
    if (index === 0) row.rows = count;
    const text = json.slice(index * ROW_CHARS, (index + 1) * ROW_CHARS);
    for (let p = 0; p * PROPERTY_CHARS < text.length; p += 1) {
      row[`p${p}`] = text.slice(p * PROPERTY_CHARS, (p + 1) * PROPERTY_CHARS);
    }
    return row;
  });
}

function readBlob<T>(rows: Map<string, BlobRow>, prefix: string): T | undefined {
  const first = rows.get(`${prefix}-0000`);
  if (first === undefined) return undefined;
  let json = '';
  for (let index = 0; index < (first.rows ?? 1); index += 1) {
    const row = rows.get(`${prefix}-${String(index).padStart(4, '0')}`);
    if (row === undefined) return undefined;
    for (let p = 0; p < PROPERTIES_PER_ROW; p += 1) json += row[`p${p}`] ?? '';
  }
  return JSON.parse(json) as T;
}
