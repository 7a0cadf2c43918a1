export * from './errors';
export * from './jsonrpc';
export * from './envelope';
export * from './ids';
export * from './proxy';
export * from './extension';
export { describeIssues } from './validate';
export * from './cluster';
