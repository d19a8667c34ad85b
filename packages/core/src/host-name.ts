import { hostname } from 'node:os';
import { UsageError } from './errors.js';

/** A host name as DNS allows it (and a few more: `_`), no longer than a DNS name. */
const HOST = /^[A-Za-z0-9._-]{1,253}$/;

/**
 * The name Shop records for this machine (owners of runs, workers, session holds):
 * SHOP_HOSTNAME when set — containers all called "localhost", tests playing several machines
 * — else the machine's own name.
 */
export function shopHostname(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.SHOP_HOSTNAME;
  if (given === undefined || given === '') return hostname();
  if (!HOST.test(given)) {
    throw new UsageError(
      `SHOP_HOSTNAME ${JSON.stringify(given.slice(0, 80))} is not a host name: use letters, digits, '.', '-' or '_' (at most 253), or unset it`,
    );
  }
  return given;
}
