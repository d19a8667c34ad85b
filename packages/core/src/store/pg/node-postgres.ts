// In this order: the navigator is lent (node-navigator.ts) before pg's own code runs.
import { returnNavigator } from './node-navigator.js';
import pg from 'pg';

/**
 * node-postgres, loaded here once, and bundled with the CLI like any other package (required from
 * node_modules file by file, it took 17 ms of every command on PostgreSQL; bundled, 10).
 */
returnNavigator();
export default pg;
