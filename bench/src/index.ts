export { DEFAULT_OPTIONS, runBench } from './run.js';
export type { ActionRow, BenchOptions, BenchResult, MemoryResult, SessionResult, SnapshotRow, ThroughputRow } from './run.js';
export { renderMarkdown, spliceSection, targets } from './report.js';
export { routerBench } from './router-bench.js';
export type { RouterLevel } from './router-bench.js';
export { SERVERS } from './servers.js';
export type { ServerId } from './servers.js';
export { clusterBench } from './cluster-bench.js';
export type { ClusterBenchResult, ClusterLevel } from './cluster-bench.js';
