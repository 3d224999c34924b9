"""The Python peers by the bench's strategy names; each has open(), speak(turn, tokens, at), close()."""

from __future__ import annotations

from typing import Protocol


class Peer(Protocol):
    async def open(self) -> None: ...
    async def speak(self, turn, tokens: list[str], at: list[float]) -> None: ...
    async def close(self) -> None: ...


def _livekit(name: str):
    def make(command: dict) -> Peer:
        import livekit_peers

        return getattr(livekit_peers, name)(command)

    return make


def _pipecat(name: str):
    def make(command: dict) -> Peer:
        import pipecat_peers

        return getattr(pipecat_peers, name)(command)

    return make


# Imported on first use: a process drives one peer and loads only its framework.
PEERS = {
    "livekit-python-cartesia": _livekit("LiveKitCartesiaPeer"),
    "livekit-python-resemble": _livekit("LiveKitResemblePeer"),
    "pipecat-cartesia": _pipecat("PipecatCartesiaPeer"),
    "pipecat-resemble": _pipecat("PipecatResemblePeer"),
}
