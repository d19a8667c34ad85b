import { dirname } from 'node:path';
import {
  callerOf,
  capText,
  checkProjectStore,
  findProject,
  inert,
  openTracing,
  shippedFile,
  storeError,
} from '@shop/core';
import type { Caller, EnginePorts, Notice, Project, ReadOperations, ShopOperations, Store, Tracing } from '@shop/core';
import { LiveBoard } from './live-board.js';
import { printingNotifier } from './output.js';
import { outputStyle, type OutputStyle } from './style.js';

/**
 * What every command gets: where the project is, and the core operations over a store opened
 * on first use. The composition root: the only CLI module that opens the store or builds the
 * engine's ports; commands read and change runs through `ops()` alone.
 */
export class Context {
  readonly project: Project;
  /** Live lines of running agents, when stdout is a terminal. */
  board = new LiveBoard(process.stdout);
  /** Where questions to the person are written (stderr once stdout holds a JSON document). */
  prompts: NodeJS.WritableStream = process.stdout;
  /** Colour and table width for human output on stdout (a terminal, or a pipe). */
  readonly style: OutputStyle;
  private store_: Store | null = null;
  /** Traces exported, when the OpenTelemetry variables ask for them (opened with the store). */
  private tracing_: Tracing | null = null;
  private caller_: Caller | null = null;
  /**
   * Who runs this command for core's rules: inside an agent step — by its environment, its
   * ancestors or its PID namespace (core's agents/inside-agent-step.ts) — an agent, which never
   * answers. Looked at only by a command that asks.
   */
  get caller(): Caller {
    this.caller_ ??= callerOf(this.env);
    return this.caller_;
  }
  /** Built once per kind of progress output, over the one store. */
  private readonly ops_ = new Map<string, ShopOperations>();
  private reads_: ReadOperations | null = null;

  constructor(
    readonly cwd: string,
    readonly env: NodeJS.ProcessEnv,
    public out: (line: string) => void,
  ) {
    this.project = findProject(cwd, env);
    this.style = outputStyle(process.stdout, env);
  }

  /**
   * With --json stdout holds one JSON document: the lines a person reads (progress, what was
   * answered) go to stderr instead. Returns the stdout writer for the document.
   */
  divertToStderr(): (line: string) => void {
    const stdout = this.out;
    this.board.close();
    this.board = new LiveBoard(process.stderr);
    this.prompts = process.stderr;
    this.out = (line) => process.stderr.write(`${line}\n`);
    return stdout;
  }

  /**
   * The core operations, progress printed to stdout (live lines on a terminal; `hints`: how to
   * answer, for a run driven with --wait). Inside an agent step they refuse to answer.
   */
  async ops(opts: { hints?: boolean; quiet?: boolean } = {}): Promise<ShopOperations> {
    const kind = `${Boolean(opts.hints)}:${Boolean(opts.quiet)}`;
    let ops = this.ops_.get(kind);
    if (!ops) {
      const { shopOperations } = await import('./engine-parts.js');
      ops = shopOperations(await this.ports(opts), this.project, this.caller);
      this.ops_.set(kind, ops);
    }
    return ops;
  }

  /**
   * The reads alone (shop list, inbox, log, workers): over the store and who is live, without
   * the engine's ports or any change — the same functions as ops() has.
   */
  async reads(): Promise<ReadOperations> {
    if (!this.reads_) {
      // Loaded while the store opens, not after.
      const [{ nodeReadPorts, readOperations }, store] = await Promise.all([import('./read-parts.js'), this.store()]);
      this.reads_ = readOperations(nodeReadPorts(store));
    }
    return this.reads_;
  }

  /** The engine's ports for this process (`quiet`: nothing printed, for the TUI's screen). */
  private async ports(opts: { hints?: boolean; quiet?: boolean } = {}): Promise<EnginePorts> {
    // Bound late: a command that diverts its lines to stderr (--json) after getting the operations still prints there.
    const notifier = opts.quiet
      ? { notify() {} }
      : { notify: (n: Notice) => printingNotifier(this.out, this.board, opts).notify(n) };
    const [store, { nodePorts }] = await Promise.all([this.store(), import('./engine-parts.js')]);
    return nodePorts(this.project, { notifier, binDir, store, traceparent: this.tracing_?.traceparent });
  }

  /**
   * shop init --database URL: checks the URL, reaches and migrates the database, refuses another
   * project's store, then keeps the URL in the project's .shop folder (0600). Returns the file written.
   */
  async initDatabase(project: Pick<Project, 'home' | 'root'>, url: string): Promise<string> {
    const { initDatabase } = await import('@shop/core/store');
    return initDatabase(project, url, this.env);
  }

  /** Where the project's store is, for a person (the SQLite file, or PostgreSQL host:port/db and where its URL came from). */
  async describeStore(project: Pick<Project, 'home' | 'dbFile'>): Promise<string> {
    const { describeStore } = await import('@shop/core/store');
    return describeStore(project, this.env);
  }

  /** Opens (creating) the store on first use; commands reach it only through ops(). */
  private async store(): Promise<Store> {
    if (!this.store_) {
      // SQLite or PostgreSQL (SHOP_DATABASE_URL, .shop/database.url); each judges by its clock
      // (SHOP_CLOCK_FILE fast-forwards it in tests), the one the engine's timers are due by.
      const { openStore } = await import('@shop/core/store');
      this.store_ = await openStore(this.project, this.env);
      // A store shared by machines (PostgreSQL) must be this project's: refused with one line otherwise.
      await checkProjectStore(this.store_, this.project);
      // Each call's span is exported as its end is recorded (OTEL_EXPORTER_OTLP_ENDPOINT); off: nothing loaded.
      // The collector's words are data: made inert before they reach the terminal.
      this.tracing_ = await openTracing(this.env, (line) =>
        process.stderr.write(`shop: warning: ${capText(inert(line), 300)}\n`),
      );
      if (this.tracing_) this.store_ = this.tracing_.wrap(this.store_);
    }
    return this.store_;
  }

  async close(): Promise<void> {
    this.board.close();
    await this.tracing_?.flush();
    await this.store_?.close();
  }
}

/**
 * The folder of the `shop` executable (put on agents' PATH so `shop report` works there),
 * found by walking up: this module is in dist/ or, bundled, in dist/bundle/.
 */
export const binDir = dirname(shippedFile('bin/shop', import.meta.url));

/** A store problem met after opening (locked, read-only, full) as a one-line error naming the file, or null (main's error report). */
export const storeProblem = (e: unknown, file: string) => storeError(e, file);
