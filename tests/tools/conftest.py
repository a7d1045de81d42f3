"""pytest set-up for the host tools' tests (tests/tools/test_*.py): the
tools/ folder on sys.path, and a `store_url` fixture that runs a test once on
SQLite and once on PostgreSQL (one temporary cluster for the whole session,
a fresh schema per test)."""
import itertools
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)

import pgcluster  # noqa: E402

_counter = itertools.count()


@pytest.fixture(scope="session")
def pg_cluster():
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        pytest.fail("python3-psycopg2 is missing (make deps installs it); the PostgreSQL tests need it")
    c = pgcluster.Cluster().start()
    yield c
    c.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """A fresh, empty store of each kind."""
    if request.param == "sqlite":
        return "sqlite:%s" % (tmp_path / "store.db")
    cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_schema("t%d_%d" % (os.getpid(), next(_counter)))
