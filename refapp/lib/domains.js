'use strict';
// The reference application's five job domains, as the real app defines them. The seeder, the
// worker and the README all read this one table.

// The key prefix of every queue. REFAPP_KEY_PREFIX sets another, such as {bull} for a Redis
// Cluster (BullMQ's advice: a hash tag puts all of a queue's keys, and here every queue's, in
// one slot, so its multi-key scripts run there).
const PREFIX = process.env.REFAPP_KEY_PREFIX || 'bull';

const DOMAINS = {
  slide: {
    table: 'SlideJob',
    parentTable: 'Slide',
    fk: 'slideId',
    types: ['GENERATE', 'EXPORT'],
    // type filter Reclaim applies to candidates (null = no type column)
    typeFilter: ['GENERATE', 'EXPORT'],
    queues: ['slide-generation', 'slide-export'],
    parentHasExportStatus: true,
  },
  video: {
    table: 'VideoJob',
    parentTable: 'Video',
    fk: 'videoId',
    types: ['GENERATE', 'COMPOSE', 'EXPORT'],
    typeFilter: ['GENERATE', 'COMPOSE', 'EXPORT'],
    queues: ['video-generation', 'video-export'],
    parentHasExportStatus: true,
  },
  document: {
    table: 'DocumentJob',
    parentTable: 'Document',
    fk: 'documentId',
    types: ['PARSE', 'OCR'],
    typeFilter: ['PARSE'],
    queues: ['document-parse'],
    parentHasExportStatus: false,
  },
  image: {
    table: 'ImageJob',
    parentTable: 'Image',
    fk: 'imageId',
    types: null,
    typeFilter: null,
    queues: ['image-render'],
    parentHasExportStatus: false,
  },
  narration: {
    table: 'NarrationJob',
    parentTable: 'Narration',
    fk: 'narrationId',
    types: null,
    typeFilter: null,
    queues: ['narration-tts'],
    parentHasExportStatus: false,
  },
};

/** Queue a job of this domain/type runs on. OCR runs on a queue Reclaim does not reconcile. */
function queueFor(domain, type) {
  switch (domain) {
    case 'slide':
    case 'video':
      return type === 'EXPORT' ? `${domain}-export` : `${domain}-generation`;
    case 'document':
      return type === 'OCR' ? 'document-ocr' : 'document-parse';
    case 'image':
      return 'image-render';
    case 'narration':
      return 'narration-tts';
    default:
      throw new Error(`unknown domain ${domain}`);
  }
}

/** The CURRENT BullMQ job id rule. */
function currentJobId(domain, type, rowId) {
  return type ? `${domain}-${type.toLowerCase()}-${rowId}` : `${domain}-${rowId}`;
}

/** The parent status column a job of this type drives. */
function parentColumnFor(domain, type) {
  return type === 'EXPORT' ? 'exportStatus' : 'status';
}

/** BullMQ job name the app uses. */
function jobNameFor(domain, type) {
  if (domain === 'image') return 'render';
  if (domain === 'narration') return 'tts';
  return type.toLowerCase();
}

const ALL_QUEUES = [
  'slide-generation',
  'slide-export',
  'video-generation',
  'video-export',
  'document-parse',
  'document-ocr',
  'image-render',
  'narration-tts',
];

/**
 * The data fields the app's workers require, per queue and job name (null values allowed, absent
 * fields not). COMPOSE additionally needs a non-empty tracks array of complete tracks.
 */
const PAYLOAD_FIELDS = {
  'slide-generation/generate': ['jobId', 'slideId', 'prompt', 'theme', 'slideCount'],
  'slide-export/export': ['jobId', 'slideId', 'format', 'locale'],
  'video-generation/generate': ['jobId', 'videoId', 'script', 'resolution', 'durationSec'],
  'video-generation/compose': ['jobId', 'videoId', 'title', 'tracks'],
  'video-export/export': ['jobId', 'videoId', 'format', 'quality'],
  'document-parse/parse': ['jobId', 'documentId', 'sourceUrl', 'mimeType'],
  'document-ocr/ocr': ['jobId', 'documentId', 'page', 'language'],
  'image-render/render': ['jobId', 'imageId', 'prompt', 'width', 'height'],
  'narration-tts/tts': ['jobId', 'narrationId', 'text', 'voice'],
};
const TRACK_FIELDS = ['position', 'kind', 'assetUrl', 'startMs', 'durationMs'];

/** null when the job's data is what the app's worker accepts, else the reason it is not. */
function payloadProblem(queue, name, data) {
  const fields = PAYLOAD_FIELDS[`${queue}/${name}`];
  if (!fields) return `unknown job name "${name}" for queue ${queue}`;
  if (data == null || typeof data !== 'object') return 'job data is not an object';
  for (const f of fields) if (data[f] === undefined) return `job data lacks required field "${f}"`;
  if (name === 'compose') {
    if (!Array.isArray(data.tracks) || data.tracks.length === 0) return 'compose job has no tracks';
    for (const t of data.tracks) {
      for (const f of TRACK_FIELDS) if (t == null || t[f] === undefined || t[f] === null) return `a track lacks "${f}"`;
    }
  }
  return null;
}

const JOB_TABLES = Object.fromEntries(Object.entries(DOMAINS).map(([d, v]) => [v.table, d]));

module.exports = {
  PREFIX, DOMAINS, queueFor, currentJobId, parentColumnFor, jobNameFor, ALL_QUEUES, JOB_TABLES, PAYLOAD_FIELDS, payloadProblem,
};
