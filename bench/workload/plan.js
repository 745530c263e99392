'use strict';
// What the benchmark workload contains, decided before any I/O and the same for the same
// inputs: candidate rows with the queue entries that decide their verdict, a background of
// healthy jobs in every BullMQ state, and DB-only history. Everything is drawn from streams keyed
// by (seed, stream, index), so the PostgreSQL side depends only on (seed, candidates, rows) and
// the Redis side only adds jobs when the queue size grows.

const { D, rngAt, uniqueId, pick } = require('./common');

const H = 3600 * 1000;
const M = 60 * 1000;

const DOMAIN_MIX = [['slide', 0.25], ['video', 0.25], ['document', 0.2], ['image', 0.15], ['narration', 0.15]];
const CANDIDATE_TYPES = {
  slide: [['GENERATE', 0.6], ['EXPORT', 0.4]],
  video: [['GENERATE', 0.4], ['COMPOSE', 0.3], ['EXPORT', 0.3]],
  document: [['PARSE', 1]],
  image: [[null, 1]],
  narration: [[null, 1]],
};
const BACKGROUND_TYPES = Object.assign({}, CANDIDATE_TYPES, { document: [['PARSE', 0.8], ['OCR', 0.2]] });
// Candidates found by the direct lookup, by the state their current-id job is in.
const DIRECT_MIX = [['waiting', 0.4], ['delayed', 0.2], ['prioritized', 0.15], ['active', 0.15], ['waiting-children', 0.1]];
// Candidates only the scan finds: a legacy auto-numbered job in one of these states.
const LEGACY_MIX = [['waiting', 0.6], ['delayed', 0.2], ['prioritized', 0.2]];
// The healthy background, by BullMQ state.
const BACKGROUND_MIX = [
  ['completed', 0.52], ['failed', 0.08], ['waiting', 0.27], ['delayed', 0.06], ['prioritized', 0.05], ['active', 0.02],
];
const BACKGROUND_FINISHED = 0.6;
const WORDS = ('quarterly revenue roadmap onboarding safety launch product review kickoff summary market analysis ' +
  'hiring plan design system customer journey retrospective budget forecast training security audit').split(' ');
const VOICES = ['alloy', 'verse', 'sage', 'coral', 'ember'];
const ERRORS = {
  slide: 'LLM request timed out after 120s', video: 'Render node evicted', document: 'Parser out of memory',
  image: 'GPU worker lost', narration: 'TTS provider returned 429',
};

function words(rng, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

/** A parent row (Slide, Video, ...) fully determined by (seed, stream, index). */
function parentRow(seed, stream, index, domain, status, exportStatus, ageMs) {
  const dom = D.DOMAINS[domain];
  const rng = rngAt(seed, `parent:${stream}:${domain}`, index);
  const p = { table: dom.parentTable, id: uniqueId(dom.parentTable, seed, `parent:${stream}:${domain}`, index), status, updatedAgeMs: ageMs };
  p.createdAgeMs = ageMs + rng.int(M, 6 * H);
  if (dom.parentHasExportStatus) p.exportStatus = exportStatus || 'NONE';
  if (p.table === 'Slide' || p.table === 'Video' || p.table === 'Document') p.title = words(rng, 3);
  if (p.table === 'Image') p.prompt = `a ${words(rng, 2)} illustration, ${rng.pick(['watercolor', 'isometric', 'flat'])}`;
  if (p.table === 'Narration') {
    p.text = `Welcome to the ${words(rng, 4)} session.`;
    p.voice = rng.pick(VOICES);
  }
  return p;
}

/** The payload the app puts in job.data (same shapes as refapp/seed.js). */
function payload(rng, domain, type, rowIdValue, parent) {
  switch (domain) {
    case 'slide':
      return type === 'EXPORT'
        ? { jobId: rowIdValue, slideId: parent.id, format: rng.pick(['pdf', 'pptx']), locale: 'en-US' }
        : { jobId: rowIdValue, slideId: parent.id, prompt: `Deck about ${parent.title}`, theme: rng.pick(['corporate', 'minimal', 'vivid']), slideCount: rng.int(6, 24) };
    case 'video':
      if (type === 'COMPOSE') {
        return {
          jobId: rowIdValue, videoId: parent.id, title: parent.title,
          tracks: [{ position: 0, kind: 'VIDEO', assetUrl: `https://assets.example.invalid/videos/${parent.id}/main.mp4`, startMs: 0, durationMs: rng.int(15, 180) * 1000 }],
        };
      }
      return type === 'EXPORT'
        ? { jobId: rowIdValue, videoId: parent.id, format: 'mp4', quality: rng.pick(['720p', '1080p', '4k']) }
        : { jobId: rowIdValue, videoId: parent.id, script: `Explainer: ${parent.title}`, resolution: '1920x1080', durationSec: rng.int(30, 240) };
    case 'document':
      return type === 'OCR'
        ? { jobId: rowIdValue, documentId: parent.id, page: rng.int(1, 40), language: rng.pick(['eng', 'deu', 'kor']) }
        : { jobId: rowIdValue, documentId: parent.id, sourceUrl: `https://uploads.example.invalid/${parent.id}.pdf`, mimeType: 'application/pdf' };
    case 'image':
      return { jobId: rowIdValue, imageId: parent.id, prompt: parent.prompt, width: 1024, height: rng.pick([768, 1024]) };
    case 'narration':
      return { jobId: rowIdValue, narrationId: parent.id, text: parent.text, voice: parent.voice };
    default:
      throw new Error(domain);
  }
}

function jobRowOf(domain, type, id, parent, status, ageMs, rng, error) {
  const dom = D.DOMAINS[domain];
  return {
    table: dom.table, id, parentId: parent.id, type: dom.types ? type : null, status,
    progress: status === 'COMPLETED' ? 100 : status === 'QUEUED' ? 0 : rng.int(5, 90),
    error: error || null, createdAgeMs: ageMs + rng.int(0, 2 * H), updatedAgeMs: ageMs,
  };
}

/**
 * A job spec for the Redis writer. `id` null = legacy (bullmq numbers it from the queue's id
 * counter). Times are ages in ms before the build's reference time.
 */
function jobSpec(rng, domain, type, row, parent, state, ageMs, legacy) {
  const queue = D.queueFor(domain, type);
  const s = {
    queue, id: legacy ? null : D.currentJobId(domain, type, row.id), legacy: !!legacy, name: D.jobNameFor(domain, type),
    data: JSON.stringify(payload(rng, domain, type, row.id, parent)), state, ageMs, rowId: row.id,
  };
  if (state === 'delayed') {
    s.delayMs = ageMs + rng.int(6, 20) * H; // due 6-20 h from now
    s.attempts = 3;
  }
  if (state === 'prioritized') s.priority = rng.int(2, 10);
  if (state === 'active') {
    s.processedAgeMs = Math.max(0, ageMs - rng.int(1000, 60000));
    s.lock = rng.chance(0.5); // half held by a live worker, half by one that died
  }
  if (state === 'completed' || state === 'failed') {
    s.processedAgeMs = Math.max(0, ageMs - rng.int(1000, 60000));
    s.finishedAgeMs = Math.max(0, s.processedAgeMs - rng.int(1000, 120000));
    if (state === 'failed') s.failedReason = ERRORS[domain];
  }
  return s;
}

/** Counts the seeder already put in place, from its manifest (zero when there is no seeder part). */
function seederSummary(manifest) {
  const s = { candidates: 0, direct: 0, scanNeeded: 0, jobs: 0, legacyJobs: 0, jobRows: 0 };
  if (!manifest) return s;
  for (const r of manifest.rows) {
    if (r.candidate) {
      s.candidates++;
      if (r.expectedVerdict === 'SCHEDULED' && r.foundBy === 'direct') s.direct++;
      else s.scanNeeded++;
    }
    if (r.foundBy === 'scan' || (r.retained && r.retained.legacy)) s.legacyJobs++;
  }
  for (const states of Object.values(manifest.counts.redis)) for (const n of Object.values(states)) s.jobs += n;
  for (const t of Object.keys(D.JOB_TABLES)) s.jobRows += (manifest.counts.tables[t] || { total: 0 }).total;
  return s;
}

/**
 * The incident workload. opts: {seed, candidates, jobs, rows, directFraction, seeder (summary)}.
 * Returns {candidates: [...], background: {count, rowBudget, at(j)}, history: {count, at(h)}, counts}.
 */
function incidentPlan(opts) {
  const { seed, directFraction } = opts;
  const seeder = opts.seeder || seederSummary(null);
  const directTotal = Math.round(opts.candidates * directFraction);
  const nDirect = Math.max(0, directTotal - seeder.direct);
  const nLegacy = Math.max(0, opts.candidates - directTotal - seeder.scanNeeded);

  const candidates = [];
  let candidateJobs = 0;
  let childRows = 0;
  let legacyCandidateJobs = 0;
  for (let i = 0; i < nDirect + nLegacy; i++) {
    const rng = rngAt(seed, 'candidate', i);
    const domain = pick(rng, DOMAIN_MIX);
    let type = pick(rng, CANDIDATE_TYPES[domain]);
    const legacy = i >= nDirect;
    let state = pick(rng, legacy ? LEGACY_MIX : DIRECT_MIX);
    if (state === 'waiting-children') {
      // Flows exist where the app builds them: video generation over an image render, document
      // parsing over OCR pages.
      if (domain === 'video') type = 'GENERATE';
      else if (domain !== 'document') state = 'waiting';
    }
    if (domain === 'narration' && state === 'prioritized') state = 'waiting';
    const ageMs = rng.int(2 * H + 5 * M, 48 * H);
    const status = state === 'active' || state === 'waiting-children' || (legacy && rng.chance(0.3)) ? 'PROCESSING' : 'QUEUED';
    const column = D.parentColumnFor(domain, type);
    const parent = parentRow(seed, 'candidate', i, domain, column === 'status' ? 'PROCESSING' : 'READY',
      column === 'exportStatus' ? 'PROCESSING' : 'NONE', ageMs + 30 * M);
    const row = jobRowOf(domain, type, uniqueId(D.DOMAINS[domain].table, seed, 'candidate', i), parent, status, ageMs, rng);
    const c = { domain, type, kind: legacy ? `legacy-${state}` : `direct-${state}`, expected: legacy ? 'scan' : 'direct', row, parent, jobs: [], extraRows: [], extraParents: [] };
    const main = jobSpec(rng, domain, type, row, parent, state, ageMs, legacy);
    c.jobs.push(main);
    if (legacy) legacyCandidateJobs++;
    if (legacy && rng.chance(0.1)) {
      // The current-id job completed but the row update was lost; an older legacy job still runs.
      c.jobs.push(jobSpec(rng, domain, type, row, parent, 'completed', ageMs + 10 * M, false));
      c.kind += '+current-completed';
    }
    if (state === 'waiting-children') {
      main.children = [];
      const nChildren = domain === 'video' ? 1 : 2;
      for (let k = 0; k < nChildren; k++) {
        const childDomain = domain === 'video' ? 'image' : 'document';
        const childType = domain === 'video' ? null : 'OCR';
        const childAge = rng.int(20 * 1000, 9 * M);
        const childParent = domain === 'video'
          ? parentRow(seed, `child${k}`, i, 'image', 'PROCESSING', null, childAge) : parent;
        if (childParent !== parent) c.extraParents.push(childParent);
        const crow = jobRowOf(childDomain, childType, uniqueId(D.DOMAINS[childDomain].table, seed, 'candidate', i, 1 + k), childParent, 'QUEUED', childAge, rng);
        c.extraRows.push(crow);
        const cs = jobSpec(rng, childDomain, childType, crow, childParent, 'waiting', childAge, false);
        cs.parentJob = main;
        main.children.push(cs);
        childRows++;
      }
    }
    candidateJobs += c.jobs.length + (main.children ? main.children.length : 0);
    candidates.push(c);
  }

  const seederJobs = seeder.jobs;
  const bgCount = Math.max(0, opts.jobs - seederJobs - candidateJobs);
  const legacyTarget = Math.round(opts.jobs * 0.1);
  const legacyBg = Math.max(0, legacyTarget - seeder.legacyJobs - legacyCandidateJobs);
  const pLegacy = bgCount > 0 ? Math.min(1, legacyBg / (bgCount * BACKGROUND_FINISHED)) : 0;
  // Rows exist for the first `rowBudget` background jobs whatever the queue size, so a run with
  // a doubled queue reads exactly the same database.
  const rowBudget = Math.round(opts.rows * 0.45);
  const fixedRows = seeder.jobRows + candidates.length + childRows;
  const historyCount = Math.max(0, opts.rows - fixedRows - rowBudget);

  const background = {
    count: bgCount,
    rowBudget,
    at(j) {
      const rng = rngAt(seed, 'background', j);
      const domain = pick(rng, DOMAIN_MIX);
      const type = pick(rng, BACKGROUND_TYPES[domain]);
      const state = pick(rng, BACKGROUND_MIX);
      const finished = state === 'completed' || state === 'failed';
      const ageMs = finished ? rng.int(10 * M, 72 * H) : rng.int(60 * 1000, 10 * M);
      const column = D.parentColumnFor(domain, type);
      const parentKey = Math.floor(j / 4);
      const parent = parentRow(seed, 'background', parentKey, domain, 'READY', column === 'exportStatus' ? 'READY' : 'NONE', 72 * H);
      const status = state === 'completed' ? 'COMPLETED' : state === 'failed' ? 'FAILED' : state === 'active' ? 'PROCESSING' : 'QUEUED';
      const row = jobRowOf(domain, type, uniqueId(D.DOMAINS[domain].table, seed, 'background', j), parent, status, ageMs, rng,
        state === 'failed' ? ERRORS[domain] : null);
      const legacy = finished && rng.float() < pLegacy;
      return { domain, type, state, row, parent, parentKey: `${domain}:${parentKey}`, job: jobSpec(rng, domain, type, row, parent, state, ageMs, legacy) };
    },
  };

  const domains = Object.keys(D.DOMAINS);
  const history = {
    count: historyCount,
    at(h) {
      const rng = rngAt(seed, 'history', h);
      const domain = domains[h % domains.length];
      const dom = D.DOMAINS[domain];
      const parentKey = Math.floor(h / 20); // four rows per parent
      const parent = parentRow(seed, 'history', parentKey, domain, 'READY', dom.parentHasExportStatus ? 'READY' : null, 30 * 24 * H);
      const ok = rng.chance(0.9);
      const type = dom.types ? rng.pick(dom.types) : null;
      const row = jobRowOf(domain, type, uniqueId(dom.table, seed, 'history', h), parent, ok ? 'COMPLETED' : 'FAILED', rng.int(10 * M, 30 * 24 * H), rng,
        ok ? null : ERRORS[domain]);
      return { row, parent, parentKey: `${domain}:${parentKey}` };
    },
  };

  const counts = {
    candidates: seeder.candidates + candidates.length,
    candidatesBulk: candidates.length,
    direct: seeder.direct + nDirect,
    scanNeeded: seeder.scanNeeded + nLegacy,
    seederCandidates: seeder.candidates,
    jobsTarget: opts.jobs,
    candidateJobs,
    backgroundJobs: bgCount,
    legacyTarget,
    rowsTarget: opts.rows,
    rowBudget,
    historyRows: historyCount,
  };
  return { candidates, background, history, counts };
}

/**
 * The direct-lookup fixture: one queue whose wait list holds `waitSize` jobs, and `candidates`
 * image rows whose current-id jobs sit in every runnable state (80 %), are missing (their
 * legacy job elsewhere) or are retained finished jobs. Redis only; the candidates are listed.
 */
function lookupPlan({ seed, candidates, waitSize }) {
  const MIX = [
    ['waiting', 0.15], ['delayed', 0.2], ['prioritized', 0.2], ['active', 0.15], ['waiting-children', 0.1],
    ['legacy-waiting', 0.05], ['legacy-delayed', 0.075], ['legacy-prioritized', 0.05],
    ['retained-completed', 0.0125], ['retained-failed', 0.0125],
  ];
  const out = { candidates: [], jobs: [], background: [] };
  let inWait = 0;
  for (let i = 0; i < candidates; i++) {
    const rng = rngAt(seed, 'lookup', i);
    const kind = pick(rng, MIX);
    const ageMs = rng.int(2 * H + 5 * M, 48 * H);
    const parent = parentRow(seed, 'lookup', i, 'image', 'PROCESSING', null, ageMs);
    const row = jobRowOf('image', null, uniqueId('ImageJob', seed, 'lookup', i), parent, 'QUEUED', ageMs, rng);
    const legacy = kind.startsWith('legacy-');
    const state = kind.replace(/^legacy-|^retained-/, '');
    const job = jobSpec(rng, 'image', null, row, parent, state, ageMs, legacy);
    if (state === 'waiting') inWait++;
    if (state === 'waiting-children') {
      const crow = jobRowOf('image', null, uniqueId('ImageJob', seed, 'lookup', i, 1), parent, 'QUEUED', 60 * 1000, rng);
      const child = jobSpec(rng, 'image', null, crow, parent, 'waiting', 60 * 1000, false);
      child.queue = 'image-upscale';
      child.id = `upscale-${crow.id}`;
      child.parentJob = job;
      job.children = [child];
    }
    out.candidates.push({ id: row.id, kind, expected: legacy || kind.startsWith('retained-') ? 'scan' : 'direct' });
    out.jobs.push(job);
  }
  if (inWait > waitSize) throw new Error(`a wait list of ${waitSize} cannot hold the ${inWait} waiting candidate jobs`);
  const fill = waitSize - inWait;
  const finished = 10000;
  for (let j = 0; j < fill + finished; j++) {
    const rng = rngAt(seed, 'lookup-bg', j);
    const waiting = j < fill;
    const ageMs = waiting ? rng.int(60 * 1000, 10 * M) : rng.int(10 * M, 72 * H);
    const parent = parentRow(seed, 'lookup-bg', j, 'image', 'READY', null, ageMs);
    const row = jobRowOf('image', null, uniqueId('ImageJob', seed, 'lookup-bg', j), parent, waiting ? 'QUEUED' : 'COMPLETED', ageMs, rng);
    out.background.push(jobSpec(rng, 'image', null, row, parent, waiting ? 'waiting' : 'completed', ageMs, false));
  }
  return out;
}

module.exports = { incidentPlan, lookupPlan, seederSummary, H, M };
