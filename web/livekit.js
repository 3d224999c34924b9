// @ts-nocheck -- types come from livekit.d.ts (a rooted import path has no types of its own)
/**
 * livekit-client for the page: its self-contained ESM build, served by our server straight from
 * node_modules (src/web/static-files.ts). The page's modules import livekit-client from here.
 */
export * from '/vendor/livekit-client.esm.mjs';
