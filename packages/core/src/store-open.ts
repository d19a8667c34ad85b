/**
 * Opening a store, for a composition root (the CLI's context): SQLite or PostgreSQL, chosen by
 * the project. Its own entry ('@shop/core/store') so that a command that never opens a store
 * never loads one: the CLI imports it lazily.
 */
export { describeStore, initDatabase } from './store/init-database.js';
export { openStore } from './store/open-store.js';
