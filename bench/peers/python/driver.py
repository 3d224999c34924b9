"""Drives one Python TTS peer for `npm run bench` (bench/peers/README.md has the protocol).

One process per peer, many sessions (one per bench lane, each its own TTS as one call would
have). JSON lines in on stdin, JSON lines out on stdout; stdout carries nothing else (library
output is sent to stderr). Every time is measured here, on this process's clock: a turn's t0 is
when its command is read, tokens are pushed at t0 + their `at`, and each frame is reported as
ms after t0 — so the bench's figures never mix two processes' clocks.

    -> {"op": "open", "session": "s1", "provider": "cartesia", "url": "http://127.0.0.1:PORT",
        "apiKey": "k", "language": "en", "sampleRate": 24000}
    <- {"ev": "opened", "session": "s1"}
    -> {"op": "turn", "session": "s1", "turn": 7, "tokens": ["Hi", " there."], "at": [300, 325],
        "bargeInAfterFrames": 0, "timeoutMs": 60000}
    <- {"ev": "done", "session": "s1", "turn": 7, "frames": [[at_ms, audio_ms, [tags...]], ...]}
    -> {"op": "close", "session": "s1"}
    <- {"ev": "closed", "session": "s1"}

`bargeInAfterFrames` > 0: the caller barges in once that many audible frames arrived; the turn
then ends. Frames that still reach the output after that are reported with the next turn
(negative `at`: before its LLM request), as a listener would hear them. Errors answer
{"ev": "error", "session", "turn"?, "message"} and leave the process running.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
import traceback
from importlib import metadata

# The protocol owns the real stdout; anything a library prints goes to stderr.
_PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr

from audio_tags import frame_tags  # noqa: E402
import peers  # noqa: E402

PACKAGES = ("livekit-agents", "livekit-plugins-cartesia", "livekit-plugins-resemble", "pipecat-ai")


def send(message: dict) -> None:
    _PROTOCOL_OUT.write(json.dumps(message, separators=(",", ":")) + "\n")
    _PROTOCOL_OUT.flush()


class Turn:
    """One turn's clock and frames; the peer calls `frame()` for every audio frame it outputs."""

    def __init__(self, barge_in_after_frames: int) -> None:
        self.t0 = time.perf_counter()
        self.frames: list[list] = []
        self.barge_in_after_frames = barge_in_after_frames
        self.audible = 0
        self.barged_in = asyncio.Event()
        # Frames that reached the output after the barge-in: [perf_counter s, audio ms, tags].
        self.after_barge_in: list[list] = []

    def frame(self, pcm16: bytes | memoryview, sample_rate: int, samples: int) -> None:
        now = time.perf_counter()
        tags = frame_tags(pcm16)
        audio_ms = samples * 1000.0 / sample_rate
        if self.barged_in.is_set():
            self.after_barge_in.append([now, audio_ms, tags])
            return
        self.frames.append([round((now - self.t0) * 1000.0, 3), audio_ms, tags])
        if tags:
            self.audible += 1
            if self.barge_in_after_frames and self.audible >= self.barge_in_after_frames:
                self.barged_in.set()

    def carry(self, previous: Turn | None) -> None:
        """Puts the previous turn's post-barge-in frames first, at their (negative) time."""
        if previous is None or not previous.after_barge_in:
            return
        early = [[round((t - self.t0) * 1000.0, 3), ms, tags] for t, ms, tags in previous.after_barge_in]
        previous.after_barge_in = []
        self.frames = sorted(early + self.frames, key=lambda f: f[0])

    async def feed(self, tokens: list[str], at: list[float], push, end) -> None:
        """Pushes each token at t0 + its arrival (scheduled from t0, so lateness never adds up)."""
        for token, at_ms in zip(tokens, at, strict=True):
            wait = self.t0 + at_ms / 1000.0 - time.perf_counter()
            if wait > 0.0005:
                await asyncio.sleep(wait)
            await push(token)
        await end()


class Driver:
    def __init__(self, peer_name: str) -> None:
        self.make_peer = peers.load(peer_name)
        self.sessions: dict[str, peers.Peer] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.last_turn: dict[str, Turn] = {}

    def dispatch(self, command: dict) -> asyncio.Task:
        """Runs a command; one session's commands run one after another, in arrival order."""
        lock = self.locks.setdefault(command.get("session"), asyncio.Lock())
        return asyncio.create_task(self.handle(command, lock))

    async def handle(self, command: dict, lock: asyncio.Lock) -> None:
        async with lock:
            await self.run(command)

    async def run(self, command: dict) -> None:
        op = command.get("op")
        session = command.get("session")
        try:
            if op == "open":
                peer = self.make_peer(command)
                self.sessions[session] = peer
                await peer.open()
                send({"ev": "opened", "session": session})
            elif op == "turn":
                peer = self.sessions.get(session)
                if peer is None:
                    raise LookupError(f"no open session {session!r}")
                turn = Turn(int(command.get("bargeInAfterFrames") or 0))
                timeout = float(command.get("timeoutMs", 60000)) / 1000.0
                await asyncio.wait_for(peer.speak(turn, command["tokens"], command["at"]), timeout)
                turn.carry(self.last_turn.get(session))
                self.last_turn[session] = turn
                send({"ev": "done", "session": session, "turn": command.get("turn"), "frames": turn.frames})
            elif op == "close":
                peer = self.sessions.pop(session, None)
                self.last_turn.pop(session, None)
                if peer is not None:
                    await peer.close()
                send({"ev": "closed", "session": session})
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as error:  # reported to the bench, which decides; the process goes on
            message = f"{type(error).__name__}: {error}".strip()
            if isinstance(error, asyncio.TimeoutError):
                message = f"turn did not finish within {command.get('timeoutMs', 60000)} ms"
            traceback.print_exc(file=sys.stderr)
            send({"ev": "error", "session": session, "turn": command.get("turn"), "op": op, "message": message})

    async def close_all(self) -> None:
        for peer in list(self.sessions.values()):
            try:
                await peer.close()
            except Exception:
                traceback.print_exc(file=sys.stderr)


async def main(peer_name: str) -> None:
    if peer_name not in peers.NAMES:
        send({"ev": "fatal", "message": f"unknown peer {peer_name!r} (known: {', '.join(peers.NAMES)})"})
        return
    try:
        driver = Driver(peer_name)
    except Exception as error:  # e.g. the framework does not import: say why, once
        traceback.print_exc(file=sys.stderr)
        send({"ev": "fatal", "message": f"cannot load {peer_name}: {type(error).__name__}: {error}"})
        return
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    send({"ev": "ready", "peer": peer_name, "python": sys.version.split()[0], "versions": versions})
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=16 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    running: set[asyncio.Task] = set()
    while line := await reader.readline():
        if not line.strip():
            continue
        task = driver.dispatch(json.loads(line))
        running.add(task)
        task.add_done_callback(running.discard)
    if running:
        await asyncio.gather(*running, return_exceptions=True)
    await driver.close_all()


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("PEER_LOG_LEVEL", "WARNING"))
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else ""))
