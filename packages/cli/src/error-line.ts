import type { ShopError, SuggestedAction } from '@shop/core';

/**
 * A typed error as the CLI prints it: core's words, then each suggested action as the
 * `shop …` command that does it. The one place the CLI words actions; what tests and scripts
 * read on stderr is this line.
 */
export function errorLine(e: ShopError): string {
  return e.message + e.actions.map(actionWords).join('');
}

/** One action as the words after the message, naming the exact command. */
export function actionWords(a: SuggestedAction): string {
  switch (a.verb) {
    case 'list':
      return '; see runs with: shop list';
    case 'status':
      return `; see: shop status ${a.handle}`;
    case 'follow':
      return `; wait for it: shop log -f ${a.handle}`;
    case 'stop':
      return `; wait for it, or stop it with: shop stop ${a.handle} --reason "…"`;
    case 'answer':
    case 'reject':
      return `, e.g. shop ${a.verb} ${a.handle} "…"`;
    case 'decide':
      return `; give them with: shop signal ${a.handle} --answers '{${a.decisions.map((id) => `"${id}": …`).join(', ')}}'`;
    case 'access-list':
      return '; see: shop access list';
    case 'access-revoke':
      return `; to give them a new link: shop access revoke ${JSON.stringify(a.handle)}, then add them again`;
    case 'set-public-url':
      return '; record it once with: shop serve --public-url https://shop.example.com';
    case 'init':
      return ' (run `shop init` to create examples)';
  }
}
