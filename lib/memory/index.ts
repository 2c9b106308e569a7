export { FakeClock, SystemClock } from './clock.js';
export { MemoryRecordStore, type RecordChangeEvent } from './store.js';
export { MemoryRateBudget } from './rate-budget.js';
export { MemoryOperationQueue, type ReceivedOperation } from './queue.js';
export { MemoryEbs, DEFAULT_EBS_TIMINGS, type Ec2Action, type StepDuration, type TimedStep } from './ebs.js';
export { RecordingMetrics, type RecordedOperation } from './metrics.js';
export { RecordingLog, silentLog, type LogEntry } from './log.js';
