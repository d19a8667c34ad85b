import { matchesAs, type CallDefinition } from './definition.js';

type PatchedRequest = { type: 'patched'; id: string };

/** patched(id): true on a path new to the run, false replaying a run recorded before the patch. */
export const patchedCall: CallDefinition<PatchedRequest> = {
  name: 'patched',
  kind: 'patch',
  flow: 'call',
  usage: 'patched(id)',
  max: 1,
  parse: ([id]) =>
    typeof id === 'string' && id ? { type: 'patched', id } : 'patched(id): id must be a non-empty string',
  describe: (req) => `patched("${req.id}")`,
  quoted: (req) => `patched("${req.id}")`,
  // A run recorded before the patch has another call here: the old path, and no key taken.
  untaken: (rec, req) =>
    rec && !(rec.kind === 'patch' && matchesAs(patchedCall, rec.fingerprint, req)) ? { value: false } : null,
  start: (world, key, req, rec, signal) =>
    world.once(
      key,
      req,
      rec,
      { kind: 'patch', fingerprint: patchedCall.describe(req), prompt: null },
      async () => true,
      signal,
    ),
};
