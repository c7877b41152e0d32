"""A minimal WebSocket client (RFC 6455, text frames) on asyncio streams: nothing to install.

The production tests open game sockets with it, over wss:// through nginx or straight to one
web process; ``bench/bench_live.py`` drives its simulated students with it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import ssl as ssl_module


class Closed(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


class HandshakeFailed(Exception):
    pass


_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _frame(opcode: int, data: bytes) -> bytes:
    """A client frame: FIN, masked, as RFC 6455 requires of clients."""
    n = len(data)
    if n < 126:
        header = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        header = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        header = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    mask = os.urandom(4)
    if n:
        key = (mask * (n // 4 + 1))[:n]
        data = (int.from_bytes(data, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")
    return header + mask + data


class WebSocket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.bytes_in = 0

    @classmethod
    async def connect(
        cls,
        address: str,
        port: int,
        path: str,
        *,
        cookie: str = "",
        host: str | None = None,
        origin: str | None = None,
        ssl: ssl_module.SSLContext | None = None,
    ) -> WebSocket:
        """Open ``path`` at ``address:port``; ``host`` is the name asked for (the Host header and,
        with ``ssl``, the certificate's name), ``address:port`` by default; ``origin`` the page's
        origin, ``http(s)://host`` by default."""
        host = host or f"{address}:{port}"
        origin = origin or f"{'https' if ssl else 'http'}://{host}"
        server_hostname = host.rsplit(":", 1)[0] if ssl else None
        reader, writer = await asyncio.open_connection(
            address, port, ssl=ssl, server_hostname=server_hostname
        )
        key = base64.b64encode(os.urandom(16)).decode()
        head_lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            f"Origin: {origin}",
        ]
        if cookie:
            head_lines.append(f"Cookie: {cookie}")
        writer.write(("\r\n".join(head_lines) + "\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0]
        accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest())
        if b" 101 " not in status + b" " or accept not in head:
            writer.close()
            raise HandshakeFailed(status.decode(errors="replace"))
        return cls(reader, writer)

    def send(self, text: str) -> None:
        self.writer.write(_frame(0x1, text.encode()))

    async def recv(self) -> str:
        parts: list[bytes] = []
        read = self.reader.readexactly
        while True:
            b0, b1 = await read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(await read(2), "big")
            elif n == 127:
                n = int.from_bytes(await read(8), "big")
            mask = await read(4) if b1 & 0x80 else b""
            payload = await read(n) if n else b""
            if mask:
                key = (mask * (n // 4 + 1))[:n]
                payload = (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(
                    n, "little"
                )
            self.bytes_in += n
            opcode = b0 & 0x0F
            if opcode == 0x9:  # ping
                self.writer.write(_frame(0xA, payload))
                continue
            if opcode == 0xA:  # pong
                continue
            if opcode == 0x8:  # close: answer it, then report it
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                with contextlib.suppress(Exception):
                    self.writer.write(_frame(0x8, payload[:2]))
                    self.writer.close()
                raise Closed(code)
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.write(_frame(0x8, (1000).to_bytes(2, "big")))
            await self.writer.drain()
        self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 2)
