/**
 * The package's `./budget` export: the worker-wide socket budget. The worker's main process runs
 * the lease service; a job process's TTS takes its leases through `leaseServiceBudget`.
 */
export type { ConnectionBudget, ConnectionLease } from './connection-budget.js';
export { budgetKey, leaseServiceBudget } from './lease-client.js';
export { type LeaseService, type LeaseServiceOptions, startLeaseService } from './lease-service.js';
