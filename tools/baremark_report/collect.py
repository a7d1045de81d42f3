"""baremark-collect: the rack's results receiver (HTTP PUT, token, store).

    baremark-collect --listen ADDR:PORT --db sqlite:PATH|postgresql://... --token-file FILE [--raw-dir DIR]

Takes `PUT /ANY/PATH/NAME` as the firmware's upload= sends it (efi/upload.c:
one PUT per file, Content-Length, Connection: close) with
`Authorization: Bearer TOKEN`, the token of the served baremark.cfg's
upload_token=. Answers:
  201  stored (a .jsonl with at least one new record, or a new .html report)
  204  already stored (the same bytes again, or no record that was not already in)
  400  not records: a bad name, a .jsonl holding no baremark record, an .html that is not a page
  401  token missing or wrong: nothing is read beyond the header, nothing stored
  405  not a PUT
  411  no Content-Length (chunked bodies are refused)
  413  larger than --max-bytes (.jsonl) or --max-html-bytes (.html)
  500  the store failed (the raw file is kept; the firmware retries)
Every refusal writes one log line: time, address, status, name, why.

The body is streamed to a temporary file in the raw folder (64 KiB at a
time, hashed on the way), then kept as RAW/ab/SHA256.jsonl|html: content
addressed, so two machines uploading the same name never overwrite each
other, and the same bytes twice are stored once. Records are loaded by
ingest.load_file (bounded memory, idempotent per record).

From a test: `srv = start_collector("sqlite:/tmp/x.db", token="t")` starts one
on a free port of 127.0.0.1 in a thread and returns it (srv.port, srv.url,
srv.stop()); `start_collector_process(...)` does the same in a subprocess
(the command line above) for tests that need another network namespace.
"""
import argparse
import hashlib
import hmac
import http.server
import json
import os
import queue
import re
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from . import ingest
from .store import StoreError, open_store

MAX_BYTES = 64 << 20       # the firmware's own limit (efi/upload.c UPLOAD_MAX_BYTES)
MAX_HTML_BYTES = 16 << 20  # efi/upload.c UPLOAD_HTML_MAX
CHUNK = 64 * 1024
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
DRAIN_MAX = 1 << 20        # bytes of a refused body read before closing, so the client sees the answer
READ_TIMEOUT_S = 60       # a client that sends nothing for this long is dropped
MAX_REQUESTS = 32         # requests served at once

DESCRIPTION = __doc__.split("\n\n", 1)[1]


def read_token(path):
    """The rack token from its file (surrounding white space removed); raises ValueError when empty."""
    with open(path, "r", encoding="utf-8") as f:
        tok = f.read().strip()
    if not tok or any(c.isspace() for c in tok):
        raise ValueError("%s: the token must be one word" % path)
    return tok


class Collector(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """The HTTP server: configuration shared by the handler threads, one store
    connection per thread, a lock serialising loads into SQLite."""
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, db_url, token, raw_dir, max_bytes=MAX_BYTES, max_html_bytes=MAX_HTML_BYTES,
                 log=None):
        self.db_url, self.token, self.raw_dir = db_url, token, raw_dir
        self.max_bytes, self.max_html_bytes = max_bytes, max_html_bytes
        self.log_stream = log or sys.stderr
        self.log_lock = threading.Lock()
        self.idle = queue.LifoQueue()  # store connections between requests (a thread per request)
        self.slots = threading.BoundedSemaphore(MAX_REQUESTS)
        os.makedirs(os.path.join(raw_dir, "tmp"), exist_ok=True)
        st = open_store(db_url)  # the schema, and a clear error now rather than at the first upload
        self.load_lock = threading.Lock() if st.kind == "sqlite" else None
        self.idle.put(st)
        super().__init__(addr, Handler)

    def process_request(self, request, client_address):
        """A thread per request, at most MAX_REQUESTS at once: beyond that new connections wait
        (in the listen backlog) instead of each taking a thread and a store connection."""
        self.slots.acquire()
        try:
            super().process_request(request, client_address)
        except Exception:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def take_store(self):
        """A store connection for one request: an idle one, else a new one. As many stay open as
        requests ran at the same time (PostgreSQL's max_connections bounds that)."""
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            return open_store(self.db_url, create=False)

    def give_store(self, st):
        """Hand a connection back after its request."""
        self.idle.put(st)

    def log(self, peer, status, name, why):
        """One line per refusal or stored upload."""
        line = "%s baremark-collect: %s %d %s: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), peer, status,
                                                         name or "-", why)
        with self.log_lock:
            self.log_stream.write(line)
            self.log_stream.flush()

    def server_close(self):
        super().server_close()
        while True:
            try:
                self.idle.get_nowait().close()
            except queue.Empty:
                break

    # The URL a firmware config names for this server (upload=).
    @property
    def port(self):
        return self.server_address[1]

    @property
    def url(self):
        return "http://%s:%d/results" % (self.server_address[0], self.port)

    def stop(self):
        """Stop serving and close (for tests)."""
        self.shutdown()
        self.server_close()


class Handler(http.server.BaseHTTPRequestHandler):
    """One request: check, stream to disk, load, answer."""
    server_version = "baremark-collect"
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT_S

    def log_message(self, fmt, *args):  # the server's own log lines replace http.server's
        pass

    def _answer(self, status, why, name=None, body=None, log=True):
        if log:
            self.server.log(self.client_address[0], status, name, why)
        data = (json.dumps(body) + "\n").encode() if body is not None else b""
        if status != 204 and not data:
            data = (why + "\n").encode("utf-8", "replace")
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="baremark"')
        if status != 204:
            self.send_header("Content-Type", "application/json" if body is not None else "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if status != 204:
            self.wfile.write(data)
        self.close_connection = True

    def _drain(self, length):
        """Read (and drop) up to DRAIN_MAX bytes of a refused body so the client reads the answer."""
        left = min(length or 0, DRAIN_MAX)
        try:
            while left > 0:
                got = self.rfile.read(min(CHUNK, left))
                if not got:
                    break
                left -= len(got)
        except OSError:
            pass

    def _refuse_method(self):
        self._answer(405, "only PUT is taken", self.path)

    do_GET = do_POST = do_DELETE = do_HEAD = do_PATCH = _refuse_method

    def do_PUT(self):
        srv = self.server
        path = urllib.parse.urlsplit(self.path).path
        name = urllib.parse.unquote(path.rsplit("/", 1)[-1])
        try:
            length = int(self.headers.get("Content-Length", ""))
            if length < 0:
                raise ValueError
        except ValueError:
            length = None
        # The token first: a client without it learns nothing else.
        auth = self.headers.get("Authorization", "")
        given = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        if not given or not hmac.compare_digest(given.encode("utf-8", "replace"), srv.token.encode()):
            self._drain(length)
            return self._answer(401, "missing token" if not auth else "wrong token", name)
        if not NAME_RE.match(name) or not (name.endswith(".jsonl") or name.endswith(".html")):
            self._drain(length)
            return self._answer(400, "bad name (want NAME.jsonl or NAME.html of [A-Za-z0-9._-])", name[:100])
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower() or length is None:
            return self._answer(411, "no Content-Length", name)
        html = name.endswith(".html")
        limit = srv.max_html_bytes if html else srv.max_bytes
        if length > limit:
            self._drain(length)
            return self._answer(413, "%d bytes, over the limit of %d" % (length, limit), name)
        tmp, sha = self._receive(length)
        if tmp is None:
            return self._answer(400, "body cut short (%s of %d bytes)" % (sha, length), name)
        try:
            self._store(tmp, sha, name, length, html)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def _receive(self, length):
        """Stream the body to a temporary file; (path, sha256 hex) or (None, bytes read)."""
        h = hashlib.sha256()
        fd, tmp = tempfile.mkstemp(dir=os.path.join(self.server.raw_dir, "tmp"), suffix=".part")
        got = 0
        try:
            with os.fdopen(fd, "wb") as f:
                while got < length:
                    chunk = self.rfile.read(min(CHUNK, length - got))
                    if not chunk:
                        break
                    h.update(chunk)
                    f.write(chunk)
                    got += len(chunk)
        except OSError:
            pass
        if got < length:
            os.unlink(tmp)
            return None, got
        return tmp, h.hexdigest()

    def _store(self, tmp, sha, name, length, html):
        """Keep the raw file, load its records, answer."""
        srv = self.server
        try:
            st = srv.take_store()
        except StoreError as e:
            return self._answer(500, "store: %s" % e, name)
        try:
            self._load(st, tmp, sha, name, length, html)
        finally:
            srv.give_store(st)

    def _load(self, st, tmp, sha, name, length, html):
        """_store with a connection."""
        srv = self.server
        peer = self.client_address[0]
        ext = ".html" if html else ".jsonl"
        final = os.path.join(srv.raw_dir, sha[:2], sha + ext)
        lock = srv.load_lock or _NoLock()
        try:
            with lock:
                cur = st.execute("SELECT run_key FROM uploads WHERE sha256 = ?", (sha,))
                if cur.fetchone():
                    st.rollback()
                    return self._answer(204, "the same bytes were stored before", name)
                if html:
                    with open(tmp, "rb") as f:
                        head = f.read(512).lstrip().lower()
                    if not (head.startswith(b"<!doctype html") or head.startswith(b"<html")):
                        return self._answer(400, "not an HTML page", name)
                    stem = name[:-len(ext)]
                    cur = st.execute("SELECT run_key FROM uploads WHERE kind = 'jsonl' AND peer = ? AND name = ? "
                                     "ORDER BY received DESC LIMIT 1", (peer, stem + ".jsonl"))
                    row = cur.fetchone()
                    run_key = row[0] if row else None
                    loaded = None
                else:
                    loaded = ingest.load_file(st, tmp, peer, name)
                    if loaded.records == 0:
                        st.rollback()
                        why = "no baremark record"
                        if loaded.reasons:
                            why += " (%s)" % "; ".join(loaded.reasons[:2])
                        return self._answer(400, why, name)
                    run_key = loaded.identity.run_key
                rel = os.path.join(sha[:2], sha + ext)
                os.makedirs(os.path.dirname(final), exist_ok=True)
                os.replace(tmp, final)
                st.execute("INSERT INTO uploads (sha256, run_key, name, kind, peer, bytes, lines, records, bad, "
                           "new_records, received, raw_path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
                           "ON CONFLICT (sha256) DO NOTHING",
                           (sha, run_key, name, ext[1:], peer, length, loaded.lines if loaded else None,
                            loaded.records if loaded else None, loaded.bad if loaded else None,
                            loaded.new if loaded else None, time.time(), rel))
                if run_key:
                    column = "html_path" if html else "raw_path"
                    st.execute("UPDATE runs SET %s = ? WHERE run_key = ?" % column, (rel, run_key))
                st.commit()
        except st.errors as e:
            try:
                st.rollback()
            except st.errors:
                pass
            return self._answer(500, "store: %s" % str(e).strip().splitlines()[0], name)
        body = {"run_key": run_key, "stored": rel}
        if loaded:
            body.update(records=loaded.records, new_records=loaded.new, bad_lines=loaded.bad)
            if loaded.bad:
                srv.log(peer, 201, name, "stored, %d bad line(s): %s" % (loaded.bad, "; ".join(loaded.reasons)))
            if loaded.new == 0:
                return self._answer(204, "no new record", name, log=False)
        return self._answer(201, "stored", name, body=body, log=False)


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def parse_listen(text):
    """ADDR:PORT (or :PORT, or [v6]:PORT) -> (addr, port)."""
    m = re.match(r"^\[?([^\]]*?)\]?:(\d+)$", text)
    if not m or not 0 <= int(m.group(2)) <= 65535:
        raise ValueError("--listen %s: want ADDR:PORT" % text)
    return m.group(1) or "0.0.0.0", int(m.group(2))


def default_raw_dir(db_url):
    """Where raw files go without --raw-dir: beside an SQLite file (PATH.raw), else ./baremark-raw."""
    if db_url.startswith("sqlite:"):
        path = db_url[len("sqlite:"):]
        return os.path.abspath(path[2:] if path.startswith("//") else path) + ".raw"
    return os.path.abspath("baremark-raw")


def make_server(listen, db_url, token, raw_dir=None, **kw):
    """A Collector bound to listen ((addr, port) or 'ADDR:PORT'), not yet serving."""
    addr = parse_listen(listen) if isinstance(listen, str) else listen
    cls = Collector
    if ":" in addr[0]:
        cls = type("Collector6", (Collector,), {"address_family": socket.AF_INET6})
    return cls(addr, db_url, token, raw_dir or default_raw_dir(db_url), **kw)


def start_collector(db_url, token, raw_dir=None, listen=("127.0.0.1", 0), **kw):
    """Start a collector in a thread (port 0: a free one); returns the Collector
    (.port, .url, .stop())."""
    srv = make_server(listen, db_url, token, raw_dir, **kw)
    t = threading.Thread(target=srv.serve_forever, name="baremark-collect", daemon=True)
    t.start()
    return srv


def start_collector_process(db_url, token_file, listen, raw_dir=None, log_path=None, prefix=(), wait=True):
    """Start `baremark-collect` as a subprocess, optionally behind a command prefix
    (e.g. ["ip", "netns", "exec", "rack"]); returns the Popen, once the port accepts
    connections when wait is true (only possible from the same network namespace)."""
    tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "baremark-collect")
    cmd = list(prefix) + [sys.executable, tool, "--listen", listen, "--db", db_url, "--token-file", token_file]
    if raw_dir:
        cmd += ["--raw-dir", raw_dir]
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdout=log, stderr=log)
    if not wait:
        return proc
    host, port = parse_listen(listen)
    probe = "127.0.0.1" if host in ("0.0.0.0", "") else host
    deadline = time.time() + 15
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("baremark-collect exited with status %s" % proc.returncode)
        try:
            socket.create_connection((probe, port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("baremark-collect did not listen on %s within 15 s" % listen)


def build_parser():
    ap = argparse.ArgumentParser(prog="baremark-collect", description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listen", required=True, metavar="ADDR:PORT", help="address and port to listen on")
    ap.add_argument("--db", required=True, metavar="URL", help="sqlite:PATH or postgresql://...")
    ap.add_argument("--token-file", required=True, metavar="FILE",
                    help="file holding the rack token (the served cfg's upload_token=)")
    ap.add_argument("--raw-dir", metavar="DIR", help="where raw uploads are kept (default: DB file + .raw)")
    ap.add_argument("--max-bytes", type=int, default=MAX_BYTES, metavar="N", help="largest .jsonl (%(default)s)")
    ap.add_argument("--max-html-bytes", type=int, default=MAX_HTML_BYTES, metavar="N",
                    help="largest .html (%(default)s)")
    return ap


def main(argv=None):
    """Run the collector until interrupted; 2 on a usage error."""
    args = build_parser().parse_args(argv)
    try:
        token = read_token(args.token_file)
        srv = make_server(args.listen, args.db, token, args.raw_dir, max_bytes=args.max_bytes,
                          max_html_bytes=args.max_html_bytes)
    except (OSError, ValueError, StoreError) as e:
        sys.stderr.write("baremark-collect: %s\n" % e)
        return 2
    sys.stderr.write("baremark-collect: listening on %s:%d, store %s, raw files in %s\n"
                     % (srv.server_address[0], srv.port, args.db, srv.raw_dir))
    sys.stderr.flush()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0
