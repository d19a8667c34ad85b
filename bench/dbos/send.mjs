// Answers a waiting `gated` workflow from a new process, as a person's tool would:
//   node send.mjs <workflow id>   (env: BENCH_PG_URL)
// DBOSClient.send on topic "answer"; prints the epoch µs at which it called send (the
// twin of the answered_at Shop records just before its answer's transaction).
import { DBOSClient } from '@dbos-inc/dbos-sdk';

const client = await DBOSClient.create({ systemDatabaseUrl: process.env.BENCH_PG_URL, applicationName: 'shop-bench' });
try {
  const sending = Math.round((performance.timeOrigin + performance.now()) * 1000);
  await client.send(process.argv[2], { approved: true }, 'answer');
  process.stdout.write(`${sending}\n`);
} finally {
  await client.destroy();
}
