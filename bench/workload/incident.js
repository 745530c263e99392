'use strict';
// "The incident" (issue 30): the worst day for one domain. A Redis lost its data, so N rows of
// "IncidentJob" are QUEUED, two hours old, and have no job in Redis at all (the orphans); N more
// rows of the same age are QUEUED with their job waiting in BullMQ (the healthy ones, written
// key for key as bullmq 6.7.0's add leaves them by workload/bullwrites.js and read back through
// bullmq by workload/validate.js). Every row has a parent row ("IncidentBatch", PROCESSING) of
// its own, for the parent-rule variants. Finally the queue's `meta` hash is deleted: BullMQ's
// Queue writes it only when it opens, so after a data loss it is gone until the app restarts.
//
// Row ids: o<7 digits> for orphans, h<7 digits> for healthy rows; job id incident-<row id>;
// payload {jobId, batchId, kind, attempt, settings, tags} as jsonb (what the restore query reads).

const { D, rngAt, pgTime } = require('./common');
const { esc, psql, psqlFeed } = require('./pgload');
const { BullWriter } = require('./bullwrites');

const QUEUE = 'incident';
const JOB_NAME = 'process';
const JOB_ID_PREFIX = 'incident-';
const H = 3600 * 1000;

const SCHEMA = `
CREATE TABLE "IncidentBatch" (id text PRIMARY KEY, status text NOT NULL, "updatedAt" timestamp(3) NOT NULL);
CREATE TABLE "IncidentJob" (
  id text PRIMARY KEY, status text NOT NULL, "updatedAt" timestamp(3) NOT NULL, type text NOT NULL,
  payload jsonb NOT NULL, "parentId" text NOT NULL REFERENCES "IncidentBatch" (id), progress int NOT NULL DEFAULT 0, error text);
CREATE INDEX "IncidentJob_status_updatedAt_idx" ON "IncidentJob" (status, "updatedAt");
CREATE INDEX "IncidentJob_parentId_idx" ON "IncidentJob" ("parentId");
-- the seed-style peer's own audit trail (Reclaim's is reclaim.audit)
CREATE TABLE peer_audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), row_id text NOT NULL, action text NOT NULL,
  observed_status text NOT NULL, observed_updated_at text NOT NULL, result text NOT NULL, detail text);
`;

const rowId = (kind, i) => `${kind}${String(i).padStart(7, '0')}`;
const jobIdOf = (id) => `${JOB_ID_PREFIX}${id}`;
const parentIdOf = (id) => `b${id}`;

/** The payload of row `id` (index i): deterministic, ~250 bytes, one JSON object. */
function payloadOf(seed, kind, i) {
  const rng = rngAt(seed, `incident:${kind}`, i);
  const id = rowId(kind, i);
  return {
    jobId: id, batchId: parentIdOf(id), kind: rng.pick(['render', 'transcode', 'thumbnail']), attempt: 1,
    settings: { width: rng.pick([640, 1280, 1920]), height: rng.pick([360, 720, 1080]), codec: rng.pick(['h264', 'vp9', 'av1']), bitrateKbps: rng.int(800, 8000) },
    tags: ['incident', `shard-${rng.int(0, 63)}`, `tenant-${rng.int(1, 500)}`],
    source: `https://uploads.example.invalid/${id}/source.mp4`,
  };
}

/** Streams COPY text for both tables into psql, one transaction, then ANALYZE. */
function copyRows(url, { orphans, healthy, seed, now }) {
  const all = [['o', orphans], ['h', healthy]];
  // Two hours old, each row a few ms apart (exactly what timestamp(3) keeps).
  const updated = (kind, i) => pgTime(now - 2 * H - (kind === 'o' ? 0 : 500000) - (i % 100000));
  const gen = function* () {
    yield 'BEGIN;\nCOPY "IncidentBatch" (id, status, "updatedAt") FROM STDIN;\n';
    for (const [kind, n] of all) {
      let buf = [];
      for (let i = 0; i < n; i++) {
        buf.push(`${parentIdOf(rowId(kind, i))}\tPROCESSING\t${updated(kind, i)}`);
        if (buf.length === 5000) { yield `${buf.join('\n')}\n`; buf = []; }
      }
      if (buf.length) yield `${buf.join('\n')}\n`;
    }
    yield '\\.\nCOPY "IncidentJob" (id, status, "updatedAt", type, payload, "parentId", progress, error) FROM STDIN;\n';
    for (const [kind, n] of all) {
      let buf = [];
      for (let i = 0; i < n; i++) {
        const id = rowId(kind, i);
        buf.push(`${id}\tQUEUED\t${updated(kind, i)}\tRENDER\t${esc(JSON.stringify(payloadOf(seed, kind, i)))}\t${parentIdOf(id)}\t0\t\\N`);
        if (buf.length === 5000) { yield `${buf.join('\n')}\n`; buf = []; }
      }
      if (buf.length) yield `${buf.join('\n')}\n`;
    }
    yield '\\.\nCOMMIT;\nANALYZE "IncidentBatch", "IncidentJob";\n';
  };
  return psqlFeed(url, gen(), 'COPY');
}

/**
 * Builds the incident into database `pg` (created empty by the caller) and Redis `redis` (an
 * empty database). Returns the summary validate.js reads (samples, counts) plus the sizes.
 */
async function buildMassIncident({ pg, redis, redisClient, orphans, healthy, seed = 7, samples = 12 }) {
  const now = Date.now();
  const t0 = Date.now();
  await psql(pg, SCHEMA);
  const pgPart = copyRows(pg, { orphans, healthy, seed, now }).then(() => (Date.now() - t0) / 1000);
  const redisPart = (async () => {
    const w = new BullWriter(redisClient, { prefix: D.PREFIX, now, url: redis, samplesPerKind: samples });
    for (let i = 0; i < healthy; i++) {
      const id = rowId('h', i);
      await w.add({ queue: QUEUE, id: jobIdOf(id), legacy: false, name: JOB_NAME, data: JSON.stringify(payloadOf(seed, 'h', i)), state: 'waiting', ageMs: 2 * H + 1000, rowId: id });
    }
    await w.finish();
    return { seconds: (Date.now() - t0) / 1000, written: w.written, counts: w.counts(), samples: w.samples };
  })();
  const [pgSeconds, r] = await Promise.all([pgPart, redisPart]);
  return {
    kind: 'mass-incident', seed, builtAt: new Date(now).toISOString(), orphans, healthy, queue: QUEUE, jobName: JOB_NAME,
    pg: { rows: orphans + healthy, parents: orphans + healthy, seconds: pgSeconds },
    redis: { bulkJobs: r.written, seconds: r.seconds, bulkCounts: r.counts, seederCounts: {} },
    samples: r.samples,
  };
}

module.exports = { buildMassIncident, payloadOf, rowId, jobIdOf, parentIdOf, QUEUE, JOB_NAME, JOB_ID_PREFIX };
