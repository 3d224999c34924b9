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
  runWorkerSettings,
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
