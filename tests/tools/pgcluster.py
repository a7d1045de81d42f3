"""A throw-away PostgreSQL server for the store tests: Debian's postgresql 15
(initdb, pg_ctl from /usr/lib/postgresql/15/bin), a temporary folder, a
unix socket in it and no TCP port, trust authentication, fsync off.

initdb refuses to run as root; then the cluster belongs to the `postgres`
user (created by the Debian package) and its commands run through runuser.
"""
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time


def pg_bin():
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return os.path.dirname(found[-1]) if found else None


class Cluster:
    """start() -> the cluster with .url(dbname); stop() removes everything."""

    def __init__(self):
        self.bin = pg_bin()
        self.dir = None
        self.user = None

    def _cmd(self, args):
        if self.user:
            return ["runuser", "-u", self.user, "--"] + args
        return args

    def start(self):
        if not self.bin:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.dir = tempfile.mkdtemp(prefix="baremark-pg-")
        if os.geteuid() == 0:
            self.user = "postgres"
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        data = os.path.join(self.dir, "data")
        subprocess.run(self._cmd([os.path.join(self.bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
                                  "-E", "UTF8", "--locale=C", "--no-sync"]),
                       check=True, capture_output=True)
        opts = "-k %s -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off" % self.dir
        p = subprocess.run(self._cmd([os.path.join(self.bin, "pg_ctl"), "-D", data, "-o", opts, "-w", "-t", "30",
                                      "-l", os.path.join(self.dir, "log"), "start"]), capture_output=True, text=True)
        if p.returncode != 0:
            log = open(os.path.join(self.dir, "log")).read() if os.path.exists(os.path.join(self.dir, "log")) else ""
            self.stop()
            raise RuntimeError("pg_ctl start failed: %s %s %s" % (p.stdout, p.stderr, log))
        return self

    def url(self, db="postgres"):
        return "postgresql:///%s?host=%s&user=postgres" % (db, self.dir)

    def create_db(self, name):
        """A new, empty database; returns its URL."""
        import psycopg2
        conn = psycopg2.connect(self.url())
        conn.autocommit = True
        conn.cursor().execute("CREATE DATABASE %s" % name)
        conn.close()
        return self.url(name)

    def create_schema(self, name, db="postgres"):
        """A new, empty schema, and a URL whose connections use it (search_path): as good as a new
        database for the tests, and instant."""
        import psycopg2
        conn = psycopg2.connect(self.url(db))
        conn.autocommit = True
        conn.cursor().execute("CREATE SCHEMA %s" % name)
        conn.close()
        return self.url(db) + "&options=-csearch_path%%3D%s" % name

    def stop(self):
        if self.dir and os.path.isdir(os.path.join(self.dir, "data")):
            subprocess.run(self._cmd([os.path.join(self.bin, "pg_ctl"), "-D", os.path.join(self.dir, "data"),
                                      "-m", "immediate", "-w", "stop"]), capture_output=True)
        if self.dir:
            for _ in range(20):
                shutil.rmtree(self.dir, ignore_errors=True)
                if not os.path.exists(self.dir):
                    break
                time.sleep(0.1)
        self.dir = None
