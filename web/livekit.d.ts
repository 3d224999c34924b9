// livekit.js re-exports the ESM build of the livekit-client package the project depends on.
export * from 'livekit-client';
