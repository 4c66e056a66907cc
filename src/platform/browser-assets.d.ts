// Files the browser build (scripts/build-browser.mjs) bundles as bytes: esbuild's binary loader
// gives a .wasm import's default export as a Uint8Array.
declare module '*.wasm' {
  const bytes: Uint8Array;
  export default bytes;
}

// @bokuweb/zstd-wasm's Emscripten web glue (its `exports` map hides it; the build resolves it by path).
declare module '@bokuweb/zstd-wasm/dist/web/zstd.js' {
  export const Module: unknown;
}

// seek-bzip is CommonJS without type declarations (seek-bzip-host.ts says what Floe uses of it).
declare module 'seek-bzip' {
  const seekBzip: unknown;
  export default seekBzip;
}
