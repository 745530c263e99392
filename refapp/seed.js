#!/usr/bin/env node
'use strict';
// Builds a realistic "drifted" incident for Reclaim: job rows in PostgreSQL and job entries in
// Redis made by the real bullmq package (producers, FlowProducer, workers), deterministic from
// --seed and sized by --scale. See README.md for the scenarios and the manifest format.
//
//   node refapp/seed.js [--pg URL] [--redis URL] [--seed N] [--scale N] [--history-rows N]
//                       [--manifest FILE] [--list-background] [--hold] [--reset] [--quiet]
//
// --redis (or RECLAIM_REDIS_URL) may be redis+cluster://h1:p1,h2:p2,...: every connection is then
// an ioredis Cluster, and the key prefix must carry a hash tag (REFAPP_KEY_PREFIX={bull}).

const fs = require('fs');
const IORedis = require('ioredis');
const { Client } = require('pg');
const { Queue, Worker, FlowProducer } = require('bullmq');
const { parseArgs, UsageError, redisOptions, redisConnection, pgOptions, errText, makeRng, sleep } = require('./lib/common');
const D = require('./lib/domains');

const PROG = 'seed';
const THRESHOLD_SECONDS = 3600;
const HOLD_LOCK_MS = 30000; // lock of jobs held by the live "hold" workers (renewed every 15 s)
const CRASH_LOCK_MS = 3000; // lock of jobs whose worker "crashes": expires soon after
const ADD_CHUNK = 1000;
const INSERT_CHUNK = 10000;

const H = 3600 * 1000;
const M = 60 * 1000;

// ---------------------------------------------------------------------------------------------
// Planning: everything random is drawn here, from one seeded stream, before any I/O.
// ---------------------------------------------------------------------------------------------

const ID_PREFIX = {
  Slide: 'sl', SlideJob: 'sj', Video: 'vd', VideoJob: 'vj', Track: 'tr', Document: 'dc',
  DocumentJob: 'dj', Image: 'im', ImageJob: 'ij', Narration: 'nr', NarrationJob: 'nj',
};
const B36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const WORDS = ('quarterly revenue roadmap onboarding safety launch product review kickoff summary ' +
  'market analysis hiring plan design system customer journey retrospective budget forecast ' +
  'training security audit migration strategy partner update release notes').split(' ');
const VOICES = ['alloy', 'verse', 'sage', 'coral', 'ember'];
const ERRORS = {
  slide: ['LLM request timed out after 120s', 'Template "corporate-v2" not found', 'Export renderer crashed (exit 137)'],
  video: ['ffmpeg exited with code 1: Invalid data found when processing input', 'Render node evicted', 'Asset download failed: 404'],
  document: ['PDF is encrypted', 'Unsupported mime type application/x-msdownload', 'Parser out of memory'],
  image: ['Content policy rejection', 'GPU worker lost', 'Upscaler timed out after 300s'],
  narration: ['TTS provider returned 429', 'Text exceeds 5000 characters', 'Voice not available in region'],
};

class Planner {
  constructor(seed, scale, historyRows, listBackground, hold) {
    this.rng = makeRng(seed);
    this.seed = seed;
    this.scale = scale;
    this.historyRows = historyRows;
    this.listBackground = listBackground;
    this.hold = hold;
    this.ids = new Set();
    this.tables = {}; // table -> array of row objects (insert order)
    for (const t of Object.keys(ID_PREFIX)) this.tables[t] = [];
    this.manifestRows = [];
    // Redis work, by phase. Each job spec: { queue, name, data, opts, legacy, mrow, outcome }
    this.finish = {}; // queue -> [spec]  (phase 1: processed to completed/failed by a worker)
    this.held = {}; // queue -> [spec]    (phase 2: taken by a live worker that holds them)
    this.crashed = {}; // queue -> [spec] (phase 2: taken by a worker that then dies)
    this.pending = {}; // queue -> [spec] (phase 3: left waiting / delayed / prioritized)
    this.flows = []; // phase 3: FlowProducer trees
    this.removed = {}; // queue -> [spec] (phase 3: added, then job.remove())
    this.pausedQueues = ['narration-tts'];
    this.redisCounts = {};
    for (const q of D.ALL_QUEUES) {
      this.redisCounts[q] = { wait: 0, active: 0, delayed: 0, prioritized: 0, 'waiting-children': 0, completed: 0, failed: 0 };
    }
    this.stats = { scenarioRows: 0, backgroundRows: 0, historyRows: 0, jobs: 0 };
  }

  newId(table) {
    for (;;) {
      let s = '';
      for (let i = 0; i < 12; i++) s += B36[this.rng.u32() % 36];
      const id = `${ID_PREFIX[table]}_${s}`;
      if (!this.ids.has(id)) {
        this.ids.add(id);
        return id;
      }
    }
  }

  words(n) {
    const out = [];
    for (let i = 0; i < n; i++) out.push(this.rng.pick(WORDS));
    return out.join(' ');
  }

  age(cls) {
    const r = this.rng;
    switch (cls) {
      case 'old': return r.int(2 * H + 5 * M, 48 * H); // candidate age
      case 'fresh': return r.int(20 * 1000, 9 * M); // well under the threshold
      case 'finished': return r.int(10 * M, 72 * H);
      case 'history': return r.int(10 * M, 30 * 24 * H);
      default: throw new Error(cls);
    }
  }

  /** A parent row (Slide, Video, ...) with the given statuses. */
  parent(domain, status, exportStatus, updatedAgeMs) {
    const dom = D.DOMAINS[domain];
    const table = dom.parentTable;
    const id = this.newId(table);
    const upd = updatedAgeMs != null ? updatedAgeMs : this.age('finished');
    const row = { id, status, createdAgeMs: upd + this.rng.int(1 * M, 6 * H), updatedAgeMs: upd };
    if (dom.parentHasExportStatus) row.exportStatus = exportStatus || 'NONE';
    if (table === 'Slide' || table === 'Video' || table === 'Document') row.title = this.words(3);
    if (table === 'Image') row.prompt = `a ${this.words(2)} illustration, ${this.rng.pick(['watercolor', 'isometric', 'photoreal', 'flat'])}`;
    if (table === 'Narration') {
      row.text = `Welcome to the ${this.words(4)} session.`;
      row.voice = this.rng.pick(VOICES);
    }
    this.tables[table].push(row);
    if (table === 'Video') row.tracks = [];
    return row;
  }

  tracks(video) {
    const n = this.rng.int(2, 3);
    const kinds = ['VIDEO', 'AUDIO', 'SUBTITLE'];
    let start = 0;
    for (let p = 0; p < n; p++) {
      const id = this.newId('Track');
      const kind = kinds[p];
      const durationMs = this.rng.int(15, 180) * 1000;
      const ext = kind === 'VIDEO' ? 'mp4' : kind === 'AUDIO' ? 'm4a' : 'vtt';
      const t = {
        id, videoId: video.id, position: p, kind,
        assetUrl: `https://assets.example.invalid/videos/${video.id}/${id}.${ext}`,
        startMs: kind === 'VIDEO' ? start : 0,
        durationMs,
      };
      start += kind === 'VIDEO' ? durationMs : 0;
      this.tables.Track.push(t);
      video.tracks.push(t);
    }
  }

  /** A job row. opts: { type, status, ageMs, progress, error, parent } */
  jobRow(domain, o) {
    const dom = D.DOMAINS[domain];
    const table = dom.table;
    const id = this.newId(table);
    const row = {
      id,
      parentId: o.parent.id,
      type: dom.types ? o.type : null,
      status: o.status,
      progress: o.progress != null ? o.progress : o.status === 'COMPLETED' ? 100 : o.status === 'QUEUED' ? 0 : this.rng.int(5, 90),
      error: o.error || null,
      createdAgeMs: o.ageMs + this.rng.int(0, 2 * H),
      updatedAgeMs: o.ageMs,
    };
    this.tables[table].push(row);
    return row;
  }

  /** The payload the real app puts in job.data for this row. */
  payload(domain, type, row, parent) {
    const r = this.rng;
    switch (domain) {
      case 'slide':
        return type === 'EXPORT'
          ? { jobId: row.id, slideId: parent.id, format: r.pick(['pdf', 'pptx']), locale: 'en-US' }
          : { jobId: row.id, slideId: parent.id, prompt: `Deck about ${parent.title}`, theme: r.pick(['corporate', 'minimal', 'vivid']), slideCount: r.int(6, 24) };
      case 'video':
        if (type === 'COMPOSE') return composePayload(row, parent);
        return type === 'EXPORT'
          ? { jobId: row.id, videoId: parent.id, format: 'mp4', quality: r.pick(['720p', '1080p', '4k']) }
          : { jobId: row.id, videoId: parent.id, script: `Explainer: ${parent.title}`, resolution: '1920x1080', durationSec: r.int(30, 240) };
      case 'document':
        return type === 'OCR'
          ? { jobId: row.id, documentId: parent.id, page: r.int(1, 40), language: r.pick(['eng', 'deu', 'kor']) }
          : { jobId: row.id, documentId: parent.id, sourceUrl: `https://uploads.example.invalid/${parent.id}.pdf`, mimeType: 'application/pdf' };
      case 'image':
        return { jobId: row.id, imageId: parent.id, prompt: parent.prompt, width: 1024, height: r.pick([768, 1024]) };
      case 'narration':
        return { jobId: row.id, narrationId: parent.id, text: parent.text, voice: parent.voice };
      default:
        throw new Error(domain);
    }
  }

  /** A job spec for this row (current id unless legacy). */
  job(domain, type, row, parent, extraOpts, legacy) {
    const queue = D.queueFor(domain, type);
    const opts = Object.assign({}, extraOpts || {});
    if (!legacy) opts.jobId = D.currentJobId(domain, type, row.id);
    return { queue, name: D.jobNameFor(domain, type), data: this.payload(domain, type, row, parent), opts, legacy: !!legacy };
  }

  count(queue, state, n = 1) {
    this.redisCounts[queue][state] += n;
    this.stats.jobs += n;
  }

  push(map, spec) {
    (map[spec.queue] || (map[spec.queue] = [])).push(spec);
  }

  mrow(kind, domain, row, parent, e) {
    const dom = D.DOMAINS[domain];
    const column = D.parentColumnFor(domain, row.type);
    const before = parent[column];
    const m = {
      domain,
      table: dom.table,
      id: row.id,
      type: row.type,
      status: row.status,
      updatedAgeSeconds: Math.round(row.updatedAgeMs / 1000),
      candidate: e.candidate,
      expectedVerdict: e.verdict || null,
      expectedState: e.state || null,
      foundBy: e.foundBy || null,
      currentJobId: D.currentJobId(domain, row.type, row.id),
      queue: e.queue || null,
      bullJobId: e.bullJobId || null,
      expectedAction: e.action || null,
      parent: { table: dom.parentTable, id: parent.id, column, before, after: e.parentAfter || before },
      kind,
    };
    if (e.lockHeld !== undefined) m.lockHeld = e.lockHeld;
    if (e.retained) m.retained = e.retained;
    if (e.children) m.children = e.children;
    if (e.requeueTo) m.requeueTo = e.requeueTo;
    if (e.restorePayload) m.restorePayload = e.restorePayload;
    this.manifestRows.push(m);
    return m;
  }

  // -------------------------------------------------------------------------------------------
  // Scenario helpers
  // -------------------------------------------------------------------------------------------

  /** Candidate row + parent; returns {row, parent}. */
  cand(domain, type, status, parentStatus, exportStatus) {
    const parent = this.parent(domain, parentStatus, exportStatus, this.age('old') - 30 * M);
    const row = this.jobRow(domain, { type, status, ageMs: this.age('old'), parent });
    this.stats.scenarioRows++;
    return { row, parent };
  }

  /** SCHEDULED via a job under the current id in phase 3 (waiting/delayed/prioritized/paused). */
  scheduledPending(kind, domain, type, status, state, opts, pStatus = 'PROCESSING', pExport) {
    const { row, parent } = this.cand(domain, type, status, pStatus, pExport);
    const spec = this.job(domain, type, row, parent, opts, false);
    this.push(this.pending, spec);
    const redisState = state === 'paused' || state === 'waiting' ? 'wait' : state;
    this.count(spec.queue, redisState);
    this.mrow(kind, domain, row, parent, {
      candidate: true, verdict: 'SCHEDULED', state, foundBy: 'direct', queue: spec.queue, bullJobId: spec.opts.jobId,
    });
  }

  /** SCHEDULED only through a legacy auto-numbered job found by the payload scan. */
  scheduledLegacy(kind, domain, type, status, state, opts, pExport) {
    const { row, parent } = this.cand(domain, type, status, type === 'EXPORT' ? 'READY' : 'PROCESSING', pExport);
    const spec = this.job(domain, type, row, parent, opts, true);
    const redisState = state === 'paused' || state === 'waiting' ? 'wait' : state;
    this.count(spec.queue, redisState);
    spec.mrow = this.mrow(kind, domain, row, parent, {
      candidate: true, verdict: 'SCHEDULED', state, foundBy: 'scan', queue: spec.queue, bullJobId: null,
    });
    this.push(this.pending, spec);
  }

  activeHeld(domain, type) {
    const { row, parent } = this.cand(domain, type, 'PROCESSING', 'PROCESSING');
    if (type === 'COMPOSE') this.tracks(parent);
    const spec = this.job(domain, type, row, parent, {}, false);
    this.push(this.held, spec);
    this.count(spec.queue, 'active');
    this.mrow('active-held-by-live-worker', domain, row, parent, {
      candidate: true, verdict: 'SCHEDULED', state: 'active', foundBy: 'direct', queue: spec.queue,
      bullJobId: spec.opts.jobId, lockHeld: this.hold,
    });
  }

  activeCrashed(domain, type) {
    const { row, parent } = this.cand(domain, type, 'PROCESSING', 'PROCESSING');
    const spec = this.job(domain, type, row, parent, {}, false);
    this.push(this.crashed, spec);
    this.count(spec.queue, 'active');
    this.mrow('active-worker-died-lock-expired', domain, row, parent, {
      candidate: true, verdict: 'SCHEDULED', state: 'active', foundBy: 'direct', queue: spec.queue,
      bullJobId: spec.opts.jobId, lockHeld: false,
    });
  }

  /** ABSENT → FAIL with nothing in Redis at all. */
  orphan(kind, domain, type, status, pStatus, pExport) {
    const { row, parent } = this.cand(domain, type, status, pStatus, pExport);
    const column = D.parentColumnFor(domain, type);
    const before = parent[column];
    this.mrow(kind, domain, row, parent, {
      candidate: true, verdict: 'ABSENT', action: 'FAIL',
      parentAfter: before === 'PROCESSING' || before === 'PENDING' ? 'FAILED' : before,
    });
    return { row, parent };
  }

  /** ABSENT → FAIL: a finished (completed/failed) job is retained under the current id. */
  retainedFinished(kind, domain, type, outcome, pStatus = 'PROCESSING', pExport) {
    const { row, parent } = this.cand(domain, type, 'PROCESSING', pStatus, pExport);
    const spec = this.job(domain, type, row, parent, {}, false);
    spec.outcome = outcome;
    this.push(this.finish, spec);
    this.count(spec.queue, outcome);
    const column = D.parentColumnFor(domain, type);
    const before = parent[column];
    this.mrow(kind, domain, row, parent, {
      candidate: true, verdict: 'ABSENT', state: outcome, foundBy: 'direct', queue: spec.queue,
      bullJobId: spec.opts.jobId, action: 'FAIL',
      parentAfter: before === 'PROCESSING' || before === 'PENDING' ? 'FAILED' : before,
    });
  }

  /** ABSENT → FAIL: the queue entry was removed with job.remove(). */
  queuedRemoved(domain, type, pExport) {
    const { row, parent } = this.cand(domain, type, 'QUEUED', type === 'EXPORT' ? 'READY' : 'PROCESSING', pExport);
    const spec = this.job(domain, type, row, parent, {}, false);
    this.push(this.removed, spec);
    this.stats.jobs++;
    const column = D.parentColumnFor(domain, type);
    const before = parent[column];
    this.mrow('queued-job-removed', domain, row, parent, {
      candidate: true, verdict: 'ABSENT', action: 'FAIL',
      parentAfter: before === 'PROCESSING' || before === 'PENDING' ? 'FAILED' : before,
    });
  }

  /** Non-candidate: fresh in-flight row without a queue entry (too young to judge). */
  freshOrphan(domain, type, status) {
    const parent = this.parent(domain, type === 'EXPORT' ? 'READY' : 'PROCESSING', type === 'EXPORT' ? 'PROCESSING' : 'NONE', this.age('fresh'));
    const row = this.jobRow(domain, { type, status, ageMs: this.age('fresh'), parent });
    this.stats.scenarioRows++;
    this.mrow(`fresh-${status.toLowerCase()}-no-queue-entry`, domain, row, parent, { candidate: false });
  }

  /** Non-candidate: old finished row (no queue entry; finished long ago). */
  oldFinished(domain, type, status) {
    const ps = status === 'COMPLETED' ? 'READY' : 'FAILED';
    const parent = this.parent(domain, type === 'EXPORT' ? 'READY' : ps, type === 'EXPORT' ? ps : 'NONE');
    const row = this.jobRow(domain, {
      type, status, ageMs: this.age('old'), parent, error: status === 'FAILED' ? this.rng.pick(ERRORS[domain]) : null,
      progress: status === 'COMPLETED' ? 100 : this.rng.int(0, 90),
    });
    this.stats.scenarioRows++;
    this.mrow(`old-${status.toLowerCase()}-row`, domain, row, parent, { candidate: false });
  }

  // -------------------------------------------------------------------------------------------
  // One scale unit of scenarios
  // -------------------------------------------------------------------------------------------

  unit() {
    // --- slide -------------------------------------------------------------------------
    this.scheduledPending('waiting', 'slide', 'GENERATE', 'QUEUED', 'waiting', {});
    this.scheduledPending('delayed-retry', 'slide', 'EXPORT', 'QUEUED', 'delayed',
      { delay: this.rng.int(6, 20) * H, attempts: 3, backoff: { type: 'exponential', delay: 60000 } }, 'READY', 'PROCESSING');
    this.activeHeld('slide', 'GENERATE');
    this.orphan('orphan-generate-parent-already-ready', 'slide', 'GENERATE', 'PROCESSING', 'READY');
    this.orphan('orphan-generate-parent-processing', 'slide', 'GENERATE', 'PROCESSING', 'PROCESSING');
    this.retainedFinished('retained-completed-row-processing', 'slide', 'EXPORT', 'completed', 'READY', 'PROCESSING');
    this.scheduledLegacy('legacy-id-waiting', 'slide', 'GENERATE', 'QUEUED', 'waiting', {});
    this.queuedRemoved('slide', 'EXPORT', 'PROCESSING');

    // --- video -------------------------------------------------------------------------
    this.scheduledPending('prioritized', 'video', 'GENERATE', 'QUEUED', 'prioritized', { priority: this.rng.int(2, 10) });
    this.activeHeld('video', 'COMPOSE');
    this.flowVideo();
    this.restorableCompose(null);
    this.restorableCompose('failed');
    this.orphan('orphan-export-parent-ready', 'video', 'EXPORT', 'PROCESSING', 'READY', 'PROCESSING');
    this.retainedFinished('retained-failed-row-processing', 'video', 'GENERATE', 'failed');
    this.scheduledLegacy('legacy-id-delayed', 'video', 'EXPORT', 'QUEUED', 'delayed', { delay: this.rng.int(6, 20) * H }, 'PROCESSING');
    this.completedCurrentLegacyWaiting();

    // --- document ----------------------------------------------------------------------
    this.scheduledPending('waiting', 'document', 'PARSE', 'QUEUED', 'waiting', {});
    this.activeHeld('document', 'PARSE');
    this.orphan('orphan-processing-no-queue-entry', 'document', 'PARSE', 'PROCESSING', 'PROCESSING');
    this.queuedRemoved('document', 'PARSE');
    {
      const { row, parent } = this.cand('document', 'OCR', 'PROCESSING', 'PROCESSING');
      this.mrow('orphan-of-unreconciled-type-ocr', 'document', row, parent, { candidate: false });
    }
    this.flowDocument();
    this.legacyCompletedOnly();

    // --- image -------------------------------------------------------------------------
    this.scheduledPending('waiting', 'image', null, 'QUEUED', 'waiting', {});
    this.activeCrashed('image', null);
    this.retainedFinished('retained-completed-row-processing', 'image', null, 'completed');
    this.orphan('orphan-processing-no-queue-entry', 'image', null, 'PROCESSING', 'PROCESSING');
    this.scheduledLegacy('legacy-id-prioritized', 'image', null, 'QUEUED', 'prioritized', { priority: this.rng.int(1, 5) });

    // --- narration (the whole queue is paused) -----------------------------------------
    this.scheduledPending('paused-queue', 'narration', null, 'QUEUED', 'paused', {});
    this.scheduledPending('paused-queue', 'narration', null, 'QUEUED', 'paused', {});
    this.scheduledPending('delayed-in-paused-queue', 'narration', null, 'QUEUED', 'delayed', { delay: this.rng.int(6, 20) * H });
    this.queuedRemoved('narration', null);
    this.retainedFinished('retained-failed-row-processing', 'narration', null, 'failed');
    this.scheduledLegacy('legacy-id-paused-queue', 'narration', null, 'QUEUED', 'paused', {});

    // --- non-candidates in every domain --------------------------------------------------
    for (const [domain, type] of [['slide', 'GENERATE'], ['slide', 'EXPORT'], ['video', 'COMPOSE'], ['document', 'PARSE'], ['image', null], ['narration', null]]) {
      this.freshOrphan(domain, type, 'PROCESSING');
      this.freshOrphan(domain, type, 'QUEUED');
    }
    for (const [domain, type] of [['slide', 'GENERATE'], ['video', 'EXPORT'], ['document', 'PARSE'], ['image', null], ['narration', null]]) {
      this.oldFinished(domain, type, 'COMPLETED');
      this.oldFinished(domain, type, 'FAILED');
    }
  }

  /** VideoJob GENERATE whose job waits (waiting-children) on an image render child. */
  flowVideo() {
    const { row, parent } = this.cand('video', 'GENERATE', 'PROCESSING', 'PROCESSING');
    const pspec = this.job('video', 'GENERATE', row, parent, {}, false);
    // The child: an image render for a fresh QUEUED ImageJob row (not a candidate).
    const img = this.parent('image', 'PROCESSING', null, this.age('fresh'));
    const crow = this.jobRow('image', { status: 'QUEUED', ageMs: this.age('fresh'), parent: img });
    this.stats.scenarioRows++;
    const cspec = this.job('image', null, crow, img, {}, false);
    this.flows.push({ parent: pspec, children: [cspec] });
    this.count(pspec.queue, 'waiting-children');
    this.count(cspec.queue, 'wait');
    this.mrow('flow-parent-waiting-children', 'video', row, parent, {
      candidate: true, verdict: 'SCHEDULED', state: 'waiting-children', foundBy: 'direct', queue: pspec.queue,
      bullJobId: pspec.opts.jobId, children: [{ queue: cspec.queue, bullJobId: cspec.opts.jobId, state: 'waiting' }],
    });
    this.mrow('flow-child-fresh-row', 'image', crow, img, {
      candidate: false, state: 'waiting', queue: cspec.queue, bullJobId: cspec.opts.jobId,
    });
  }

  /** DocumentJob PARSE waiting on two OCR children in the unreconciled document-ocr queue. */
  flowDocument() {
    const { row, parent } = this.cand('document', 'PARSE', 'PROCESSING', 'PROCESSING');
    const pspec = this.job('document', 'PARSE', row, parent, {}, false);
    const children = [];
    for (let k = 0; k < 2; k++) {
      const crow = this.jobRow('document', { type: 'OCR', status: 'QUEUED', ageMs: this.age('fresh'), parent });
      this.stats.scenarioRows++;
      const cspec = this.job('document', 'OCR', crow, parent, {}, false);
      children.push(cspec);
      this.count(cspec.queue, 'wait');
      // Fresh OCR rows: not candidates (too young, and OCR is not a reconciled type).
      this.mrow('flow-child-fresh-row', 'document', crow, parent, {
        candidate: false, state: 'waiting', queue: cspec.queue, bullJobId: cspec.opts.jobId,
      });
    }
    this.flows.push({ parent: pspec, children });
    this.count(pspec.queue, 'waiting-children');
    this.mrow('flow-parent-waiting-children', 'document', row, parent, {
      candidate: true, verdict: 'SCHEDULED', state: 'waiting-children', foundBy: 'direct', queue: pspec.queue,
      bullJobId: pspec.opts.jobId, children: children.map((c) => ({ queue: c.queue, bullJobId: c.opts.jobId, state: 'waiting' })),
    });
  }

  /** VideoJob COMPOSE, PROCESSING, no runnable entry; rebuildable from Video + Track → REQUEUE. */
  restorableCompose(retainedOutcome) {
    const { row, parent } = this.cand('video', 'COMPOSE', 'PROCESSING', 'PROCESSING');
    this.tracks(parent);
    const e = {
      candidate: true, verdict: 'ABSENT', action: 'REQUEUE',
      requeueTo: { queue: D.queueFor('video', 'COMPOSE'), bullJobId: D.currentJobId('video', 'COMPOSE', row.id) },
      restorePayload: composePayload(row, parent),
    };
    if (retainedOutcome) {
      // The worker finished the BullMQ job but the row update was lost: a finished object is
      // retained under the very id a requeue must use (bullmq ignores an add of an existing id).
      const spec = this.job('video', 'COMPOSE', row, parent, {}, false);
      spec.outcome = retainedOutcome;
      this.push(this.finish, spec);
      this.count(spec.queue, retainedOutcome);
      e.state = retainedOutcome;
      e.foundBy = 'direct';
      e.queue = spec.queue;
      e.bullJobId = spec.opts.jobId;
      e.retained = { queue: spec.queue, bullJobId: spec.opts.jobId, state: retainedOutcome };
    }
    this.mrow(retainedOutcome ? `restorable-compose-retained-${retainedOutcome}` : 'restorable-compose-no-queue-entry', 'video', row, parent, e);
  }

  /** Current id only completed (retained), but a legacy-id job for the row is waiting → scan. */
  completedCurrentLegacyWaiting() {
    const { row, parent } = this.cand('video', 'GENERATE', 'QUEUED', 'PROCESSING');
    const cur = this.job('video', 'GENERATE', row, parent, {}, false);
    cur.outcome = 'completed';
    this.push(this.finish, cur);
    this.count(cur.queue, 'completed');
    const legacy = this.job('video', 'GENERATE', row, parent, {}, true);
    this.count(legacy.queue, 'wait');
    legacy.mrow = this.mrow('current-id-completed-legacy-id-waiting', 'video', row, parent, {
      candidate: true, verdict: 'SCHEDULED', state: 'waiting', foundBy: 'scan', queue: legacy.queue, bullJobId: null,
      retained: { queue: cur.queue, bullJobId: cur.opts.jobId, state: 'completed' },
    });
    this.push(this.pending, legacy);
  }

  /** A legacy-id job that only exists as completed → the scan (runnable states) cannot see it. */
  legacyCompletedOnly() {
    const { row, parent } = this.cand('document', 'PARSE', 'PROCESSING', 'PROCESSING');
    const spec = this.job('document', 'PARSE', row, parent, {}, true);
    spec.outcome = 'completed';
    this.count(spec.queue, 'completed');
    spec.mrow = this.mrow('legacy-id-completed-only', 'document', row, parent, {
      candidate: true, verdict: 'ABSENT', action: 'FAIL',
      retained: { queue: spec.queue, bullJobId: null, state: 'completed', legacy: true }, parentAfter: 'FAILED',
    });
    this.push(this.finish, spec);
  }

  // -------------------------------------------------------------------------------------------
  // Healthy background of one scale unit: finished jobs for finished rows, fresh waiting jobs.
  // -------------------------------------------------------------------------------------------

  background() {
    const mix = [
      // domain, type(s), completed, failed, fresh waiting
      ['slide', ['GENERATE'], 6, 1, 4],
      ['slide', ['EXPORT'], 4, 1, 2],
      ['video', ['GENERATE', 'COMPOSE'], 5, 1, 3],
      ['video', ['EXPORT'], 3, 1, 2],
      ['document', ['PARSE'], 5, 1, 3],
      ['document', ['OCR'], 2, 0, 0],
      ['image', [null], 6, 1, 3],
      ['narration', [null], 4, 1, 3],
    ];
    for (const [domain, types, nc, nf, nw] of mix) {
      const plan = [];
      for (let i = 0; i < nc; i++) plan.push('completed');
      for (let i = 0; i < nf; i++) plan.push('failed');
      for (let i = 0; i < nw; i++) plan.push('waiting');
      plan.forEach((what, i) => {
        const type = types[i % types.length];
        let parent;
        let row;
        const column = D.parentColumnFor(domain, type);
        if (what === 'waiting') {
          parent = this.parent(domain, column === 'status' ? 'PROCESSING' : 'READY', column === 'exportStatus' ? 'PROCESSING' : 'NONE', this.age('fresh'));
          row = this.jobRow(domain, { type, status: 'QUEUED', ageMs: this.age('fresh'), parent });
        } else {
          const ok = what === 'completed';
          const ps = ok ? 'READY' : 'FAILED';
          parent = this.parent(domain, column === 'status' ? ps : 'READY', column === 'exportStatus' ? ps : 'NONE');
          row = this.jobRow(domain, {
            type, status: ok ? 'COMPLETED' : 'FAILED', ageMs: this.age('finished'), parent,
            error: ok ? null : this.rng.pick(ERRORS[domain]), progress: ok ? 100 : this.rng.int(0, 95),
          });
        }
        if (type === 'COMPOSE') this.tracks(parent);
        this.stats.backgroundRows++;
        const spec = this.job(domain, type, row, parent, {}, false);
        const paused = this.pausedQueues.includes(spec.queue);
        let state;
        if (what === 'waiting') {
          this.push(this.pending, spec);
          this.count(spec.queue, 'wait');
          state = paused ? 'paused' : 'waiting';
        } else {
          spec.outcome = what;
          this.push(this.finish, spec);
          this.count(spec.queue, what);
          state = what;
        }
        if (this.listBackground) {
          this.mrow(`background-${what}`, domain, row, parent, { candidate: false, state, queue: spec.queue, bullJobId: spec.opts.jobId });
        }
      });
    }
  }

  /** DB-only history: finished rows whose jobs were removed long ago. Few parents, many rows. */
  history() {
    const domains = Object.keys(D.DOMAINS);
    let parent = null;
    let left = 0;
    for (let i = 0; i < this.historyRows; i++) {
      const domain = domains[i % domains.length];
      const dom = D.DOMAINS[domain];
      if (left === 0 || parent.domain !== domain) {
        parent = { domain, row: this.parent(domain, 'READY', dom.parentHasExportStatus ? 'READY' : null, this.age('history')) };
        left = 4;
      }
      left--;
      const ok = this.rng.chance(0.9);
      const types = dom.types || [null];
      const type = types[this.rng.u32() % types.length];
      this.jobRow(domain, {
        type, status: ok ? 'COMPLETED' : 'FAILED', ageMs: this.age('history'), parent: parent.row,
        error: ok ? null : this.rng.pick(ERRORS[domain]), progress: ok ? 100 : this.rng.int(0, 95),
      });
      this.stats.historyRows++;
    }
  }

  build() {
    for (let u = 0; u < this.scale; u++) {
      this.unit();
      this.background();
    }
    this.history();
  }
}

function composePayload(row, video) {
  // What the app enqueues for a composition, built only from the Video and its Tracks: the
  // REQUEUE restore must rebuild exactly this from the database.
  return {
    jobId: row.id,
    videoId: video.id,
    title: video.title,
    tracks: video.tracks
      .slice()
      .sort((a, b) => a.position - b.position)
      .map((t) => ({ position: t.position, kind: t.kind, assetUrl: t.assetUrl, startMs: t.startMs, durationMs: t.durationMs })),
  };
}

// ---------------------------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------------------------

const ALL_TABLES = ['Track', 'SlideJob', 'VideoJob', 'DocumentJob', 'ImageJob', 'NarrationJob', 'Slide', 'Video', 'Document', 'Image', 'Narration'];

/** The nodes that hold keys: a cluster's masters, or the one node. */
function mastersOf(redis) {
  return redis instanceof IORedis.Cluster ? redis.nodes('master') : [redis];
}

async function checkEmpty(pg, redis, reset, pgLabel, redisLabel, log) {
  const missing = [];
  for (const t of ALL_TABLES) {
    const r = await pg.query('SELECT to_regclass($1) AS t', [`"${t}"`]);
    if (!r.rows[0].t) missing.push(t);
  }
  if (missing.length) {
    throw new UsageError(`${pgLabel} has no table(s) ${missing.join(', ')}: run node refapp/migrate.js first`);
  }
  if (reset) {
    log('reset: truncating the reference tables and flushing the Redis database');
    await pg.query(`TRUNCATE ${ALL_TABLES.map((t) => `"${t}"`).join(', ')}`);
    await Promise.all(mastersOf(redis).map((n) => n.flushdb()));
    return;
  }
  const nonEmpty = [];
  for (const t of ALL_TABLES) {
    const r = await pg.query(`SELECT EXISTS (SELECT 1 FROM "${t}") AS e`);
    if (r.rows[0].e) nonEmpty.push(t);
  }
  if (nonEmpty.length) throw new UsageError(`${pgLabel}: table(s) ${nonEmpty.join(', ')} already have rows (use --reset to truncate them)`);
  const size = (await Promise.all(mastersOf(redis).map((n) => n.dbsize()))).reduce((a, n) => a + n, 0);
  if (size > 0) throw new UsageError(`${redisLabel} already holds ${size} key(s) (use --reset to flush that database)`);
}

async function addSpecs(queue, specs) {
  for (let i = 0; i < specs.length; i += ADD_CHUNK) {
    const chunk = specs.slice(i, i + ADD_CHUNK);
    const jobs = await queue.addBulk(chunk.map((s) => ({ name: s.name, data: s.data, opts: s.opts })));
    jobs.forEach((job, k) => {
      const s = chunk[k];
      s.id = job.id;
      if (s.legacy) {
        if (/^\d+$/.test(job.id) === false) throw new Error(`bullmq gave a legacy job a non-numeric id ${job.id}`);
        if (s.mrow) {
          if (s.mrow.retained && s.mrow.retained.legacy) s.mrow.retained.bullJobId = job.id;
          else s.mrow.bullJobId = job.id;
        }
      } else if (job.id !== s.opts.jobId) {
        throw new Error(`bullmq returned id ${job.id} for custom id ${s.opts.jobId}`);
      }
    });
  }
}

/** Waits until `cond()` is true, polling; throws with `what` after `ms`. */
async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

async function phaseFinish(plan, queues, connOf, log) {
  // Phase 1: jobs that end completed or failed go through a real Worker, before anything else
  // is put in their queue (so the worker cannot take the other jobs).
  const names = Object.keys(plan.finish);
  let total = 0;
  for (const q of names) {
    await addSpecs(queues[q], plan.finish[q]);
    total += plan.finish[q].length;
  }
  if (!total) return;
  const outcome = new Map();
  for (const q of names) for (const s of plan.finish[q]) outcome.set(`${q}\u0000${s.id}`, s);
  let done = 0;
  const workers = names.map((q) => {
    const w = new Worker(
      q,
      async (job) => {
        const s = outcome.get(`${q}\u0000${job.id}`);
        if (!s) throw new Error(`seed: unexpected job ${job.id} in ${q}`);
        if (s.outcome === 'failed') throw new Error(s.failMessage || failMessageFor(q, job.id));
        return { ok: true, output: `https://outputs.example.invalid/${q}/${job.data.jobId}` };
      },
      { connection: connOf(), prefix: D.PREFIX, concurrency: 200, autorun: true, lockDuration: 60000 },
    );
    w.on('completed', () => done++);
    w.on('failed', () => done++);
    w.on('error', () => {});
    return w;
  });
  const t0 = Date.now();
  await waitFor(() => done >= total, 600000, `the ${total} finished jobs to be processed (${done} so far)`);
  await Promise.all(workers.map((w) => w.close()));
  log(`  phase 1: ${total} jobs completed/failed by real workers in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function failMessageFor(queue, id) {
  // Deterministic per job id: a small hash picks the message.
  let h = 0;
  for (const ch of `${queue}${id}`) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const domain = queue.split('-')[0];
  const list = ERRORS[domain] || ERRORS.slide;
  return list[h % list.length];
}

async function phaseActive(plan, queues, connOf, sharedRedis, log) {
  // Phase 2a: the jobs held active by a live worker. The worker's concurrency equals the number
  // of jobs it must hold and its processor never returns, so once it holds them all it fetches
  // nothing more: the waiting jobs added later stay waiting.
  const holdWorkers = [];
  for (const q of Object.keys(plan.held)) {
    const specs = plan.held[q];
    await addSpecs(queues[q], specs);
    const taken = new Set();
    const w = new Worker(
      q,
      (job) => {
        taken.add(job.id);
        return new Promise(() => {}); // a healthy, long-running job that rarely reports progress
      },
      { connection: connOf(), prefix: D.PREFIX, concurrency: specs.length, lockDuration: HOLD_LOCK_MS, autorun: true },
    );
    w.on('error', () => {});
    holdWorkers.push(w);
    await waitFor(() => taken.size >= specs.length, 60000, `the hold worker on ${q} to take ${specs.length} jobs`);
    for (const s of specs) if (!taken.has(s.id)) throw new Error(`hold worker on ${q} did not take ${s.id}`);
  }
  // Phase 2b: active jobs whose worker died. Taken by a worker with a short lock, which is then
  // closed without finishing them; no worker is left on the queue to run the stalled check, so
  // they stay in the active list with no lock key.
  for (const q of Object.keys(plan.crashed)) {
    const specs = plan.crashed[q];
    await addSpecs(queues[q], specs);
    const taken = new Set();
    const w = new Worker(
      q,
      (job) => {
        taken.add(job.id);
        return new Promise(() => {});
      },
      { connection: connOf(), prefix: D.PREFIX, concurrency: specs.length, lockDuration: CRASH_LOCK_MS, autorun: true },
    );
    w.on('error', () => {});
    await waitFor(() => taken.size >= specs.length, 60000, `the doomed worker on ${q} to take ${specs.length} jobs`);
    await w.close(true);
    await waitFor(async () => {
      const pipe = sharedRedis.pipeline();
      for (const s of specs) pipe.exists(`${D.PREFIX}:${q}:${s.id}:lock`);
      const res = await pipe.exec();
      return res.every(([err, n]) => !err && n === 0);
    }, CRASH_LOCK_MS + 15000, `the locks of the crashed jobs on ${q} to expire`);
  }
  log(`  phase 2: ${Object.values(plan.held).reduce((a, s) => a + s.length, 0)} jobs held active by live workers, ` +
    `${Object.values(plan.crashed).reduce((a, s) => a + s.length, 0)} left active by a dead worker`);
  return holdWorkers;
}

async function phasePending(plan, queues, connOf, sharedRedis, log) {
  // Phase 3: pause, then waiting/delayed/prioritized jobs (queue by queue, in plan order so the
  // legacy ids bullmq assigns are deterministic), flows, and jobs that are added then removed.
  for (const q of plan.pausedQueues) await queues[q].pause();
  const t0 = Date.now();
  let n = 0;
  for (const q of D.ALL_QUEUES) {
    if (!plan.pending[q]) continue;
    await addSpecs(queues[q], plan.pending[q]);
    n += plan.pending[q].length;
  }
  if (plan.flows.length) {
    const fp = new FlowProducer({ connection: sharedRedis, prefix: D.PREFIX });
    for (let i = 0; i < plan.flows.length; i += 200) {
      const chunk = plan.flows.slice(i, i + 200);
      const trees = await fp.addBulk(
        chunk.map((f) => ({
          name: f.parent.name, queueName: f.parent.queue, data: f.parent.data, opts: f.parent.opts,
          children: f.children.map((c) => ({ name: c.name, queueName: c.queue, data: c.data, opts: c.opts })),
        })),
      );
      trees.forEach((t, k) => {
        if (t.job.id !== chunk[k].parent.opts.jobId) throw new Error(`flow parent got id ${t.job.id}`);
      });
      n += chunk.reduce((a, f) => a + 1 + f.children.length, 0);
    }
    await fp.close();
  }
  for (const q of Object.keys(plan.removed)) {
    await addSpecs(queues[q], plan.removed[q]);
    for (let i = 0; i < plan.removed[q].length; i += 500) {
      const chunk = plan.removed[q].slice(i, i + 500);
      const res = await Promise.all(chunk.map((s) => queues[q].remove(s.id)));
      res.forEach((r, k) => {
        if (r !== 1) throw new Error(`could not remove ${chunk[k].id} from ${q} (remove returned ${r})`);
      });
    }
    n += plan.removed[q].length;
  }
  const secs = (Date.now() - t0) / 1000;
  log(`  phase 3: ${n} jobs added (waiting/delayed/prioritized/flows/removed) in ${secs.toFixed(1)} s`);
}

async function insertRows(pg, plan, log) {
  const t0 = Date.now();
  const sqlNow = 'LOCALTIMESTAMP(3)';
  const ts = (col) => `${sqlNow} - (${col} * interval '1 millisecond')`;
  const specs = [
    { table: 'Slide', cols: [['id', 'text'], ['title', 'text'], ['status', 'text'], ['exportStatus', 'text']], ages: true },
    { table: 'Video', cols: [['id', 'text'], ['title', 'text'], ['status', 'text'], ['exportStatus', 'text']], ages: true },
    { table: 'Document', cols: [['id', 'text'], ['title', 'text'], ['status', 'text']], ages: true },
    { table: 'Image', cols: [['id', 'text'], ['prompt', 'text'], ['status', 'text']], ages: true },
    { table: 'Narration', cols: [['id', 'text'], ['text', 'text'], ['voice', 'text'], ['status', 'text']], ages: true },
    { table: 'Track', cols: [['id', 'text'], ['videoId', 'text'], ['position', 'int'], ['kind', 'text'], ['assetUrl', 'text'], ['startMs', 'int'], ['durationMs', 'int']], ages: false },
  ];
  for (const [domain, dom] of Object.entries(D.DOMAINS)) {
    const cols = [['id', 'text'], [dom.fk, 'text', 'parentId']];
    if (dom.types) cols.push(['type', 'text']);
    cols.push(['status', 'text'], ['progress', 'int'], ['error', 'text']);
    specs.push({ table: dom.table, cols, ages: true });
  }
  let total = 0;
  await pg.query('BEGIN');
  try {
    for (const s of specs) {
      const rows = plan.tables[s.table];
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK);
        const arrays = s.cols.map(([name, , field]) => chunk.map((r) => {
          const v = r[field || name];
          return v === undefined ? null : v;
        }));
        const names = s.cols.map(([name]) => `"${name}"`);
        const params = s.cols.map(([, ty], k) => `$${k + 1}::${ty}[]`);
        const aliases = s.cols.map((_, k) => `c${k}`);
        let select = aliases.join(', ');
        if (s.ages) {
          arrays.push(chunk.map((r) => r.createdAgeMs), chunk.map((r) => r.updatedAgeMs));
          params.push(`$${arrays.length - 1}::bigint[]`, `$${arrays.length}::bigint[]`);
          aliases.push('ca', 'ua');
          names.push('"createdAt"', '"updatedAt"');
          select += `, ${ts('ca')}, ${ts('ua')}`;
        }
        await pg.query(
          `INSERT INTO "${s.table}" (${names.join(', ')}) SELECT ${select} FROM unnest(${params.join(', ')}) AS u(${aliases.join(', ')})`,
          arrays,
        );
        total += chunk.length;
      }
    }
    await pg.query('COMMIT');
  } catch (e) {
    await pg.query('ROLLBACK').catch(() => {});
    throw e;
  }
  await pg.query(`ANALYZE ${ALL_TABLES.map((t) => `"${t}"`).join(', ')}`);
  log(`  database: ${total} rows inserted in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return total;
}

function buildManifest(plan, args, dbRows, timings) {
  const rows = plan.manifestRows;
  const tableCounts = {};
  for (const [t, list] of Object.entries(plan.tables)) {
    const c = { total: list.length };
    if (D.JOB_TABLES[t]) for (const r of list) c[r.status] = (c[r.status] || 0) + 1;
    tableCounts[t] = c;
  }
  const domains = {};
  for (const [name, d] of Object.entries(D.DOMAINS)) {
    domains[name] = {
      table: d.table, parentTable: d.parentTable, parentKey: d.fk, typeFilter: d.typeFilter, queues: d.queues,
      idRule: d.types ? `${name}-{type lowercased}-{row id}` : `${name}-{row id}`,
    };
  }
  return {
    seed: plan.seed,
    scale: plan.scale,
    thresholdSeconds: THRESHOLD_SECONDS,
    prefix: D.PREFIX,
    hold: plan.hold,
    lockDurationMs: HOLD_LOCK_MS,
    pausedQueues: plan.pausedQueues,
    backgroundListed: plan.listBackground,
    domains,
    counts: {
      candidates: rows.filter((r) => r.candidate).length,
      byVerdict: countBy(rows.filter((r) => r.candidate), (r) => r.expectedVerdict),
      byAction: countBy(rows.filter((r) => r.expectedAction), (r) => r.expectedAction),
      byKind: countBy(rows, (r) => `${r.domain}/${r.kind}`),
      tables: tableCounts,
      redis: plan.redisCounts,
      dbRows,
      jobs: plan.stats.jobs,
      historyRows: plan.stats.historyRows,
    },
    timings,
    rows,
  };
}

function countBy(list, f) {
  const out = {};
  for (const x of list) {
    const k = f(x);
    out[k] = (out[k] || 0) + 1;
  }
  return out;
}

const state = { holdWorkers: [], queues: {}, redis: null, pg: null, ready: false, stopping: false, connections: [] };

async function main() {
  const args = parseArgs(process.argv.slice(2), {
    pg: 'string', redis: 'string', seed: 'int', scale: 'int', 'history-rows': 'int', manifest: 'string',
    'list-background': 'bool', hold: 'bool', reset: 'bool', quiet: 'bool', help: 'bool',
  });
  if (args.help) {
    process.stdout.write('usage: node refapp/seed.js [--pg URL] [--redis URL] [--seed N] [--scale N] [--history-rows N]\n' +
      '                         [--manifest FILE] [--list-background] [--hold] [--reset] [--quiet]\n');
    return 0;
  }
  const seed = args.seed != null ? args.seed : 1;
  const scale = args.scale != null ? args.scale : 1;
  if (scale < 1) throw new UsageError('--scale must be at least 1');
  const historyRows = args['history-rows'] != null ? args['history-rows'] : 100 * scale;
  if (historyRows < 0) throw new UsageError('--history-rows must not be negative');
  const listBackground = !!args['list-background'] || scale <= 10;
  const log = args.quiet ? () => {} : (s) => process.stderr.write(`${s}\n`);
  const redisUrl = args.redis || process.env.RECLAIM_REDIS_URL;
  const conn = redisConnection(redisUrl);
  const redisLabel = conn.label;
  // One node: workers get connection options (bullmq opens its own). A cluster: each worker gets
  // a Cluster of its own (bullmq duplicates it for its blocking connection), closed at the end.
  const redisOpts = conn.cluster ? null : redisOptions(redisUrl).opts;
  const connOf = () => {
    if (!conn.cluster) return redisOpts;
    const c = conn.make();
    c.on('error', () => {});
    state.connections.push(c);
    return c;
  };
  if (conn.cluster && !/\{[^}]+\}/.test(D.PREFIX)) {
    throw new UsageError(`the key prefix '${D.PREFIX}' has no hash tag, which a cluster needs: set REFAPP_KEY_PREFIX={bull}`);
  }
  const { cfg: pgCfg, label: pgLabel } = pgOptions(args.pg || process.env.RECLAIM_PG_URL);

  const shutdown = async (code) => {
    if (state.stopping) return;
    state.stopping = true;
    const guard = setTimeout(() => {
      process.stderr.write(`${PROG}: shutdown took longer than 10 s; exiting\n`);
      process.exit(1);
    }, 10000);
    // Force-close: the held jobs are NOT completed; they stay active until their lock expires.
    await Promise.all(state.holdWorkers.map((w) => w.close(true).catch(() => {})));
    await Promise.all(Object.values(state.queues).map((q) => q.close().catch(() => {})));
    if (state.redis) state.redis.disconnect();
    for (const c of state.connections) c.disconnect();
    if (state.pg) await state.pg.end().catch(() => {});
    clearTimeout(guard);
    process.exit(code);
  };
  const onSignal = (sig) => {
    if (!state.ready) process.stderr.write(`${PROG}: ${sig} before seeding finished; the incident is incomplete\n`);
    shutdown(state.ready ? 0 : sig === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  const t0 = Date.now();
  const plan = new Planner(seed, scale, historyRows, listBackground, !!args.hold);
  plan.build();
  log(`seed: planned ${plan.manifestRows.filter((r) => r.candidate).length} candidates, ${plan.stats.jobs} jobs, ` +
    `${Object.values(plan.tables).reduce((a, t) => a + t.length, 0)} rows (seed ${seed}, scale ${scale})`);

  state.pg = new Client(pgCfg);
  state.pg.on('error', () => {});
  try {
    await state.pg.connect();
  } catch (e) {
    throw new Error(`cannot connect to ${pgLabel}: ${errText(e)}`);
  }
  if (conn.cluster) {
    state.redis = connOf();
    const deadline = sleep(10000).then(() => { throw new Error('no answer within 10 s'); });
    try {
      await Promise.race([state.redis.ping(), deadline]);
    } catch (e) {
      throw new Error(`cannot connect to ${redisLabel}: ${errText(e)}`);
    }
  } else {
    state.redis = new IORedis(Object.assign({}, redisOpts, { lazyConnect: true, retryStrategy: () => null }));
    state.redis.on('error', () => {});
    try {
      await state.redis.connect();
    } catch (e) {
      throw new Error(`cannot connect to ${redisLabel}: ${errText(e)}`);
    }
  }
  await checkEmpty(state.pg, state.redis, !!args.reset, pgLabel, redisLabel, log);

  // Queues share one connection.
  const shared = conn.cluster ? connOf() : new IORedis(redisOpts);
  shared.on('error', () => {});
  for (const q of D.ALL_QUEUES) state.queues[q] = new Queue(q, { connection: shared, prefix: D.PREFIX });

  const tRedis = Date.now();
  await phaseFinish(plan, state.queues, connOf, log);
  state.holdWorkers = await phaseActive(plan, state.queues, connOf, shared, log);
  await phasePending(plan, state.queues, connOf, shared, log);
  const redisSecs = (Date.now() - tRedis) / 1000;
  const tDb = Date.now();
  const dbRows = await insertRows(state.pg, plan, log);
  const dbSecs = (Date.now() - tDb) / 1000;

  const timings = {
    redisSeconds: +redisSecs.toFixed(2),
    jobsPerSecond: Math.round(plan.stats.jobs / Math.max(redisSecs, 0.001)),
    dbSeconds: +dbSecs.toFixed(2),
    rowsPerSecond: Math.round(dbRows / Math.max(dbSecs, 0.001)),
    totalSeconds: +((Date.now() - t0) / 1000).toFixed(2),
  };
  if (args.manifest) {
    const manifest = buildManifest(plan, args, dbRows, timings);
    fs.writeFileSync(args.manifest, `${JSON.stringify(manifest, null, 1)}\n`);
  }
  log(`seed: ${plan.stats.jobs} jobs in ${timings.redisSeconds} s (${timings.jobsPerSecond} jobs/s), ` +
    `${dbRows} rows in ${timings.dbSeconds} s (${timings.rowsPerSecond} rows/s)` +
    (args.manifest ? `; manifest ${args.manifest}` : ''));
  await state.pg.end();
  state.pg = null;

  if (!args.hold) {
    // Without a live worker the "active-held" jobs keep their lock only until it expires
    // (lockDurationMs): from then on they are active jobs without a lock.
    await Promise.all(state.holdWorkers.map((w) => w.close(true)));
    state.holdWorkers = [];
  }
  state.ready = true;
  await new Promise((resolve) => process.stdout.write('SEED READY\n', resolve));
  if (args.hold) {
    log('seed: holding the active jobs; send SIGTERM or SIGINT to stop');
    return new Promise(() => {}); // shutdown() exits
  }
  await Promise.all(Object.values(state.queues).map((q) => q.close()));
  shared.disconnect();
  state.redis.disconnect();
  for (const c of state.connections) c.disconnect();
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code || 0),
    (e) => {
      if (state.stopping) return; // a signal is shutting down; its exit code wins
      process.stderr.write(`${PROG}: ${errText(e)}\n`);
      process.exit(e instanceof UsageError ? 2 : 1);
    },
  );
}
