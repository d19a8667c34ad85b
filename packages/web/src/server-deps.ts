import type { ShopError } from '@shop/core';
import type { WebOperations } from './web-operations.js';

/**
 * What the server is given by its composition root (`shop serve`): core's operations bound
 * to the store (it never opens the store or reads the environment itself), and how to get a
 * run going again — it never drives one: a run nobody drives after an answer is handed to
 * `resumeInBackground` (a detached `shop resume`).
 */
export interface ServerDeps {
  ops: WebOperations;
  publicUrl: string | null;
  resumeInBackground(runId: number): void;
  /** packages/web/static, found next to the running code. */
  staticDir: string;
  /** One line for the server's own log (stderr): failures, never request bodies. */
  log(line: string): void;
  /** SHOP_DEBUG=1: failures logged with their stack. */
  debug: boolean;
  /**
   * An error as machines read it (the API, the live stream, event URLs): the line the CLI
   * prints, worded by the composition root, so a script sees one wording whichever it asks.
   * Without it, the pages' words.
   */
  machineErrorText?: (e: ShopError) => string;
}
