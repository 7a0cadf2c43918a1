export { SessionRouter, DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_GRACE_PERIOD_MS, DEFAULT_MAX_BROWSER_STATES, DEFAULT_MAX_SESSIONS_PER_USER } from './router';
export { KeptStates, listedState } from './kept-states';
export { PeerApi } from './peer-api';
export { MAX_HOLD_MS } from './events';
export { InMemoryRouterStore } from './memory-store';
export { withCurrentTab, type RouterStore, type SessionRecord, type StateHolder, type StateRecord } from './store';
export type {
  ClientFolders,
  ConnectResult,
  DispatchRequest,
  Executor,
  ExecutorKind,
  OpenSessionOptions,
  RemoteExecutors,
  ReportedTab,
  RouterLogger,
  RouterOptions,
  RouterStats,
} from './types';
export type { SessionCloseReason, SessionClosedListener, SessionEventListener, Unsubscribe } from './listeners';
