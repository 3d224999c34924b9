"""The Python peers by the bench's strategy names; each has open(), speak(turn, tokens, at), close()."""

from __future__ import annotations

import importlib
from typing import Callable, Protocol


class Peer(Protocol):
    async def open(self) -> None: ...
    async def speak(self, turn, tokens: list[str], at: list[float]) -> None: ...
    async def close(self) -> None: ...


# module, class: a process drives one peer and loads only its framework.
_PEERS = {
    "livekit-python-cartesia": ("livekit_peers", "LiveKitCartesiaPeer"),
    "livekit-python-resemble": ("livekit_peers", "LiveKitResemblePeer"),
    "pipecat-cartesia": ("pipecat_peers", "PipecatCartesiaPeer"),
    "pipecat-resemble": ("pipecat_peers", "PipecatResemblePeer"),
}
NAMES = tuple(_PEERS)


def load(name: str) -> Callable[[dict], Peer]:
    """Imports the peer's framework (seconds: done before the driver says it is ready)."""
    module, cls = _PEERS[name]
    return getattr(importlib.import_module(module), cls)
