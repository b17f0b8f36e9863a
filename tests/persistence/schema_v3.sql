CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE groups (
    account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL,
    created TEXT NOT NULL, modified TEXT NOT NULL, state TEXT NOT NULL, tags TEXT NOT NULL,
    removal_due TEXT,
    PRIMARY KEY (account, region, name)
) WITHOUT ROWID;
CREATE TABLE schedules (
    account TEXT NOT NULL, region TEXT NOT NULL, grp TEXT NOT NULL, name TEXT NOT NULL,
    incarnation INTEGER NOT NULL, definition TEXT NOT NULL, last_dispatched INTEGER,
    fires INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account, region, grp, name)
) WITHOUT ROWID;
CREATE INDEX schedules_by_incarnation ON schedules (incarnation);
CREATE TABLE rules (
    account TEXT NOT NULL, region TEXT NOT NULL, bus TEXT NOT NULL, name TEXT NOT NULL,
    incarnation INTEGER NOT NULL, definition TEXT NOT NULL,
    PRIMARY KEY (account, region, bus, name)
) WITHOUT ROWID;
CREATE TABLE rule_plans (
    incarnation INTEGER PRIMARY KEY, rule_arn TEXT NOT NULL, target_id TEXT NOT NULL,
    defined_at TEXT NOT NULL, last_dispatched INTEGER, fires INTEGER NOT NULL
);
CREATE INDEX rule_plans_by_rule ON rule_plans (rule_arn);
CREATE TABLE tokens (
    account TEXT NOT NULL, region TEXT NOT NULL, operation TEXT NOT NULL, token TEXT NOT NULL,
    fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (account, region, operation, token)
) WITHOUT ROWID;
CREATE TABLE occurrences (
    seq INTEGER PRIMARY KEY,
    incarnation INTEGER NOT NULL, nominal INTEGER NOT NULL, fired INTEGER NOT NULL,
    event_id TEXT NOT NULL, producer TEXT NOT NULL, grp TEXT NOT NULL, name TEXT NOT NULL,
    first_due INTEGER NOT NULL, status TEXT NOT NULL, first_attempt_at INTEGER,
    exhausted TEXT, next_number INTEGER, next_due INTEGER,
    UNIQUE (incarnation, nominal, fired)
);
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    incarnation INTEGER NOT NULL, nominal INTEGER NOT NULL,
    producer TEXT NOT NULL, target_arn TEXT NOT NULL, attempted_at INTEGER NOT NULL,
    attempt_number INTEGER NOT NULL, event_id TEXT NOT NULL, execution_id TEXT NOT NULL,
    input TEXT, request_text TEXT NOT NULL, succeeded INTEGER NOT NULL,
    error_code TEXT, error_message TEXT, retryable INTEGER,
    grp TEXT NOT NULL, name TEXT NOT NULL, fired INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX attempts_by_occurrence ON attempts (incarnation, nominal);
CREATE TABLE dead_letters (
    id INTEGER PRIMARY KEY,
    queue_arn TEXT NOT NULL, body TEXT NOT NULL, attributes TEXT NOT NULL,
    producer TEXT NOT NULL, scheduled_time INTEGER NOT NULL, sent_at TEXT,
    queue_url TEXT NOT NULL, delivered INTEGER NOT NULL
);
CREATE TABLE activity (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL, at TEXT NOT NULL, producer TEXT NOT NULL, scheduled_time INTEGER,
    detail TEXT NOT NULL
);
CREATE TABLE known (
    kind TEXT NOT NULL, arn TEXT NOT NULL, grp TEXT, name TEXT, seq INTEGER NOT NULL,
    definition TEXT,
    PRIMARY KEY (kind, arn)
) WITHOUT ROWID;
