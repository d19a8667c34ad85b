import { quoted } from '@shop/core';
import type { CommandSpec } from '../command-spec.js';
import { ANSWERING, acted, by, call, json, yes } from './shared-flags.js';

/** Answering (people in the loop): inbox, continue, approve, reject, answer, claim, signal. */
export const answerCommands = {
  inbox: {
    usage: 'shop inbox [--json]',
    summary: 'every pending ask across runs: what it awaits, the question, how long, how to answer',
    group: 'answer',
    maxArgs: 0,
    options: json('the asks'),
  },
  continue: {
    usage: 'shop continue <id | handle> [--editor] [--claude] [--call K] [--by NAME] [--json]',
    summary: "answer in this terminal: the agent's own Claude session, or a pause's decisions",
    details: `An agent's ask opens its Claude session (claude --resume) in this terminal; it needs one (without,
answer with shop answer <handle> "…"). A pause asks its decisions here; piped input answers them too.
With a bare run id it shows the question of the run's one open ask before anything is answered.
${ANSWERING}`,
    group: 'answer',
    maxArgs: 1,
    options: {
      editor: {
        type: 'boolean',
        description:
          "first open the run's workspace in $VISUAL or $EDITOR (needs a terminal), then go on when it exits",
      },
      claude: {
        type: 'boolean',
        description: "at a pause: first open a _checkpoint review session in the run's workspace (needs a terminal)",
      },
      ...call,
      ...by,
      ...acted,
    },
  },
  approve: {
    usage: 'shop approve <id | handle> [--message M | --message-file F] [--call K] [--by NAME] [--yes] [--json]',
    summary: 'approve what a run waits on (the verdict matrix decides: close, or back to the agent)',
    details: ANSWERING,
    group: 'answer',
    maxArgs: 1,
    extraHint: (extra) => `give your words with --message ${quoted(extra)}`,
    options: {
      message: {
        type: 'string',
        short: 'm',
        value: 'M',
        description: "words that go with the approval (to the agent, or the pause's note)",
      },
      'message-file': {
        type: 'string',
        value: 'F',
        description: 'the words are the text of file F (- for stdin), up to 16 MiB',
      },
      ...call,
      ...by,
      ...yes,
      ...acted,
    },
  },
  reject: {
    usage: 'shop reject <id | handle> [feedback… | --message-file F] [--call K] [--by NAME] [--yes] [--json]',
    summary: 'reject it, with feedback (back to the agent, or close; a pause stops)',
    details: ANSWERING,
    group: 'answer',
    maxArgs: Infinity,
    options: {
      message: { type: 'string', short: 'm', value: 'M', description: 'the feedback, if not given as words' },
      'message-file': {
        type: 'string',
        value: 'F',
        description: 'the words are the text of file F (- for stdin), up to 16 MiB',
      },
      ...call,
      ...by,
      ...yes,
      ...acted,
    },
  },
  answer: {
    usage: 'shop answer <id | handle> <text… | --message-file F> [--call K] [--by NAME] [--yes] [--json]',
    summary: "send your words back to the waiting agent's own session",
    details: ANSWERING,
    group: 'answer',
    maxArgs: Infinity,
    options: {
      'message-file': {
        type: 'string',
        value: 'F',
        description: 'the words are the text of file F (- for stdin), up to 16 MiB',
      },
      ...call,
      ...by,
      ...yes,
      ...acted,
    },
  },
  claim: {
    usage: 'shop claim <handle> [--release [--force]] [--by NAME] [--json]',
    summary: 'say you are on an ask: its reminders and escalation wait (--release lets go)',
    details: `The claim shows in shop inbox, shop status, the TUI and every --json. It lasts the workflow's
config claim_timeout (default an hour) and is renewed by claiming again; released or aged out, the
ask's reminders and escalation go on. Its timeout (human_timeout) is not put off. Exit 6 when someone
else holds the claim (naming them) or the ask was answered; 5 when the handle names no ask.`,
    group: 'answer',
    maxArgs: 1,
    options: {
      release: { type: 'boolean', description: 'let go of your claim on the ask' },
      force: { type: 'boolean', description: "with --release: let go of someone else's claim (taking it over)" },
      by: {
        type: 'string',
        value: 'NAME',
        description: 'claim as NAME (default: SHOP_USER, git user.name, the OS user)',
      },
      ...json('the ask and its claim'),
    },
  },
  signal: {
    usage:
      'shop signal <id | handle> --status S | --answers JSON | --answers-file F | --response-file F [--message M] [--call K] [--by NAME] [--yes] [--json]',
    summary: "answer from a script: a status, or a pause's decisions",
    details: ANSWERING,
    group: 'answer',
    maxArgs: 1,
    options: {
      status: {
        type: 'string',
        value: 'S',
        description:
          'close the call with this status (CONTINUE or STOP at a pause; any UPPER_CASE status for an agent)',
      },
      answers: {
        type: 'string',
        value: 'JSON',
        description: `a pause's decisions, keyed by decision id: '{"d1": true, "d2": {"value": 3, "comment": "…"}}'`,
      },
      'answers-file': { type: 'string', value: 'F', description: 'the same, read from a file' },
      'response-file': { type: 'string', value: 'F', description: 'an AAH decision/response artifact' },
      message: {
        type: 'string',
        short: 'm',
        value: 'M',
        description: 'a note recorded with the answer (the summary an agent gets back)',
      },
      ...call,
      ...by,
      ...yes,
      ...acted,
    },
  },
} as const satisfies Record<string, CommandSpec>;
