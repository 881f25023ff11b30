export * from './store.js';
export * from './selectors.js';
