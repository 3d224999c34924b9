export { DEFAULT_DRAIN_TIMEOUT_S, type LifecycleEnv, readLifecycleEnv } from './env.js';
export { EnvGroupError, parseEnvGroup, splitList } from './env-group.js';
export {
  type SendToParent,
  WORKER_REGISTERED_EVENT,
  parentChannel,
  signalReadyOnRegistration,
} from './ready.js';
export {
  type RunWorkerOptions,
  type WorkerServer,
  drainableServer,
  runAgentApp,
  runWorker,
} from './run-worker.js';
export {
  type Drainable,
  EXIT_CUT_SHORT,
  EXIT_DRAINED,
  EXIT_FORCED,
  type GracefulShutdownOptions,
  type ShutdownHandle,
  installGracefulShutdown,
} from './shutdown.js';
