"""The results store: one schema for SQLite (the default, one file) and
PostgreSQL (Debian's python3-psycopg2), the connection and the SQL dialect.

A URL names the store: `sqlite:PATH` (PATH may be relative) or
`postgresql://[user@]host[:port]/db` (libpq syntax, also `postgresql:///db?host=/socket/dir`).
The SQL text is written once with `?` placeholders and standard syntax both
engines take (ON CONFLICT DO NOTHING / DO UPDATE, window functions, CREATE
TEMP TABLE AS); `Store.sql()` turns the placeholders into psycopg2's `%s`.

Tables (see docs/pending-30.md for the upload and identity contract):
  runs           one row per run: run key, machine key, identity fields, status
  uploads        one row per stored upload (content SHA-256, raw file path)
  records        every record of every run: (run_key, line) -> type, pass, JSON text
  disk, disk_result, mem_latency, mem_bandwidth, pci, dimm, dimm_summary, error
                 the fields the report compares, one row per record, keyed the same
"""
import os

SCHEMA_VERSION = 1

F = "DOUBLE PRECISION"  # REAL in PostgreSQL is 4 bytes; SQLite reads this as REAL affinity

TABLES = [
    """CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)""",
    """CREATE TABLE IF NOT EXISTS runs (
        run_key TEXT PRIMARY KEY, run_id TEXT, machine_key TEXT NOT NULL, name TEXT NOT NULL,
        named_by TEXT NOT NULL, smbios_uuid TEXT, serial TEXT, mac TEXT, ip TEXT, peer TEXT,
        product TEXT, cpu TEXT, cpus BIGINT, version TEXT, time TEXT, args TEXT,
        first_seen %s NOT NULL, last_seen %s NOT NULL, records BIGINT NOT NULL, passes BIGINT,
        end_status TEXT, end_errors BIGINT, end_note TEXT, uploads BIGINT NOT NULL, upload_name TEXT,
        raw_path TEXT, html_path TEXT)""" % (F, F),
    """CREATE INDEX IF NOT EXISTS runs_machine ON runs (machine_key)""",
    """CREATE INDEX IF NOT EXISTS runs_mac ON runs (mac)""",
    """CREATE INDEX IF NOT EXISTS runs_serial ON runs (serial)""",
    """CREATE TABLE IF NOT EXISTS uploads (
        sha256 TEXT PRIMARY KEY, run_key TEXT, name TEXT NOT NULL, kind TEXT NOT NULL, peer TEXT,
        bytes BIGINT NOT NULL, lines BIGINT, records BIGINT, bad BIGINT, new_records BIGINT,
        received %s NOT NULL, raw_path TEXT NOT NULL)""" % F,
    """CREATE INDEX IF NOT EXISTS uploads_run ON uploads (run_key)""",
    """CREATE TABLE IF NOT EXISTS records (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT, pass BIGINT, body TEXT NOT NULL,
        PRIMARY KEY (run_key, seq))""",
    """CREATE TABLE IF NOT EXISTS disk (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, disk TEXT, driver TEXT, model TEXT, serial TEXT,
        firmware TEXT, lba_bytes %s, blocks %s, pci TEXT, link_gbps %s, PRIMARY KEY (run_key, seq))""" % (F, F, F),
    """CREATE TABLE IF NOT EXISTS disk_result (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, pass BIGINT NOT NULL, disk TEXT, model TEXT, serial TEXT,
        test TEXT, rw TEXT, bs {f}, qd {f}, is_all BIGINT NOT NULL, mbps {f}, iops {f}, lat_mean_us {f},
        lat_p50_us {f}, lat_p99_us {f}, lat_p999_us {f}, lat_max_us {f},
        PRIMARY KEY (run_key, seq))""".format(f=F),
    """CREATE TABLE IF NOT EXISTS mem_latency (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, pass BIGINT NOT NULL, cpu TEXT, bytes {f}, pattern TEXT,
        extra TEXT, ns {f}, PRIMARY KEY (run_key, seq))""".format(f=F),
    """CREATE TABLE IF NOT EXISTS mem_bandwidth (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, pass BIGINT NOT NULL, cpu TEXT, threads {f}, op TEXT,
        extra TEXT, bytes {f}, gbps {f}, PRIMARY KEY (run_key, seq))""".format(f=F),
    """CREATE TABLE IF NOT EXISTS pci (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, bdf TEXT, vendor TEXT, device TEXT, class TEXT,
        speed_gts {f}, width {f}, max_speed_gts {f}, max_width {f}, downtrained BIGINT, path TEXT,
        PRIMARY KEY (run_key, seq))""".format(f=F),
    """CREATE TABLE IF NOT EXISTS dimm (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, bank TEXT, locator TEXT, size_mb {f}, mem_type TEXT,
        speed_mts {f}, configured_mts {f}, ranks {f}, manufacturer TEXT, part TEXT, serial TEXT,
        PRIMARY KEY (run_key, seq))""".format(f=F),
    """CREATE TABLE IF NOT EXISTS dimm_summary (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, populated {f}, slots {f}, total_mb {f}, warnings TEXT,
        PRIMARY KEY (run_key, seq))""".format(f=F),
    """CREATE TABLE IF NOT EXISTS error (
        run_key TEXT NOT NULL, seq BIGINT NOT NULL, pass BIGINT NOT NULL, where_ TEXT, message TEXT,
        PRIMARY KEY (run_key, seq))""",
]


class StoreError(Exception):
    """A store that cannot be opened or used (bad URL, missing driver, server down)."""


class Store:
    """One connection to the store, with the dialect's small differences."""

    def __init__(self, url):
        self.url = url
        if url.startswith("sqlite:"):
            import sqlite3
            self.kind = "sqlite"
            path = url[len("sqlite:"):]
            if path.startswith("//"):
                path = path[2:]
            if not path:
                raise StoreError("sqlite: needs a file path (sqlite:results.db)")
            self.path = path
            folder = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(folder):
                raise StoreError("%s: no such folder" % folder)
            try:
                self.conn = sqlite3.connect(path, timeout=60, check_same_thread=False)
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute("PRAGMA temp_store=FILE")
            except sqlite3.Error as e:
                raise StoreError("%s: %s" % (path, e))
            self.errors = (sqlite3.Error,)
            self.collate = ""
        elif url.startswith("postgresql:") or url.startswith("postgres:"):
            try:
                import psycopg2
                import psycopg2.extras
            except ImportError:
                raise StoreError("PostgreSQL needs psycopg2: apt-get install python3-psycopg2")
            self.kind = "pg"
            self.path = None
            try:
                self.conn = psycopg2.connect(url)
            except psycopg2.Error as e:
                raise StoreError("%s: %s" % (url, str(e).strip()))
            self._extras = psycopg2.extras
            self.errors = (psycopg2.Error,)
            # Python sorts text by code point; PostgreSQL's default collation follows the locale.
            self.collate = ' COLLATE "C"'
        else:
            raise StoreError("unknown store %r: use sqlite:PATH or postgresql://..." % url)

    def sql(self, text):
        """The statement in this engine's placeholder style."""
        return text.replace("?", "%s") if self.kind == "pg" else text

    def execute(self, text, params=()):
        """Run one statement; returns the cursor."""
        cur = self.conn.cursor()
        cur.execute(self.sql(text), params)
        return cur

    def executemany(self, text, rows):
        """Run one statement for many parameter rows (batched on PostgreSQL)."""
        if not rows:
            return
        cur = self.conn.cursor()
        if self.kind == "pg":
            self._extras.execute_batch(cur, self.sql(text), rows, page_size=500)
        else:
            cur.executemany(text, rows)

    def query(self, text, params=(), batch=2000):
        """The rows of a query, fetched in batches (a server-side cursor on
        PostgreSQL): memory stays bounded however many rows there are."""
        if self.kind == "pg":
            cur = self.conn.cursor(name="bm_%d" % id(text))
            cur.itersize = batch
            cur.execute(self.sql(text), params)
        else:
            cur = self.conn.cursor()
            cur.execute(text, params)
        try:
            while True:
                rows = cur.fetchmany(batch)
                if not rows:
                    break
                # (a named cursor of psycopg2 describes its columns only once it has fetched)
                cols = [d[0] for d in cur.description]
                for r in rows:
                    yield dict(zip(cols, r))
        finally:
            cur.close()

    def create_schema(self):
        """Create the tables when they are missing (idempotent)."""
        for ddl in TABLES:
            self.execute(ddl)
        self.execute("INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO NOTHING",
                     (str(SCHEMA_VERSION),))
        self.conn.commit()

    def temp_table(self, name, select, params=()):
        """CREATE TEMP TABLE name AS select (dropped first when it exists)."""
        self.execute("DROP TABLE IF EXISTS %s" % name)
        self.execute("CREATE TEMP TABLE %s AS %s" % (name, select), params)

    def commit(self):
        self.conn.commit()

    def rollback(self):
        self.conn.rollback()

    def close(self):
        try:
            self.conn.close()
        except Exception:  # closing twice, or a server already gone
            pass


def open_store(url, create=True):
    """A Store with the schema in place."""
    st = Store(url)
    if create:
        try:
            st.create_schema()
        except st.errors as e:
            st.close()
            raise StoreError("%s: %s" % (url, str(e).strip()))
    return st
