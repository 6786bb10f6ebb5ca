export { startScimSandbox } from './start-scim-sandbox.js';
export type {
  RecordedRequest,
  ScimQuirks,
  ScimSandbox,
  ScimSandboxAuth,
  ScimSandboxOptions,
} from './types.js';
