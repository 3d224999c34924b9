"""LiveKit's Python plugins (livekit-plugins-cartesia / -resemble on livekit-agents), driven as
LiveKit's AgentSession drives a TTS: `tts.stream()`, LLM tokens pushed as they arrive, then
`end_input()`; audio read from the stream; a barge-in closes the stream (`aclose()`).

Each plugin runs unchanged except where it cannot reach a local server (bench/peers/README.md):
- Cartesia: none; `base_url` points at the local server.
- Resemble: the plugin has no URL option (a module constant, wss://websocket.cluster.resemble.ai),
  so the constant is pointed at the local server; and it asks for MP3 over the WebSocket, which
  the local server (like firstword) does not produce, so its requests ask for WAV instead and its
  audio emitter is told `audio/wav` (LiveKit's own streaming WAV decoder) instead of `audio/mp3`.
"""

from __future__ import annotations

import asyncio
import json

import aiohttp
from livekit.agents import tts as lk_tts
from livekit.plugins import cartesia, resemble
from livekit.plugins.resemble import tts as resemble_tts


class LiveKitPeer:
    def __init__(self, command: dict) -> None:
        self.command = command
        self.http: aiohttp.ClientSession | None = None
        self.engine: lk_tts.TTS | None = None

    def build(self, http: aiohttp.ClientSession) -> lk_tts.TTS:
        raise NotImplementedError

    async def open(self) -> None:
        self.http = aiohttp.ClientSession()
        self.engine = self.build(self.http)
        self.engine.prewarm()

    async def speak(self, turn, tokens: list[str], at: list[float]) -> None:
        assert self.engine is not None
        stream = self.engine.stream()

        async def push(token: str) -> None:
            stream.push_text(token)

        async def end() -> None:
            stream.end_input()

        async def read() -> None:
            async for event in stream:
                frame = event.frame
                turn.frame(frame.data, frame.sample_rate, frame.samples_per_channel)
                if turn.barged_in.is_set():
                    return

        feeding = asyncio.create_task(turn.feed(tokens, at, push, end))
        try:
            await read()
            if not turn.barged_in.is_set():
                await feeding
        finally:
            feeding.cancel()
            await asyncio.gather(feeding, return_exceptions=True)
            await stream.aclose()

    async def close(self) -> None:
        if self.engine is not None:
            await self.engine.aclose()
        if self.http is not None:
            await self.http.close()


class LiveKitCartesiaPeer(LiveKitPeer):
    def build(self, http: aiohttp.ClientSession) -> lk_tts.TTS:
        c = self.command
        return cartesia.TTS(
            api_key=c["apiKey"],
            base_url=c["url"],
            language=c["language"],
            sample_rate=int(c["sampleRate"]),
            http_session=http,
        )


class LiveKitResemblePeer(LiveKitPeer):
    def build(self, http: aiohttp.ClientSession) -> lk_tts.TTS:
        c = self.command
        # Read at connect time (TTS._connect_ws), so this redirects the plugin's own connect.
        resemble_tts.RESEMBLE_WEBSOCKET_URL = c["url"].rstrip("/") + "/stream"
        _emit_wav_instead_of_mp3()
        engine = resemble.TTS(api_key=c["apiKey"], sample_rate=int(c["sampleRate"]), http_session=http)
        connect = engine._connect_ws

        async def connect_asking_wav(timeout: float) -> aiohttp.ClientWebSocketResponse:
            ws = await connect(timeout)
            send_str = ws.send_str

            async def send_wav_request(data: str, compress: int | None = None) -> None:
                request = json.loads(data)
                if request.get("output_format") == "mp3":
                    request["output_format"] = "wav"
                await send_str(json.dumps(request), compress)

            ws.send_str = send_wav_request  # type: ignore[method-assign]
            return ws

        engine._pool._connect_cb = connect_asking_wav
        return engine


_wav_patched = False


def _emit_wav_instead_of_mp3() -> None:
    """The plugin's stream declares its audio `audio/mp3`; it now receives WAV (see above)."""
    global _wav_patched
    if _wav_patched:
        return
    _wav_patched = True
    initialize = lk_tts.AudioEmitter.initialize

    def initialize_wav(self, *args, **kwargs):
        if kwargs.get("mime_type") == "audio/mp3":
            kwargs["mime_type"] = "audio/wav"
        return initialize(self, *args, **kwargs)

    lk_tts.AudioEmitter.initialize = initialize_wav  # type: ignore[method-assign]
