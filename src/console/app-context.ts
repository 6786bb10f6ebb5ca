import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api-client';
import type { Caller, ConnectorInfo } from './api-types';

/** What every page works with: the API of this session, who the caller is, the connectors. */
export interface AppContext {
  api: Api;
  caller: Caller;
  connectors: ConnectorInfo[];
}

export const App = createContext<AppContext | undefined>(undefined);

export function useApp(): AppContext {
  const app = useContext(App);
  if (app === undefined) throw new Error('useApp outside the signed-in console');
  return app;
}

export const ROLES = { reader: 'Provisioning.Reader', operator: 'Provisioning.Operator' } as const;

/** Whether the caller may act (submit, import, run): the API decides; the page only says so early. */
export function mayOperate(caller: Caller): boolean {
  return caller.roles.includes(ROLES.operator);
}
