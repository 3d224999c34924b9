"""Pipecat's Resemble and Cartesia TTS services (pipecat-ai), driven as a Pipecat bot drives
them: a pipeline [TTS service, output], the LLM's reply as LLMFullResponseStartFrame,
LLMTextFrame per token, LLMFullResponseEndFrame; the turn ends when that end frame has come out
behind the audio. A barge-in is an InterruptionFrame. Each service runs with its own defaults
(sentence aggregation, Resemble's 1 s jitter buffer), its URL pointed at the local server.
"""

from __future__ import annotations

import asyncio
import os
import sys

from loguru import logger
from pipecat.frames.frames import (
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    StartFrame,
    TTSAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.cartesia.tts import CartesiaTTSService
from pipecat.services.resembleai.tts import ResembleAITTSService
from pipecat.transcriptions.language import Language
from pipecat.workers.runner import WorkerRunner

VOICE = "bench-voice"

# Pipecat logs every frame's journey at DEBUG on stderr; the bench wants warnings only.
logger.remove()
logger.add(sys.stderr, level=os.environ.get("PEER_LOG_LEVEL", "WARNING"))


class Output(FrameProcessor):
    """The end of the pipeline, where a transport would play the audio."""

    def __init__(self) -> None:
        super().__init__()
        self.turn = None
        self.started = asyncio.Event()
        self.reply_ended = asyncio.Event()
        # Set when the barge-in's InterruptionFrame has reached the output: a transport drops the
        # audio it holds then, so only audio arriving after it is heard.
        self.interruption_passed = False

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self.started.set()
        elif isinstance(frame, InterruptionFrame):
            self.interruption_passed = True
        elif isinstance(frame, TTSAudioRawFrame) and self.turn is not None:
            if self.turn.barged_in.is_set() and not self.interruption_passed:
                pass  # arrived before the interruption reached the output: flushed, never heard
            else:
                self.turn.frame(frame.audio, frame.sample_rate, len(frame.audio) // (2 * frame.num_channels))
        elif isinstance(frame, LLMFullResponseEndFrame):
            self.reply_ended.set()
        await self.push_frame(frame, direction)


class PipecatPeer:
    def __init__(self, command: dict) -> None:
        self.command = command
        self.output = Output()
        self.worker: PipelineWorker | None = None
        self.running: asyncio.Task | None = None

    def build(self):
        raise NotImplementedError

    async def open(self) -> None:
        sample_rate = int(self.command["sampleRate"])
        self.worker = PipelineWorker(
            Pipeline([self.build(), self.output]),
            params=PipelineParams(audio_out_sample_rate=sample_rate),
            idle_timeout_secs=None,
            enable_rtvi=False,
            enable_turn_tracking=False,
            check_dangling_tasks=False,
        )
        runner = WorkerRunner(handle_sigint=False, handle_sigterm=False, check_dangling_tasks=False)
        await runner.add_workers(self.worker)
        self.running = asyncio.create_task(runner.run())
        # The service connects its WebSocket while the StartFrame passes (its setup/start).
        await asyncio.wait_for(self.output.started.wait(), 30)

    async def speak(self, turn, tokens: list[str], at: list[float]) -> None:
        assert self.worker is not None
        self.output.reply_ended.clear()
        self.output.interruption_passed = False
        self.output.turn = turn

        async def push(token: str) -> None:
            await self.worker.queue_frame(LLMTextFrame(text=token))

        async def end() -> None:
            await self.worker.queue_frame(LLMFullResponseEndFrame())

        await self.worker.queue_frame(LLMFullResponseStartFrame())
        feeding = asyncio.create_task(turn.feed(tokens, at, push, end))
        ended = asyncio.create_task(self.output.reply_ended.wait())
        barged = asyncio.create_task(turn.barged_in.wait())
        try:
            await asyncio.wait({ended, barged}, return_when=asyncio.FIRST_COMPLETED)
            if turn.barged_in.is_set():
                feeding.cancel()
                await self.worker.queue_frame(InterruptionFrame())
            else:
                await feeding
        finally:
            for task in (feeding, ended, barged):
                task.cancel()
            await asyncio.gather(feeding, ended, barged, return_exceptions=True)

    async def close(self) -> None:
        if self.worker is not None:
            await self.worker.cancel()
        if self.running is not None:
            await asyncio.gather(self.running, return_exceptions=True)


def _language(code: str) -> Language:
    return Language(code)


class PipecatCartesiaPeer(PipecatPeer):
    def build(self):
        c = self.command
        return CartesiaTTSService(
            api_key=c["apiKey"],
            url=c["url"].replace("http", "ws", 1).rstrip("/") + "/tts/websocket",
            sample_rate=int(c["sampleRate"]),
            settings=CartesiaTTSService.Settings(voice=VOICE, language=_language(c["language"])),
        )


class PipecatResemblePeer(PipecatPeer):
    def build(self):
        c = self.command
        return ResembleAITTSService(
            api_key=c["apiKey"],
            url=c["url"].rstrip("/") + "/stream",
            sample_rate=int(c["sampleRate"]),
            settings=ResembleAITTSService.Settings(voice=VOICE),
        )
