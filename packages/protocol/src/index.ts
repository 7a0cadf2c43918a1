export * from './errors';
export * from './jsonrpc';
export * from './envelope';
export * from './ids';
export * from './proxy';
export * from './extension';
export * from './pairing';
export { describeIssues } from './validate';
export * from './cluster';
