"""Several identical explorer processes behind nginx, on one machine: ``python deploy/replicas.py``

One Streamlit process runs one script at a time per core at best (the GIL); a machine with several
cores serves more students with several processes. This starts N replicas
(``streamlit run serve.py`` on 127.0.0.1, ports ``--first-port``, +1, …) and nginx in the
foreground on ``--port`` from deploy/nginx.conf.template (sticky sessions by cookie, websocket
upgrade); Ctrl-C stops them all.

    python deploy/replicas.py --replicas 4 --port 8080          # 4 replicas behind :8080
    python deploy/replicas.py --render --listen 80 \\
        --upstream 10.0.0.11:8501 --upstream 10.0.0.12:8501 --prefix /var/lib/explorer-nginx
                                                                  # print a config for other machines

Every replica gets the same ``server.cookieSecret`` (STREAMLIT_SERVER_COOKIE_SECRET; a random one
unless set), so a browser that fails over to another replica still passes its XSRF checks.
`Replicas` is also what tests/test_proxy.py and bench/load.py use.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")
_HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no env proxies


def nginx_binary() -> str | None:
    for name in NGINX_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def nginx_missing_message() -> str | None:
    """Why the proxy cannot run here, or None."""
    if nginx_binary():
        return None
    return "nginx not found: `sudo apt-get install nginx` (Debian's package; CI installs it)."


def render(listen: str, upstreams: list[str], prefix: str | Path, *, user: str | None = None) -> str:
    """deploy/nginx.conf.template with its placeholders filled in."""
    servers = "\n".join(f"        server {u} max_fails=3 fail_timeout=10s;" for u in upstreams)
    return (
        TEMPLATE.read_text()
        .replace("@@LISTEN@@", listen)
        .replace("@@SERVERS@@", servers)
        .replace("@@PREFIX@@", str(prefix))
        .replace("@@USER@@", f"user {user};" if user else "")
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http_ok(url: str, proc: subprocess.Popen, timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise RuntimeError(f"{what} exited with code {proc.returncode}:\n{tail}")
        try:
            with _HTTP.open(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not answering {url} after {timeout:.0f} s")
        time.sleep(0.1)


class Replicas:
    """N `streamlit run <script>` processes on loopback ports and nginx in front of them, in a
    temporary prefix directory (config, logs). Context manager; `url` is the proxy's address."""

    def __init__(
        self,
        n: int = 2,
        *,
        script: str = "serve.py",
        port: int | None = None,
        first_port: int | None = None,
        prefix: Path | None = None,
        listen_host: str = "127.0.0.1",
        quiet: bool = True,
    ):
        self.listen_host = listen_host
        self.n, self.script, self.quiet = n, script, quiet
        self.port = port or free_port()
        self.replica_ports = [first_port + i for i in range(n)] if first_port else [free_port() for _ in range(n)]
        self._own_prefix = prefix is None
        self.prefix = Path(prefix or tempfile.mkdtemp(prefix="explorer-nginx-"))
        self.replicas: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None

    # lifecycle
    def start(self, timeout: float = 120.0) -> Replicas:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError(nginx_missing_message())
        self.prefix.mkdir(parents=True, exist_ok=True)
        self.prefix.chmod(0o755)  # nginx's workers (nobody, when started as root) use tmp/ in it
        (self.prefix / "tmp").mkdir(exist_ok=True)
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(32))
        for i, port in enumerate(self.replica_ports):
            log = open(self.prefix / f"replica-{i}.log", "wb")  # noqa: SIM115 (closed with the process)
            self.replicas.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "streamlit",
                        "run",
                        self.script,
                        "--server.address",
                        "127.0.0.1",
                        "--server.port",
                        str(port),
                        "--server.headless",
                        "true",
                        "--browser.gatherUsageStats",
                        "false",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=log if self.quiet else None,
                    stderr=subprocess.STDOUT if self.quiet else None,
                    stdin=subprocess.DEVNULL,
                )
            )
            log.close()
        conf = self.prefix / "nginx.conf"
        upstreams = [f"127.0.0.1:{p}" for p in self.replica_ports]
        conf.write_text(render(f"{self.listen_host}:{self.port}", upstreams, self.prefix))
        try:
            for i, (proc, port) in enumerate(zip(self.replicas, self.replica_ports)):
                wait_http_ok(
                    f"http://127.0.0.1:{port}/_stcore/health",
                    proc,
                    timeout,
                    f"replica {i}",
                    self.prefix / f"replica-{i}.log",
                )
            self.nginx = subprocess.Popen(
                [binary, "-p", str(self.prefix), "-e", str(self.prefix / "error.log"), "-c", str(conf)]
                + ["-g", "daemon off;"],
                stdin=subprocess.DEVNULL,
            )
            wait_http_ok(f"{self.url}/_stcore/health", self.nginx, 30, "nginx", self.prefix / "error.log")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        procs = ([self.nginx] if self.nginx else []) + self.replicas
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM if proc is not self.nginx else signal.SIGQUIT)
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self.nginx, self.replicas = None, []
        if self._own_prefix and not os.environ.get("E2E_KEEP_LOGS"):
            shutil.rmtree(self.prefix, ignore_errors=True)

    def __enter__(self) -> Replicas:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # information
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.replicas]

    def log_lines(self) -> list[list[str]]:
        """The access log: [msec, routing key, upstream address, status, request] per request
        (nginx writes a websocket's line when it closes)."""
        path = self.prefix / "access.log"
        if not path.exists():
            return []
        rows = []
        for line in path.read_text(errors="replace").splitlines():
            parts = line.split(" ", 4)
            if len(parts) == 5:
                rows.append(parts)
        return rows

    def affinity(self) -> dict[str, set[str]]:
        """Routing key (the browser's cookie) -> the replica addresses that served it."""
        out: dict[str, set[str]] = defaultdict(set)
        for _, key, upstream, _, _ in self.log_lines():
            out[key].add(upstream)
        return dict(out)

    def split(self) -> dict[str, int]:
        """Requests per replica address."""
        return dict(Counter(row[2] for row in self.log_lines()))


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--replicas", type=int, default=os.cpu_count() or 2, help="processes (default: one per CPU)")
    parser.add_argument("--port", type=int, default=8080, help="nginx listens on this port")
    parser.add_argument("--listen-host", default="0.0.0.0", help="nginx listens on this address (default: all)")
    parser.add_argument("--first-port", type=int, default=8601, help="replica i listens on 127.0.0.1:first-port+i")
    parser.add_argument("--prefix", type=Path, default=ROOT / ".nginx", help="nginx's config, logs and temp files")
    parser.add_argument("--render", action="store_true", help="only print a config for --upstream addresses")
    parser.add_argument("--listen", default="80", help="with --render: nginx's listen address[:port]")
    parser.add_argument("--upstream", action="append", default=[], help="with --render: a replica's host:port")
    args = parser.parse_args(argv)
    if args.render:
        if not args.upstream:
            parser.error("--render needs at least one --upstream host:port")
        print(render(args.listen, args.upstream, args.prefix), end="")
        return 0
    reps = Replicas(
        args.replicas,
        port=args.port,
        first_port=args.first_port,
        prefix=args.prefix,
        listen_host=args.listen_host,
        quiet=False,
    )
    signal.signal(signal.SIGTERM, _interrupt)  # `kill`, docker stop, systemd: stop like Ctrl-C
    reps.start()
    conf = reps.prefix / "nginx.conf"
    print(
        f"{args.replicas} replicas on 127.0.0.1:{reps.replica_ports[0]}…; nginx on {args.listen_host}:{args.port} ({conf})"
    )
    try:
        while all(p.poll() is None for p in [*reps.replicas, reps.nginx] if p is not None):
            time.sleep(1)
        print("a process exited; stopping the others", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        reps.stop()


if __name__ == "__main__":
    sys.exit(main())
