/** Flags and help text several commands share, declared once. */

export const json = (what: string) =>
  ({ json: { type: 'boolean', description: `print ${what} as JSON (documented shapes; times ISO 8601)` } }) as const;
export const by = {
  by: {
    type: 'string',
    value: 'NAME',
    description: 'record the answer as from NAME (default: SHOP_USER, git user.name, the OS user)',
  },
} as const;
export const call = {
  call: {
    type: 'string',
    value: 'K',
    description: "which call's ask to answer (4, 4/1/2; 4.2 its second ask): the same as the handle <id>.K",
  },
} as const;
export const yes = {
  yes: {
    type: 'boolean',
    short: 'y',
    description: 'with a bare run id on a terminal: answer its open ask without asking to confirm',
  },
} as const;
export const acted = {
  json: {
    type: 'boolean',
    description:
      'print one JSON document: the run, the ask answered, its state, the asks open now (progress goes to stderr; the exit code is unchanged)',
  },
} as const;
export const wait = {
  wait: {
    type: 'boolean',
    description: 'keep this process alive and resume in place when the answer arrives (instead of exiting 3)',
  },
} as const;

export const ANSWERING = `Give the ask's handle as shop inbox and the hints show it (33.4 = run 33, call 4; 33.4.2 = that
call's second ask; 33 --call 4 is the same as 33.4): the answer lands on that ask, or, if it was
answered already, the command exits 6 naming who answered it and what is open now. A bare run id
answers the run's one open ask: on a terminal it shows the question and asks first (--yes skips
that); off a terminal it says which ask it answered.
The answer is recorded (the first one wins; a second exits 6 naming it). When a live process
holds the run — shop watch, shop run --wait, a driver still running other branches — it resumes
the run itself and this command exits 0. Otherwise the run resumes here and the command exits
with its state: 0 completed, 3 waiting for a person again, 7 waiting on time (a sleep), 4 stuck, 1 failed.`;

/** shop resume / shop stop over many runs: the filter instead of an id. */
export const bulkFilter = (verb: string) =>
  ({
    status: {
      type: 'string',
      value: 'S',
      description: `${verb} every run in this state (queued, running, interrupted, waiting, waiting_human, failed…)`,
    },
    workflow: { type: 'string', value: 'W', description: `${verb} the runs of this workflow` },
    since: { type: 'string', value: 'D', description: 'only runs started within D (e.g. 2h, 30m, 1d)' },
    'dry-run': { type: 'boolean', description: 'with a filter: say what it would do, change nothing' },
  }) as const;
