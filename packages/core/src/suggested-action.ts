/**
 * What a person may do next about an error, as data. Core never words it as a command line:
 * the CLI prints each as a `shop …` line, the web as its own words. `handle` names what the
 * action is about: a run id ("12") or an ask handle ("12.3"); `needs` says what the person
 * must add (a reason to stop, the words of an answer).
 */
export type SuggestedAction =
  /** See the runs there are. */
  | { readonly verb: 'list' }
  /** Look at the run as it is now. */
  | { readonly verb: 'status'; readonly handle: string }
  /** Wait for the run's agent at work: follow its trail. */
  | { readonly verb: 'follow'; readonly handle: string }
  /** Stop the run (wait for its driver, or stop it). */
  | { readonly verb: 'stop'; readonly handle: string; readonly needs: 'reason' }
  /** Answer the ask with words, or reject it saying what to change. */
  | { readonly verb: 'answer' | 'reject'; readonly handle: string; readonly needs: 'message' }
  /** Give a pause's decisions (named by id) as structured answers. */
  | {
      readonly verb: 'decide';
      readonly handle: string;
      readonly needs: 'answers';
      readonly decisions: readonly string[];
    }
  /** See who has access to the web inbox. */
  | { readonly verb: 'access-list' }
  /** A person's access revoked (to add them again, with a new link). */
  | { readonly verb: 'access-revoke'; readonly handle: string }
  /** Record the address people reach the web inbox at. */
  | { readonly verb: 'set-public-url' }
  /** Make this folder a project (with example workflows). */
  | { readonly verb: 'init' };
