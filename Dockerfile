# firstword worker image: Node 24 slim, production dependencies only, non-root.
#
# Node 24 because a call costs less CPU on it: its AsyncLocalStorage no longer hooks every
# promise, and the framework keeps its job context in one (docs/benchmarks/2026-12-06-capacity-frame-path.md).
#
#   docker build -t firstword .
#   docker run --env-file .env --stop-timeout 1890 -p 8081:8081 firstword
#
# --stop-timeout matters: Docker's default is 10 s, after which it SIGKILLs the worker
# and hangs up on every live call. 1890 s = SHUTDOWN_DRAIN_TIMEOUT_S (1800) + 90 s for
# the job processes to close. Compose: `stop_grace_period: 1890s`. See docs/operations.md.

# --- build: compile TypeScript (tsc needs the dev dependencies) ------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
# npm 11 (this image's) honours package.json's allowScripts; npm 10 runs install scripts anyway,
# so the variable stays for anyone building on an older base: onnxruntime-node's postinstall
# must not download CUDA files (CPU inference needs none of them).
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
COPY packages/agents-plugin-tts/package.json ./packages/agents-plugin-tts/
# npm ci's postinstall applies these fixes to dependencies (patch-package; docs/testing.md).
COPY patches ./patches
RUN npm ci --no-audit --no-fund
# `npm run build` (scripts/build.mjs), as `npm start`, PM2 and systemd do: the TTS plugin (an npm
# workspace: packages/agents-plugin-tts/dist), then the application against its declarations
# (tsconfig.build.json), then the worker bundled from both (scripts/bundle.mjs, which names files
# by their path under /app, the same in both stages); rootDir keeps dist/ at the same depth as
# src/ (paths relative to the project root hold).
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/bundle.mjs ./scripts/
COPY packages/agents-plugin-tts ./packages/agents-plugin-tts
COPY src ./src
RUN npm run build

# --- runtime ----------------------------------------------------------------------------------
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
COPY --from=build /app/packages/agents-plugin-tts/package.json ./packages/agents-plugin-tts/
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/agents-plugin-tts/dist ./packages/agents-plugin-tts/dist
COPY --from=build /app/dist ./dist
# the browser page, for `docker run ... firstword node --conditions=firstword-compiled dist/web/main.js`
COPY web ./web

USER node

# The worker's own health endpoint (agents 1.9, `start`): 200 once registered with
# LiveKit, 503 while (re)connecting. Bound to 0.0.0.0:8081 by the framework.
EXPOSE 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8081/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# The worker drains calls on SIGTERM and exits 0 (src/lifecycle).
STOPSIGNAL SIGTERM
# npm start's command: the condition makes the TTS plugin resolve to its compiled files (its
# manifest names its TypeScript source by default), and the young-generation cap keeps each call's
# process about 40 MB smaller (docs/operations.md); the job processes inherit both.
CMD ["node", "--max-semi-space-size=2", "--conditions=firstword-compiled", "dist/agent.js", "start"]
