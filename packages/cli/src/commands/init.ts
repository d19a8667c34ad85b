import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureHome } from '@shop/core/project/project';
import { shippedFile } from '@shop/core/project/shipped-file';
import type { Context } from '../context.js';

/** The checkout's root: where workflows/ and agents/ with the examples are. */
const examples = () => dirname(dirname(shippedFile('workflows/feature.lua', import.meta.url)));

/** shop init: example workflows and agents (never overwriting), and the .shop folder. */
export default async function init(_args: unknown, ctx: Context): Promise<number> {
  const root = ctx.cwd;
  const created: string[] = [];
  const from = examples();
  for (const dir of ['workflows', 'agents']) {
    mkdirSync(join(root, dir), { recursive: true });
    for (const file of readdirSync(join(from, dir))) {
      const target = join(root, dir, file);
      if (existsSync(target)) continue;
      copyFileSync(join(from, dir, file), target);
      created.push(`${dir}/${file}`);
    }
  }
  const project = { ...ctx.project, root };
  ensureHome(project);
  writeFileSync(join(project.home, '.gitignore'), '*\n');
  await ctx.ops();
  ctx.out(created.length ? `created ${created.join(', ')}` : 'workflows/ and agents/ already hold every example');
  ctx.out(`store ready at ${project.dbFile}`);
  ctx.out('next: shop run feature "add a login page"');
  return 0;
}
