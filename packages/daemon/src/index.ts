export * from './router/index';
export * from './errors';
