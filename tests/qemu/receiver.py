"""A real results receiver for the upload tests: Debian's nginx with the
sample boot/nginx-baremark.conf (WebDAV PUT), on a free port, under its own
prefix, pid and temp folders, as the user running the tests."""
import os
import re
import socket
import subprocess
import time

import qemu

SAMPLE = os.path.join(qemu.ROOT, "boot", "nginx-baremark.conf")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Nginx:
    """nginx from the sample config: listen and root edited as its comments
    say, one process (master_process off) so it runs as this user."""

    def __init__(self, listen="0.0.0.0", port=None):
        self.port = port or free_port()
        self.probe = "127.0.0.1" if listen == "0.0.0.0" else listen
        self.prefix = qemu.tempdir("baremark-nginx-")
        self.root = os.path.join(self.prefix, "www")
        os.makedirs(os.path.join(self.root, "results"))
        os.makedirs(os.path.join(self.prefix, "tmp"))
        text = open(SAMPLE).read()
        text = re.sub(r"listen \d+;", "listen %s:%d;" % (listen, self.port), text)
        text = re.sub(r"root /srv/baremark;", "root %s;" % self.root, text)
        text = "master_process off;\ndaemon on;\n" + text
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(text)
        self.proc = None

    def start(self):
        subprocess.run(["nginx", "-p", self.prefix + "/", "-c", self.conf, "-e", os.path.join(self.prefix, "error.log")],
                       check=True, capture_output=True)
        for _ in range(50):
            try:
                socket.create_connection((self.probe, self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("nginx did not start: " + self.log())

    def stop(self):
        pid_file = os.path.join(self.prefix, "nginx.pid")
        try:
            pid = int(open(pid_file).read().strip())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            pass

    def log(self):
        try:
            return open(os.path.join(self.prefix, "error.log")).read()
        except OSError:
            return ""

    def received(self):
        d = os.path.join(self.root, "results")
        return sorted(os.listdir(d))

    def read(self, name):
        with open(os.path.join(self.root, "results", name), "rb") as f:
            return f.read()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
