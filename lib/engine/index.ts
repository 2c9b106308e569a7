/** The engine's public API: planning, scheduling, executing and watching, behind small ports. */
export * from './ports.js';
export * from './config.js';
export * from './planner.js';
export * from './schedule.js';
export * from './errors.js';
export * from './devices.js';
export * from './rate-limiter.js';
export * from './status.js';
export { Executor, createVolumeClientToken, type ExecutorDeps, type ExecutorBatchItem } from './executor.js';
export { Watcher, type RecordChange, type WatcherDeps } from './watcher.js';
export * from '../domain/state-machines.js';
