/**
 * The claim's jobs (claimTasks.ts): submit what the service submits, then watch the chain until final. The names
 * are stored with queued jobs, so they keep the wire's word for the surface that created them.
 */
export const RELAY_TASK = 'gateway.relay';
export const WATCH_TASK = 'gateway.watchClaim';
