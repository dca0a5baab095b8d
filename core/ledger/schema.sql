-- Kosmos ledger schema, version 6.
--
-- A ledger is a bundle directory NAME.kosmos/ holding this database (ledger.sqlite) and the
-- content-addressed artifact store (objects/). This file creates a new ledger at the current
-- schema version; older ledgers are brought forward by the numbered migrations in
-- core/ledger/Schema.cpp.in (version 2 added judge_samples.finish_reason; version 3 its
-- answer_form and the request provenance columns; version 4 the label source 'physics';
-- version 5 the scale-out tables; version 6 the views that define what a run's rows mean).
--
-- Conventions
-- * Every timestamp is an INTEGER *_ms: milliseconds since the Unix epoch, UTC.
-- * Every hash is 64 lowercase hex characters of SHA-256 (*_sha256).
-- * Unknown values are NULL, never 0 or ''.
-- * Nothing recorded is deleted. What is evidence (protocols, components, events, artifacts,
--   provenance, finished attempts and everything they recorded, human labels) cannot be
--   updated either: the triggers below refuse it, whatever program issues the SQL.
--   Only user annotations (bookmarks, notes) may be edited or removed.
-- * Tables are STRICT: a value of the wrong type is an error, not a silent conversion.

PRAGMA application_id = 1263489869;  -- 0x4B4F534D, "KOSM": identifies a Kosmos ledger

-- Key/value facts about the ledger itself (creator version, creation time).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- Frozen evaluation protocols. canonical_json is the protocol in canonical JSON and
-- protocol_sha256 is its SHA-256, so a protocol can never change under the runs that use it.
CREATE TABLE protocols (
    protocol_id     INTEGER PRIMARY KEY,
    protocol_sha256 TEXT NOT NULL UNIQUE
                    CHECK (length(protocol_sha256) = 64 AND protocol_sha256 NOT GLOB '*[^0-9a-f]*'),
    name            TEXT NOT NULL,
    canonical_json  TEXT NOT NULL CHECK (json_valid(canonical_json)),
    created_at_ms   INTEGER NOT NULL
) STRICT;

-- Component identities: one row per distinct (family, adapter, version, config, weights).
-- identity_json is the canonical JSON of all of it; identity_sha256 its hash.
CREATE TABLE components (
    component_id    INTEGER PRIMARY KEY,
    identity_sha256 TEXT NOT NULL UNIQUE
                    CHECK (length(identity_sha256) = 64 AND identity_sha256 NOT GLOB '*[^0-9a-f]*'),
    family          TEXT NOT NULL CHECK (family IN ('policy', 'world_model', 'judge')),
    adapter_id      TEXT NOT NULL CHECK (adapter_id <> ''),
    adapter_version TEXT NOT NULL CHECK (adapter_version <> ''),
    config_sha256   TEXT,  -- NULL: unknown
    weights_sha256  TEXT,  -- NULL: unknown, or the component has no weights (synthetic)
    identity_json   TEXT NOT NULL CHECK (json_valid(identity_json)),
    created_at_ms   INTEGER NOT NULL
) STRICT;

-- Runs: one evaluation episode of one policy in one world model under one protocol.
-- run_key is the SHA-256 of key_json, the canonical JSON of everything that determines the
-- run (see docs/ledger.md, "Run keys"); submitting the same inputs again finds this row.
-- status is the run's life cycle, not the robot task's outcome: 'completed' means the
-- pipeline finished, whatever the judge said.
CREATE TABLE runs (
    run_id                 INTEGER PRIMARY KEY,
    run_key                TEXT NOT NULL UNIQUE
                           CHECK (length(run_key) = 64 AND run_key NOT GLOB '*[^0-9a-f]*'),
    key_json               TEXT NOT NULL CHECK (json_valid(key_json)),
    protocol_id            INTEGER NOT NULL REFERENCES protocols (protocol_id),
    episode_index          INTEGER NOT NULL CHECK (episode_index >= 0),
    task                   TEXT,
    instruction            TEXT,
    policy_id              INTEGER REFERENCES components (component_id),
    world_model_id         INTEGER REFERENCES components (component_id),
    judge_id               INTEGER REFERENCES components (component_id),
    status                 TEXT NOT NULL DEFAULT 'queued'
                           CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
    created_at_ms          INTEGER NOT NULL,
    cancel_requested_at_ms INTEGER,
    cancel_reason          TEXT,
    finished_at_ms         INTEGER,
    CHECK ((status IN ('completed', 'failed', 'cancelled')) = (finished_at_ms IS NOT NULL))
) STRICT;
CREATE INDEX runs_by_status ON runs (status);
CREATE INDEX runs_by_protocol ON runs (protocol_id, episode_index);

-- Attempts: one worker's go at a run, under a lease. lease_token fences the worker: every
-- write it makes names the token, and is refused once the lease expired or the attempt ended.
-- seal_sha256 is a digest over everything the attempt recorded, computed when it ends and
-- re-checked by `kosmos-cli verify`.
CREATE TABLE attempts (
    attempt_id          INTEGER PRIMARY KEY,
    run_id              INTEGER NOT NULL REFERENCES runs (run_id),
    attempt_no          INTEGER NOT NULL CHECK (attempt_no >= 1),
    worker_id           TEXT NOT NULL CHECK (worker_id <> ''),
    lease_token         TEXT NOT NULL UNIQUE,
    state               TEXT NOT NULL DEFAULT 'running'
                        CHECK (state IN ('running', 'completed', 'failed', 'cancelled', 'abandoned')),
    started_at_ms       INTEGER NOT NULL,
    heartbeat_at_ms     INTEGER NOT NULL,
    lease_expires_at_ms INTEGER NOT NULL,
    finished_at_ms      INTEGER,
    error_code          TEXT,
    error_message       TEXT,
    exit_signal         INTEGER,  -- the signal that ended the worker process, when known
    seal_sha256         TEXT,
    UNIQUE (run_id, attempt_no),
    CHECK ((state = 'running') = (finished_at_ms IS NULL)),
    CHECK ((state = 'running') = (seal_sha256 IS NULL))
) STRICT;
CREATE INDEX attempts_live ON attempts (lease_expires_at_ms) WHERE state = 'running';

-- Append-only events. seq numbers each run's events 1, 2, 3 ... without gaps; event_id is
-- global and grows in commit order, so a reader in another process can follow new events
-- with "event_id > last seen".
CREATE TABLE events (
    event_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id        INTEGER NOT NULL REFERENCES runs (run_id),
    attempt_id    INTEGER REFERENCES attempts (attempt_id),  -- NULL: a run-level event
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    type          TEXT NOT NULL CHECK (type <> ''),
    payload_json  TEXT NOT NULL CHECK (json_valid(payload_json)),
    created_at_ms INTEGER NOT NULL,
    UNIQUE (run_id, seq)
) STRICT;
CREATE INDEX events_by_attempt ON events (attempt_id);

-- Artifacts: content-addressed objects in objects/ab/cdef... (ab = first two hex digits).
-- Images also record the SHA-256 of their decoded pixels (pixel_sha256, see
-- core/artifacts/PixelDigest.h), so a re-encoded frame is recognised as the same pixels.
CREATE TABLE artifacts (
    artifact_id   INTEGER PRIMARY KEY,
    sha256        TEXT NOT NULL UNIQUE
                  CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
    size_bytes    INTEGER NOT NULL CHECK (size_bytes >= 0),
    media_type    TEXT NOT NULL CHECK (media_type <> ''),
    pixel_sha256  TEXT CHECK (pixel_sha256 IS NULL OR
                              (length(pixel_sha256) = 64 AND pixel_sha256 NOT GLOB '*[^0-9a-f]*')),
    width         INTEGER CHECK (width IS NULL OR width > 0),
    height        INTEGER CHECK (height IS NULL OR height > 0),
    channels      INTEGER CHECK (channels IS NULL OR channels > 0),
    created_at_ms INTEGER NOT NULL
) STRICT;

-- Which artifacts an attempt produced or used, under a role ('frame', 'video', 'actions',
-- 'judge_input' ...) and a name unique within that role.
CREATE TABLE attempt_artifacts (
    attempt_id    INTEGER NOT NULL REFERENCES attempts (attempt_id),
    artifact_id   INTEGER NOT NULL REFERENCES artifacts (artifact_id),
    role          TEXT NOT NULL CHECK (role <> ''),
    name          TEXT NOT NULL CHECK (name <> ''),
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, role, name)
) STRICT;
CREATE INDEX attempt_artifacts_by_artifact ON attempt_artifacts (artifact_id);

-- Provenance edges: child was made from parent by `relation` ('decoded_from',
-- 'generated_from', 'conditioned_on', 'sampled_from' ...), within an attempt or (NULL) on import.
CREATE TABLE provenance (
    edge_id            INTEGER PRIMARY KEY,
    parent_artifact_id INTEGER NOT NULL REFERENCES artifacts (artifact_id),
    child_artifact_id  INTEGER NOT NULL REFERENCES artifacts (artifact_id),
    relation           TEXT NOT NULL CHECK (relation <> ''),
    attempt_id         INTEGER REFERENCES attempts (attempt_id),
    details_json       TEXT CHECK (details_json IS NULL OR json_valid(details_json)),
    created_at_ms      INTEGER NOT NULL,
    CHECK (parent_artifact_id <> child_artifact_id)
) STRICT;
CREATE INDEX provenance_by_child ON provenance (child_artifact_id);
CREATE INDEX provenance_by_parent ON provenance (parent_artifact_id);
CREATE INDEX provenance_by_attempt ON provenance (attempt_id);

-- Deterministic validation of a rollout: a verdict and a closed set of reason codes.
CREATE TABLE validation_results (
    validation_id     INTEGER PRIMARY KEY,
    attempt_id        INTEGER NOT NULL REFERENCES attempts (attempt_id),
    validator         TEXT NOT NULL CHECK (validator <> ''),
    validator_version TEXT NOT NULL CHECK (validator_version <> ''),
    verdict           TEXT NOT NULL CHECK (verdict IN ('valid', 'invalid', 'unknown')),
    reason_codes_json TEXT NOT NULL
                      CHECK (json_valid(reason_codes_json) AND json_type(reason_codes_json) = 'array'),
    details_json      TEXT CHECK (details_json IS NULL OR json_valid(details_json)),
    created_at_ms     INTEGER NOT NULL
) STRICT;
CREATE INDEX validation_by_attempt ON validation_results (attempt_id);

-- Judgments: the quorum outcome of one judge configuration over one attempt's rollout.
-- settings_json holds the frozen quorum settings; the outcome must be recomputable from the
-- judgment's raw samples (judge_samples).
CREATE TABLE judgments (
    judgment_id        INTEGER PRIMARY KEY,
    attempt_id         INTEGER NOT NULL REFERENCES attempts (attempt_id),
    judge_id           INTEGER REFERENCES components (component_id),
    settings_json      TEXT NOT NULL CHECK (json_valid(settings_json)),
    outcome            TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'unknown')),
    unknown_reason     TEXT,
    progress           INTEGER CHECK (progress IS NULL OR progress BETWEEN 0 AND 5),
    decisive_votes     INTEGER CHECK (decisive_votes IS NULL OR decisive_votes >= 0),
    frame_indices_json TEXT CHECK (frame_indices_json IS NULL OR json_valid(frame_indices_json)),
    prompt_sha256      TEXT,
    created_at_ms      INTEGER NOT NULL,
    CHECK ((outcome = 'unknown') = (unknown_reason IS NOT NULL))
) STRICT;
CREATE INDEX judgments_by_attempt ON judgments (attempt_id);

-- One raw answer of the judge model. try_index 1 is the single format-only retry.
-- row_sha256 is the canonical hash of the row's content, so a hand edit is detectable.
CREATE TABLE judge_samples (
    sample_id        INTEGER PRIMARY KEY,
    judgment_id      INTEGER NOT NULL REFERENCES judgments (judgment_id),
    sample_index     INTEGER NOT NULL CHECK (sample_index >= 0),
    try_index        INTEGER NOT NULL DEFAULT 0 CHECK (try_index IN (0, 1)),
    seed             INTEGER,
    raw_text         TEXT,  -- NULL when no answer arrived (request failed)
    format_class     TEXT NOT NULL
                     CHECK (format_class IN ('bare_json', 'fenced_json', 'invalid', 'refusal',
                                             'request_failed')),
    parse_error      TEXT,
    parsed_json      TEXT CHECK (parsed_json IS NULL OR json_valid(parsed_json)),
    generated_tokens INTEGER,
    decode_ms        INTEGER,
    finish_reason    TEXT,  -- as the server reported it ("stop", "length" ...); NULL: unknown
    -- How the answer was written, valid or not (format_class says whether it was valid);
    -- NULL in rows written before schema version 3 (read under answer rule 1).
    answer_form      TEXT CHECK (answer_form IS NULL OR
                                 answer_form IN ('bare_json', 'fenced_json', 'fenced_json_in_prose',
                                                 'other', 'no_answer')),
    -- The artifact (a kosmos.judge_request/1 JSON document) holding the exact request of this
    -- call: every parameter, the prompt, the frames' PNG hashes and, for a wire protocol, the
    -- body that was sent with its images by hash. NULL: not known (imported, older ledgers).
    request_sha256   TEXT CHECK (request_sha256 IS NULL OR
                                 (length(request_sha256) = 64 AND request_sha256 NOT GLOB '*[^0-9a-f]*')),
    server_model       TEXT,  -- the `model` the server said answered; NULL: not reported
    system_fingerprint TEXT,  -- the server's `system_fingerprint`; NULL: not reported
    row_sha256       TEXT NOT NULL,
    created_at_ms    INTEGER NOT NULL,
    UNIQUE (judgment_id, sample_index, try_index)
) STRICT;

-- Human (or reference) labels of a run's rollout, in the judge's own fields. source: 'human'
-- (a person), 'synthetic_reference' (the procedural world's own truth), 'imported_reference'
-- (labels imported with a dataset), 'physics' (a simulator's state: physics ground truth, not a
-- human). Append-only:
-- a correction is a new row that names the label it supersedes.
CREATE TABLE human_labels (
    label_id            INTEGER PRIMARY KEY,
    run_id              INTEGER NOT NULL REFERENCES runs (run_id),
    annotator_id        TEXT NOT NULL CHECK (annotator_id <> ''),
    source              TEXT NOT NULL DEFAULT 'human'
                        CHECK (source IN ('human', 'synthetic_reference', 'imported_reference',
                                          'physics')),
    split               TEXT CHECK (split IS NULL OR split IN ('development', 'held_out')),
    integrity           TEXT CHECK (integrity IS NULL OR integrity IN ('intact', 'artifact', 'uncertain')),
    collision           TEXT CHECK (collision IS NULL OR collision IN ('none_visible', 'visible', 'uncertain')),
    progress            INTEGER CHECK (progress IS NULL OR progress BETWEEN 0 AND 5),
    completion          TEXT CHECK (completion IS NULL OR completion IN ('met', 'not_met', 'uncertain')),
    notes               TEXT,
    labeled_at_ms       INTEGER NOT NULL,
    supersedes_label_id INTEGER REFERENCES human_labels (label_id)
) STRICT;
CREATE INDEX human_labels_by_run ON human_labels (run_id);

-- The user's own bookmarks and notes on a run's timeline. The only editable table.
CREATE TABLE annotations (
    annotation_id INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES runs (run_id),
    frame_index   INTEGER CHECK (frame_index IS NULL OR frame_index >= 0),
    kind          TEXT NOT NULL CHECK (kind IN ('bookmark', 'note')),
    text          TEXT NOT NULL DEFAULT '',
    author        TEXT,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX annotations_by_run ON annotations (run_id);

-- ---- Scale-out (schema version 5): shard ledgers merged into this one -----------------
-- `kosmos-cli merge OUT SHARD...` copies finished attempts from shard ledgers (each written by
-- one Slurm task or local process) into this ledger, keyed by run key (docs/scale-out.md).
-- Row ids differ between ledgers; a merged attempt keeps its seal as the shard computed it, so
-- the ids the seal was computed with are kept here (seal_run_id, seal_judgment_id), and verify
-- recomputes the seal with them.
CREATE TABLE merge_sources (
    source_id     INTEGER PRIMARY KEY,
    source_uuid   TEXT NOT NULL UNIQUE CHECK (source_uuid <> ''), -- the shard's meta ledger_id
    path          TEXT NOT NULL,                                   -- where it was first merged from
    shard_json    TEXT CHECK (shard_json IS NULL OR json_valid(shard_json)),
    created_at_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE merged_attempts (
    attempt_id        INTEGER PRIMARY KEY REFERENCES attempts (attempt_id),
    source_id         INTEGER NOT NULL REFERENCES merge_sources (source_id),
    source_attempt_id INTEGER NOT NULL,
    seal_run_id       INTEGER NOT NULL, -- the run id in the ledger that sealed the attempt
    host              TEXT,             -- the host that ran it (its attempt_started event)
    slurm_json        TEXT CHECK (slurm_json IS NULL OR json_valid(slurm_json)),
    merged_at_ms      INTEGER NOT NULL,
    UNIQUE (source_id, source_attempt_id)
) STRICT;
CREATE TABLE merged_judgments (
    judgment_id      INTEGER PRIMARY KEY REFERENCES judgments (judgment_id),
    seal_judgment_id INTEGER NOT NULL -- the judgment id its samples' row hashes were made with
) STRICT;
CREATE TABLE merged_labels (
    label_id        INTEGER PRIMARY KEY REFERENCES human_labels (label_id),
    source_id       INTEGER NOT NULL REFERENCES merge_sources (source_id),
    source_label_id INTEGER NOT NULL,
    UNIQUE (source_id, source_label_id)
) STRICT;
-- Sharded evaluations submitted from this ledger (kosmos-cli submit): where the shards are,
-- how they were launched, the scheduler's job ids.
CREATE TABLE scaleout_jobs (
    job_row_id      INTEGER PRIMARY KEY,
    protocol_sha256 TEXT NOT NULL,
    launcher        TEXT NOT NULL CHECK (launcher IN ('slurm', 'local')),
    shards          INTEGER NOT NULL CHECK (shards >= 1),
    shard_dir       TEXT NOT NULL,
    array_job_id    TEXT,
    merge_job_id    TEXT,
    options_json    TEXT NOT NULL CHECK (json_valid(options_json)),
    submitted_at_ms INTEGER NOT NULL
) STRICT;
CREATE TRIGGER merge_sources_no_change BEFORE UPDATE ON merge_sources
BEGIN SELECT RAISE(ABORT, 'kosmos: merge sources cannot be changed'); END;
CREATE TRIGGER merge_sources_no_delete BEFORE DELETE ON merge_sources
BEGIN SELECT RAISE(ABORT, 'kosmos: merge sources cannot be deleted'); END;
CREATE TRIGGER merged_attempts_no_change BEFORE UPDATE ON merged_attempts
BEGIN SELECT RAISE(ABORT, 'kosmos: merge provenance cannot be changed'); END;
CREATE TRIGGER merged_attempts_no_delete BEFORE DELETE ON merged_attempts
BEGIN SELECT RAISE(ABORT, 'kosmos: merge provenance cannot be deleted'); END;
CREATE TRIGGER merged_judgments_no_change BEFORE UPDATE ON merged_judgments
BEGIN SELECT RAISE(ABORT, 'kosmos: merge provenance cannot be changed'); END;
CREATE TRIGGER merged_judgments_no_delete BEFORE DELETE ON merged_judgments
BEGIN SELECT RAISE(ABORT, 'kosmos: merge provenance cannot be deleted'); END;
CREATE TRIGGER merged_labels_no_change BEFORE UPDATE ON merged_labels
BEGIN SELECT RAISE(ABORT, 'kosmos: merge provenance cannot be changed'); END;
CREATE TRIGGER merged_labels_no_delete BEFORE DELETE ON merged_labels
BEGIN SELECT RAISE(ABORT, 'kosmos: merge provenance cannot be deleted'); END;
CREATE TRIGGER scaleout_jobs_no_change BEFORE UPDATE ON scaleout_jobs
BEGIN SELECT RAISE(ABORT, 'kosmos: submitted jobs cannot be changed'); END;
CREATE TRIGGER scaleout_jobs_no_delete BEFORE DELETE ON scaleout_jobs
BEGIN SELECT RAISE(ABORT, 'kosmos: submitted jobs cannot be deleted'); END;
-- ---- end of scale-out -------------------------------------------------------------------

-- ---------------------------------------------------------------------------------------
-- Immutability, enforced by the database. Every message starts with "kosmos:" so the C++
-- layer can tell a rule violation from any other failure.

-- Frozen records: never updated, never deleted.
CREATE TRIGGER protocols_no_update BEFORE UPDATE ON protocols
BEGIN SELECT RAISE(ABORT, 'kosmos: protocols are frozen and cannot be changed'); END;
CREATE TRIGGER protocols_no_delete BEFORE DELETE ON protocols
BEGIN SELECT RAISE(ABORT, 'kosmos: protocols are frozen and cannot be deleted'); END;
CREATE TRIGGER components_no_update BEFORE UPDATE ON components
BEGIN SELECT RAISE(ABORT, 'kosmos: component identities cannot be changed'); END;
CREATE TRIGGER components_no_delete BEFORE DELETE ON components
BEGIN SELECT RAISE(ABORT, 'kosmos: component identities cannot be deleted'); END;
CREATE TRIGGER artifacts_no_update BEFORE UPDATE ON artifacts
BEGIN SELECT RAISE(ABORT, 'kosmos: artifacts are content-addressed and cannot be changed'); END;
CREATE TRIGGER artifacts_no_delete BEFORE DELETE ON artifacts
BEGIN SELECT RAISE(ABORT, 'kosmos: artifacts cannot be deleted'); END;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'kosmos: events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'kosmos: events are append-only'); END;
CREATE TRIGGER provenance_no_update BEFORE UPDATE ON provenance
BEGIN SELECT RAISE(ABORT, 'kosmos: provenance edges cannot be changed'); END;
CREATE TRIGGER provenance_no_delete BEFORE DELETE ON provenance
BEGIN SELECT RAISE(ABORT, 'kosmos: provenance edges cannot be deleted'); END;
CREATE TRIGGER attempt_artifacts_no_update BEFORE UPDATE ON attempt_artifacts
BEGIN SELECT RAISE(ABORT, 'kosmos: attempt artifacts cannot be changed'); END;
CREATE TRIGGER attempt_artifacts_no_delete BEFORE DELETE ON attempt_artifacts
BEGIN SELECT RAISE(ABORT, 'kosmos: attempt artifacts cannot be deleted'); END;
CREATE TRIGGER validation_no_update BEFORE UPDATE ON validation_results
BEGIN SELECT RAISE(ABORT, 'kosmos: validation results cannot be changed'); END;
CREATE TRIGGER validation_no_delete BEFORE DELETE ON validation_results
BEGIN SELECT RAISE(ABORT, 'kosmos: validation results cannot be deleted'); END;
CREATE TRIGGER judgments_no_update BEFORE UPDATE ON judgments
BEGIN SELECT RAISE(ABORT, 'kosmos: judgments cannot be changed'); END;
CREATE TRIGGER judgments_no_delete BEFORE DELETE ON judgments
BEGIN SELECT RAISE(ABORT, 'kosmos: judgments cannot be deleted'); END;
CREATE TRIGGER judge_samples_no_update BEFORE UPDATE ON judge_samples
BEGIN SELECT RAISE(ABORT, 'kosmos: judge samples cannot be changed'); END;
CREATE TRIGGER judge_samples_no_delete BEFORE DELETE ON judge_samples
BEGIN SELECT RAISE(ABORT, 'kosmos: judge samples cannot be deleted'); END;
CREATE TRIGGER human_labels_no_update BEFORE UPDATE ON human_labels
BEGIN SELECT RAISE(ABORT, 'kosmos: human labels are append-only; add a superseding label'); END;
CREATE TRIGGER human_labels_no_delete BEFORE DELETE ON human_labels
BEGIN SELECT RAISE(ABORT, 'kosmos: human labels cannot be deleted'); END;

-- Runs: the identity columns never change; a finished run never changes; none is deleted.
CREATE TRIGGER runs_identity_frozen BEFORE UPDATE OF
    run_key, key_json, protocol_id, episode_index, task, instruction, policy_id,
    world_model_id, judge_id, created_at_ms ON runs
BEGIN SELECT RAISE(ABORT, 'kosmos: a run''s identity cannot be changed'); END;
-- A failed run may only be put back in the queue (an explicit retry); completed and
-- cancelled runs are final.
CREATE TRIGGER runs_finished_frozen BEFORE UPDATE ON runs
    WHEN OLD.status IN ('completed', 'cancelled') OR
         (OLD.status = 'failed' AND NEW.status IS NOT 'queued')
BEGIN SELECT RAISE(ABORT, 'kosmos: a finished run cannot be changed'); END;
CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'kosmos: runs cannot be deleted'); END;

-- Attempts: a finished attempt never changes; the fencing columns never change; none is
-- deleted.
CREATE TRIGGER attempts_finished_frozen BEFORE UPDATE ON attempts
    WHEN OLD.state <> 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: a finished attempt is immutable'); END;
CREATE TRIGGER attempts_identity_frozen BEFORE UPDATE OF
    attempt_id, run_id, attempt_no, worker_id, lease_token, started_at_ms ON attempts
BEGIN SELECT RAISE(ABORT, 'kosmos: an attempt''s identity cannot be changed'); END;
CREATE TRIGGER attempts_no_delete BEFORE DELETE ON attempts
BEGIN SELECT RAISE(ABORT, 'kosmos: attempts cannot be deleted'); END;

-- Nothing is added to a finished attempt.
CREATE TRIGGER events_attempt_open BEFORE INSERT ON events
    WHEN NEW.attempt_id IS NOT NULL AND
         (SELECT state FROM attempts WHERE attempt_id = NEW.attempt_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: the attempt is finished; no event can be added to it'); END;
CREATE TRIGGER events_attempt_of_run BEFORE INSERT ON events
    WHEN NEW.attempt_id IS NOT NULL AND
         (SELECT run_id FROM attempts WHERE attempt_id = NEW.attempt_id) IS NOT NEW.run_id
BEGIN SELECT RAISE(ABORT, 'kosmos: the event''s attempt belongs to another run'); END;
CREATE TRIGGER events_seq_contiguous BEFORE INSERT ON events
    WHEN NEW.seq <> COALESCE((SELECT MAX(seq) FROM events WHERE run_id = NEW.run_id), 0) + 1
BEGIN SELECT RAISE(ABORT, 'kosmos: event sequence numbers must grow by one per run'); END;
CREATE TRIGGER attempt_artifacts_attempt_open BEFORE INSERT ON attempt_artifacts
    WHEN (SELECT state FROM attempts WHERE attempt_id = NEW.attempt_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: the attempt is finished; no artifact can be added to it'); END;
CREATE TRIGGER provenance_attempt_open BEFORE INSERT ON provenance
    WHEN NEW.attempt_id IS NOT NULL AND
         (SELECT state FROM attempts WHERE attempt_id = NEW.attempt_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: the attempt is finished; no provenance can be added to it'); END;
CREATE TRIGGER validation_attempt_open BEFORE INSERT ON validation_results
    WHEN (SELECT state FROM attempts WHERE attempt_id = NEW.attempt_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: the attempt is finished; no validation can be added to it'); END;
CREATE TRIGGER judgments_attempt_open BEFORE INSERT ON judgments
    WHEN (SELECT state FROM attempts WHERE attempt_id = NEW.attempt_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: the attempt is finished; no judgment can be added to it'); END;
CREATE TRIGGER judge_samples_attempt_open BEFORE INSERT ON judge_samples
    WHEN (SELECT a.state FROM judgments j JOIN attempts a ON a.attempt_id = j.attempt_id
          WHERE j.judgment_id = NEW.judgment_id) IS NOT 'running'
BEGIN SELECT RAISE(ABORT, 'kosmos: the attempt is finished; no judge sample can be added to it'); END;

-- ---- Views (schema version 6): what a run's rows mean, defined once -------------------
-- Every reader (the CLI's verbs, ranking, calibration, fidelity, the batch summary, dataset
-- export and the workstation's runs table) reads runs through these views, so a rule about what
-- counts is written here only (core/queries/LedgerViews.h names their columns for C++).

-- Each run's latest attempt: the one whose validation, judgment and ground truth count (a killed
-- or taken-over attempt judged another rollout, and never counts).
CREATE VIEW latest_attempts AS
SELECT a.* FROM attempts a
 WHERE a.attempt_no = (SELECT MAX(x.attempt_no) FROM attempts x WHERE x.run_id = a.run_id);

-- A component as the ledger names it: its adapter and its settings (the identity's config as
-- canonical JSON; '{}' when the identity holds none, as a component without settings is named).
CREATE VIEW component_labels AS
SELECT component_id, family, adapter_id,
       adapter_id || ' ' || COALESCE(json_extract(identity_json, '$.config'), '{}') AS label
  FROM components;

-- The labels that count. A world's ground truth (physics, synthetic_reference) counts only when
-- it was written at or after the start of its run's latest attempt: an earlier one was left by an
-- attempt that never ended (killed, abandoned), in ledgers written before ground truth was
-- recorded with the attempt's end. Other labels always count.
CREATE VIEW counted_labels AS
SELECT h.* FROM human_labels h
 WHERE h.source NOT IN ('physics', 'synthetic_reference')
    OR h.labeled_at_ms >= (SELECT la.started_at_ms FROM latest_attempts la
                            WHERE la.run_id = h.run_id);

-- Each run with what counts about it: its latest attempt, that attempt's latest validation and judgment, and the
-- latest counted label of each kind: `reference` any label that is not a person's (a world's
-- ground truth or an imported reference), `world_truth` a world's own (physics,
-- synthetic_reference), `human` a person's. `rejudge_of` is set on a re-judgment of another
-- run's rollout (not a new rollout: counts of rollouts leave it out). Every derived column is a
-- subquery of its own, so a page of the runs table computes them for the rows it shows only.
CREATE VIEW run_latest AS
SELECT r.run_id, r.run_key, r.protocol_id, p.protocol_sha256, r.episode_index, r.task,
       r.instruction, r.status, r.created_at_ms, r.finished_at_ms,
       json_extract(r.key_json, '$.seeds.rejudge_of') AS rejudge_of,
       r.policy_id,
       (SELECT cl.label FROM component_labels cl WHERE cl.component_id = r.policy_id) AS policy_label,
       r.world_model_id,
       (SELECT cl.adapter_id FROM component_labels cl WHERE cl.component_id = r.world_model_id) AS world_model,
       (SELECT cl.label FROM component_labels cl WHERE cl.component_id = r.world_model_id) AS world_model_label,
       (SELECT la.attempt_id FROM latest_attempts la WHERE la.run_id = r.run_id) AS attempt_id,
       CASE WHEN r.finished_at_ms IS NOT NULL THEN r.finished_at_ms -
           (SELECT MIN(a.started_at_ms) FROM attempts a WHERE a.run_id = r.run_id) END AS duration_ms,
       (SELECT v.verdict FROM validation_results v WHERE v.attempt_id = (SELECT la.attempt_id FROM latest_attempts la WHERE la.run_id = r.run_id)
         ORDER BY v.validation_id DESC LIMIT 1) AS validation,
       (SELECT MAX(j.judgment_id) FROM judgments j WHERE j.attempt_id = (SELECT la.attempt_id FROM latest_attempts la WHERE la.run_id = r.run_id)) AS judgment_id,
       (SELECT j.outcome FROM judgments j WHERE j.attempt_id = (SELECT la.attempt_id FROM latest_attempts la WHERE la.run_id = r.run_id)
         ORDER BY j.judgment_id DESC LIMIT 1) AS judge_outcome,
       (SELECT j.unknown_reason FROM judgments j WHERE j.attempt_id = (SELECT la.attempt_id FROM latest_attempts la WHERE la.run_id = r.run_id)
         ORDER BY j.judgment_id DESC LIMIT 1) AS judge_unknown_reason,
       (SELECT c.completion FROM counted_labels c WHERE c.run_id = r.run_id
           AND c.source <> 'human' ORDER BY c.label_id DESC LIMIT 1) AS reference,
       (SELECT c.source FROM counted_labels c WHERE c.run_id = r.run_id
           AND c.source <> 'human' ORDER BY c.label_id DESC LIMIT 1) AS reference_source,
       (SELECT c.completion FROM counted_labels c WHERE c.run_id = r.run_id
           AND c.source IN ('physics', 'synthetic_reference') ORDER BY c.label_id DESC LIMIT 1) AS world_truth,
       (SELECT c.source FROM counted_labels c WHERE c.run_id = r.run_id
           AND c.source IN ('physics', 'synthetic_reference') ORDER BY c.label_id DESC LIMIT 1) AS world_truth_source,
       (SELECT c.completion FROM counted_labels c WHERE c.run_id = r.run_id
           AND c.source = 'human' ORDER BY c.label_id DESC LIMIT 1) AS human
  FROM runs r
  JOIN protocols p ON p.protocol_id = r.protocol_id;
-- ---- end of views

PRAGMA user_version = 6;
