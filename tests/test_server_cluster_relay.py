"""A process relays an HTTP lookup of a room another process serves (docs/scaling.md):
the owner's answer, status and body, passed on as they are; the cluster's secret header
sent with it; 503 when the owner cannot be reached — never a redirect to the owner's own
address."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from types import SimpleNamespace
from typing import Any, ClassVar

from paohuzi.server.cluster import FORWARDED, Cluster


class Owner(BaseHTTPRequestHandler):
    """A room's owner: 200 for room 123456, 404 otherwise; records the headers seen."""

    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        self.seen.append({k.lower(): v for k, v in self.headers.items()})
        found = self.path == "/api/rooms/123456?x=1"
        body = json.dumps({"code": "123456"} if found else {"error": "room not found"})
        self.send_response(200 if found else 404)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


def relay(owner: str, target: str) -> tuple[int, bytes, str]:
    member = SimpleNamespace(secret="the-cluster-secret")
    return asyncio.run(Cluster.relay_get(member, owner, target))  # type: ignore[arg-type]


def test_the_owners_answer_is_passed_on_with_the_secret_header() -> None:
    server = HTTPServer(("127.0.0.1", 0), Owner)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        owner = f"http://127.0.0.1:{server.server_port}"
        status, body, kind = relay(owner, "/api/rooms/123456?x=1")
        assert (status, json.loads(body), kind) == (200, {"code": "123456"}, "application/json")
        assert Owner.seen[-1][FORWARDED] == "the-cluster-secret"
        status, body, _ = relay(owner, "/api/rooms/654321")
        assert status == 404 and json.loads(body) == {"error": "room not found"}
    finally:
        server.shutdown()


def test_an_owner_that_cannot_be_reached_is_a_503() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    status, body, kind = relay(f"http://127.0.0.1:{port}", "/api/rooms/123456")
    assert status == 503 and "did not answer" in json.loads(body)["error"]
    assert kind == "application/json"


def test_an_owner_that_answers_garbage_is_a_503() -> None:
    """A process dying mid-answer (or anything not HTTP on its port): no status line."""
    listener = socket.create_server(("127.0.0.1", 0))

    def answer_garbage() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(4096)
            conn.sendall(b"\x00 not http\r\n\r\n")

    thread = threading.Thread(target=answer_garbage, daemon=True)
    thread.start()
    try:
        status, body, _ = relay(f"http://127.0.0.1:{listener.getsockname()[1]}",
                                "/api/rooms/123456")
        assert status == 503 and "did not answer" in json.loads(body)["error"]
    finally:
        thread.join(5)
        listener.close()
