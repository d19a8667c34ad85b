import type { CommandSpec } from '../command-spec.js';

export const HOOK_USAGE =
  'shop hook add <name> (--workflow W | --event E) [--key-from PATH] [--github | --secret-env VAR] [--filter EXPR] [--prompt-from PATH] [--json] | list [--json] | remove <name>';

/** Webhooks: POST /hooks/<name> on shop serve starts a queued run or sends an event. */
export const hookCommands = {
  hook: {
    usage: HOOK_USAGE,
    summary: 'webhooks: a signed POST to shop serve starts a queued run or sends an event',
    details: `add records a hook that shop serve receives at <public url>/hooks/<name> (name: 1-64 of A-Z a-z 0-9
_ -). A delivery must be signed: the HMAC-SHA256 of its raw body with the hook's secret in
X-Hub-Signature-256 (GitHub) or X-Shop-Signature-256, sha256=<hex>; else 401 and nothing recorded.
Without --secret-env Shop makes the secret, prints it this once and keeps it in the store (it needs it
to check signatures); --secret-env VAR reads it from shop serve's environment instead. --github: a
GitHub webhook (signed in X-Hub-Signature-256); add prints the URL and secret to paste on GitHub.
--workflow W queues a run of W per delivery (trigger webhook, its data the payload, its prompt
--prompt-from, its queue key --key-from); --event E sends event E to waiting runs (its data the
payload, its key --key-from, each / becoming :). --filter: conditions that must all hold, such as
"event=issues action=labeled label.name=agent" (docs/web.md, Webhooks). A delivery id seen before
(X-GitHub-Delivery, X-Shop-Delivery) is answered "duplicate", nothing new. Bad input is one line,
exit 2, nothing recorded; an unknown workflow exits 5 (as shop run), a name taken 6. list shows the
hooks, never a secret. remove forgets a hook and its deliveries (exit 5 when there is none).
Not available inside an agent step (exit 2).`,
    group: 'tools',
    maxArgs: 2,
    options: {
      workflow: { type: 'string', value: 'W', description: 'with add: each delivery queues a run of workflow W' },
      event: { type: 'string', value: 'E', description: 'with add: each delivery sends event E to waiting runs' },
      'key-from': {
        type: 'string',
        value: 'PATH',
        description: "with add: the run's queue key or the event's key, from the payload (e.g. repository.full_name)",
      },
      'prompt-from': {
        type: 'string',
        value: 'PATH',
        description: "with add --workflow: the run's prompt, from the payload (e.g. issue.body)",
      },
      filter: {
        type: 'string',
        value: 'EXPR',
        description: 'with add: act only on deliveries matching it (e.g. "event=issues action=labeled")',
      },
      github: { type: 'boolean', description: 'with add: a GitHub webhook (X-Hub-Signature-256, X-GitHub-Delivery)' },
      'secret-env': {
        type: 'string',
        value: 'VAR',
        description: "with add: the secret is in shop serve's environment variable VAR (not made and kept by Shop)",
      },
      json: {
        type: 'boolean',
        description: 'add: {hook, secret}; list: the hooks (times ISO 8601, never a secret)',
      },
    },
  },
} as const satisfies Record<string, CommandSpec>;
