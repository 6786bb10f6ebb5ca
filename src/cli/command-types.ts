/** Where a command writes its lines (stdout in the CLI, an array in tests). */
export type Print = (line: string) => void;

/** A command's arguments as `node:util` parseArgs gives them. */
export interface CommandArgs {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}
