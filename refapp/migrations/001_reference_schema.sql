-- Reference application schema (Prisma naming: quoted camelCase identifiers, timestamp(3),
-- text ids). All timestamps are UTC wall-clock time, as Prisma writes them.
--
-- Parent tables carry the user-visible status; job tables keep one row per background job.
--   parent status        PENDING | PROCESSING | READY | FAILED
--   parent exportStatus  NONE | PROCESSING | READY | FAILED
--   job status           QUEUED | PROCESSING | COMPLETED | FAILED

CREATE TABLE "Slide" (
    "id"           text         NOT NULL,
    "title"        text,
    "status"       text         NOT NULL,
    "exportStatus" text         NOT NULL DEFAULT 'NONE',
    "createdAt"    timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt"    timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Slide_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Slide_status_check" CHECK ("status" IN ('PENDING', 'PROCESSING', 'READY', 'FAILED')),
    CONSTRAINT "Slide_exportStatus_check" CHECK ("exportStatus" IN ('NONE', 'PROCESSING', 'READY', 'FAILED'))
);

CREATE TABLE "SlideJob" (
    "id"        text         NOT NULL,
    "slideId"   text         NOT NULL,
    "type"      text         NOT NULL,
    "status"    text         NOT NULL,
    "progress"  integer      NOT NULL DEFAULT 0,
    "error"     text,
    "createdAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SlideJob_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "SlideJob_slideId_fkey" FOREIGN KEY ("slideId") REFERENCES "Slide" ("id")
        ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "SlideJob_type_check" CHECK ("type" IN ('GENERATE', 'EXPORT')),
    CONSTRAINT "SlideJob_status_check" CHECK ("status" IN ('QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'))
);

CREATE TABLE "Video" (
    "id"           text         NOT NULL,
    "title"        text,
    "status"       text         NOT NULL,
    "exportStatus" text         NOT NULL DEFAULT 'NONE',
    "createdAt"    timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt"    timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Video_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Video_status_check" CHECK ("status" IN ('PENDING', 'PROCESSING', 'READY', 'FAILED')),
    CONSTRAINT "Video_exportStatus_check" CHECK ("exportStatus" IN ('NONE', 'PROCESSING', 'READY', 'FAILED'))
);

-- The inputs of a video composition: what a COMPOSE job is rebuilt from.
CREATE TABLE "Track" (
    "id"         text    NOT NULL,
    "videoId"    text    NOT NULL,
    "position"   integer NOT NULL,
    "kind"       text    NOT NULL,
    "assetUrl"   text    NOT NULL,
    "startMs"    integer NOT NULL DEFAULT 0,
    "durationMs" integer NOT NULL,
    CONSTRAINT "Track_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Track_videoId_fkey" FOREIGN KEY ("videoId") REFERENCES "Video" ("id")
        ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Track_kind_check" CHECK ("kind" IN ('VIDEO', 'AUDIO', 'SUBTITLE'))
);

CREATE TABLE "VideoJob" (
    "id"        text         NOT NULL,
    "videoId"   text         NOT NULL,
    "type"      text         NOT NULL,
    "status"    text         NOT NULL,
    "progress"  integer      NOT NULL DEFAULT 0,
    "error"     text,
    "createdAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "VideoJob_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "VideoJob_videoId_fkey" FOREIGN KEY ("videoId") REFERENCES "Video" ("id")
        ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "VideoJob_type_check" CHECK ("type" IN ('GENERATE', 'COMPOSE', 'EXPORT')),
    CONSTRAINT "VideoJob_status_check" CHECK ("status" IN ('QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'))
);

CREATE TABLE "Document" (
    "id"        text         NOT NULL,
    "title"     text,
    "status"    text         NOT NULL,
    "createdAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Document_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Document_status_check" CHECK ("status" IN ('PENDING', 'PROCESSING', 'READY', 'FAILED'))
);

CREATE TABLE "DocumentJob" (
    "id"         text         NOT NULL,
    "documentId" text         NOT NULL,
    "type"       text         NOT NULL,
    "status"     text         NOT NULL,
    "progress"   integer      NOT NULL DEFAULT 0,
    "error"      text,
    "createdAt"  timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt"  timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DocumentJob_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "DocumentJob_documentId_fkey" FOREIGN KEY ("documentId") REFERENCES "Document" ("id")
        ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "DocumentJob_type_check" CHECK ("type" IN ('PARSE', 'OCR')),
    CONSTRAINT "DocumentJob_status_check" CHECK ("status" IN ('QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'))
);

CREATE TABLE "Image" (
    "id"        text         NOT NULL,
    "prompt"    text,
    "status"    text         NOT NULL,
    "createdAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Image_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Image_status_check" CHECK ("status" IN ('PENDING', 'PROCESSING', 'READY', 'FAILED'))
);

-- No "type" column: every image job is a render.
CREATE TABLE "ImageJob" (
    "id"        text         NOT NULL,
    "imageId"   text         NOT NULL,
    "status"    text         NOT NULL,
    "progress"  integer      NOT NULL DEFAULT 0,
    "error"     text,
    "createdAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ImageJob_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "ImageJob_imageId_fkey" FOREIGN KEY ("imageId") REFERENCES "Image" ("id")
        ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "ImageJob_status_check" CHECK ("status" IN ('QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'))
);

CREATE TABLE "Narration" (
    "id"        text         NOT NULL,
    "text"      text,
    "voice"     text,
    "status"    text         NOT NULL,
    "createdAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Narration_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Narration_status_check" CHECK ("status" IN ('PENDING', 'PROCESSING', 'READY', 'FAILED'))
);

-- No "type" column: every narration job is a text-to-speech run.
CREATE TABLE "NarrationJob" (
    "id"          text         NOT NULL,
    "narrationId" text         NOT NULL,
    "status"      text         NOT NULL,
    "progress"    integer      NOT NULL DEFAULT 0,
    "error"       text,
    "createdAt"   timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt"   timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "NarrationJob_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "NarrationJob_narrationId_fkey" FOREIGN KEY ("narrationId") REFERENCES "Narration" ("id")
        ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "NarrationJob_status_check" CHECK ("status" IN ('QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'))
);
