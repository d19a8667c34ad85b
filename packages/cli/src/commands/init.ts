import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ensureHome, shippedFile } from '@shop/core';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

/** The checkout's root: where workflows/ and agents/ with the examples are. */
const examples = () => dirname(dirname(shippedFile('workflows/feature.lua', import.meta.url)));

/**
 * shop init [--database URL]: example workflows and agents (never overwriting), the .shop
 * folder, and the store — SQLite, or the PostgreSQL database named, checked before anything
 * is written.
 */
export default async function init(args: CommandArgs<'init'>, ctx: Context): Promise<number> {
  const root = ctx.cwd;
  const project = { ...ctx.project, root };
  const database = args.values.database;
  const urlFile = database === undefined ? null : await ctx.initDatabase(project, database);
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
  ensureHome(project);
  writeFileSync(join(project.home, '.gitignore'), '*\n');
  await ctx.ops();
  ctx.out(created.length ? `created ${created.join(', ')}` : 'workflows/ and agents/ already hold every example');
  if (urlFile) ctx.out(`database URL kept in ${relative(root, urlFile) || urlFile} (readable by you alone)`);
  // Runs made before on SQLite are not moved: say so rather than let them seem lost.
  if (urlFile && existsSync(project.dbFile) && statSync(project.dbFile).size > 0) {
    ctx.out(
      `note: the runs in ${relative(root, project.dbFile) || project.dbFile} stay there, unused from now on (remove ${relative(root, urlFile) || urlFile} to go back to them)`,
    );
  }
  ctx.out(`store ready at ${await ctx.describeStore(project)}`);
  if (urlFile && ctx.env.SHOP_DATABASE_URL?.trim())
    ctx.out('note: SHOP_DATABASE_URL is set: in this shell it takes the place of .shop/database.url');
  ctx.out('next: shop run feature "add a login page"');
  return 0;
}
