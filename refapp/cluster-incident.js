#!/usr/bin/env node
'use strict';
// A small incident on one queue of the image domain, produced by the real bullmq on a single
// node or on a Redis Cluster (ioredis Cluster), for Reclaim's cluster tests:
//
//   node refapp/cluster-incident.js seed   --redis URL --pg URL --prefix P --queue Q --healthy N --lost M [--from K]
//   node refapp/cluster-incident.js states --redis URL --prefix P --queue Q --ids ID[,ID...]
//   node refapp/cluster-incident.js work   --redis URL --prefix P --queue Q --count N [--timeout-ms T]
//
// seed: N + M rows of ImageJob, QUEUED and two hours old, each with its Image; the N healthy ones
// have their job waiting in Q (id "image-<row id>", as the app adds it), the M lost ones have
// none, as after a Redis that lost its data. Row ids count from K (default 0), so a second seed
// with --from adds rows beside the first's. The queue is opened, so its meta is stamped as a
// running app leaves it. Prints {"healthy":[row ids],"lost":[row ids]}.
// states: {"<job id>":{"state":S,"data":{...}}} with bullmq's own getState() ("missing" when
// there is no such job). work: an unmodified Worker completing N jobs, one JSON line each
// ({"event":"completed","id":ID,"data":{...}}); exit 3 when the timeout passes first.
// The URL forms are redis://host:port/db and redis+cluster://host:port[,host:port...].

const { Queue, Worker } = require('bullmq');
const { Client } = require('pg');
const { parseArgs, UsageError, redisConnection, pgOptions, errText, runMain } = require('./lib/common');

function jobIdFor(rowId) {
  return `image-${rowId}`;
}

function payloadFor(rowId, imageId) {
  return { jobId: rowId, imageId, prompt: `prompt of ${imageId}`, width: 512, height: 512 };
}

async function seed(args, conn) {
  const { cfg, label } = pgOptions(args.pg || process.env.RECLAIM_PG_URL);
  const pg = new Client(cfg);
  pg.on('error', () => {});
  try {
    await pg.connect();
  } catch (e) {
    throw new Error(`cannot connect to ${label}: ${errText(e)}`);
  }
  const redis = conn.make();
  redis.on('error', () => {});
  const queue = new Queue(args.queue, { connection: redis, prefix: args.prefix });
  await queue.waitUntilReady();
  const out = { healthy: [], lost: [] };
  const from = args.from || 0;
  const total = args.healthy + args.lost;
  for (let i = from; i < from + total; i++) {
    const rowId = `cij-${String(i).padStart(5, '0')}`;
    const imageId = `cim-${String(i).padStart(5, '0')}`;
    await pg.query(
      `INSERT INTO "Image" (id, prompt, status, "createdAt", "updatedAt")
       VALUES ($1, $2, 'PROCESSING', now() - interval '2 hours', now() - interval '2 hours')`,
      [imageId, `prompt of ${imageId}`],
    );
    await pg.query(
      `INSERT INTO "ImageJob" (id, "imageId", status, "createdAt", "updatedAt")
       VALUES ($1, $2, 'QUEUED', now() - interval '2 hours', now() - interval '2 hours')`,
      [rowId, imageId],
    );
    if (i < from + args.healthy) {
      await queue.add('render', payloadFor(rowId, imageId), { jobId: jobIdFor(rowId) });
      out.healthy.push(rowId);
    } else {
      out.lost.push(rowId);
    }
  }
  await queue.close();
  redis.disconnect();
  await pg.end();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

async function states(args, conn) {
  const redis = conn.make();
  redis.on('error', () => {});
  const queue = new Queue(args.queue, { connection: redis, prefix: args.prefix });
  const out = {};
  for (const id of (args.ids || '').split(',').filter(Boolean)) {
    const job = await queue.getJob(id);
    out[id] = job ? { state: await job.getState(), data: job.data } : { state: 'missing' };
  }
  await queue.close();
  redis.disconnect();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

async function work(args, conn) {
  const timeoutMs = args['timeout-ms'] || 30000;
  let taken = 0;
  let resolveAll;
  const all = new Promise((r) => (resolveAll = r));
  // bullmq does not close a connection it was given: this one is closed below, or the process
  // would stay alive on it.
  const connection = conn.make();
  connection.on('error', () => {});
  const worker = new Worker(
    args.queue,
    async (job) => {
      process.stdout.write(`${JSON.stringify({ event: 'completed', id: job.id, data: job.data })}\n`);
      taken += 1;
      // The N-th job is the last: no further one is taken, and close() below waits for this
      // one to be marked completed.
      if (taken >= args.count) {
        worker.pause(true);
        resolveAll(true);
      }
      return 'ok';
    },
    { connection, prefix: args.prefix, concurrency: 1 },
  );
  worker.on('error', () => {});
  const timer = new Promise((r) => setTimeout(() => r(false), timeoutMs).unref());
  const finished = await Promise.race([all, timer]);
  await worker.close();
  connection.disconnect();
  return finished ? 0 : 3;
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const args = parseArgs(rest, {
    redis: 'string', pg: 'string', prefix: 'string', queue: 'string', healthy: 'int', lost: 'int',
    ids: 'string', count: 'int', 'timeout-ms': 'int', from: 'int',
  });
  const conn = redisConnection(args.redis || process.env.RECLAIM_REDIS_URL);
  if (!args.queue || !args.prefix) throw new UsageError('--queue and --prefix are required');
  if (command === 'seed') {
    if (!Number.isInteger(args.healthy) || !Number.isInteger(args.lost)) throw new UsageError('--healthy N and --lost M are required');
    return seed(args, conn);
  }
  if (command === 'states') return states(args, conn);
  if (command === 'work') {
    if (!(args.count >= 1)) throw new UsageError('--count N (at least 1) is required');
    return work(args, conn);
  }
  throw new UsageError(`unknown command '${command}' (seed, states, work)`);
}

runMain('cluster-incident', main);
