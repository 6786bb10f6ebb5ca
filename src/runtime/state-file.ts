import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ProvisioningError } from '../domain/errors';

/**
 * A JSON file of the local host's state folder, or undefined when there is none. One that
 * cannot be read stops the start with a message naming it, rather than being overwritten.
 */
export function readStateFile<T>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProvisioningError(
      'CONFIG_INVALID',
      `the local host's state file ${path} is not JSON: move it away, or start with --fresh`,
      { object: path },
    );
  }
}

/**
 * Writes a JSON file of the state folder whole or not at all: beside it first, then renamed
 * over it, so a process killed meanwhile leaves the previous version.
 */
export function writeStateFile(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const next = `${path}.next`;
  writeFileSync(next, JSON.stringify(value));
  renameSync(next, path);
}
