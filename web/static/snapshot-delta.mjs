// The demo's Pyodide memory snapshot is shipped as a difference against what the page loads
// anyway: the first bytes of Python's memory, where pyodide.asm.wasm's data segments sit, are
// stored XORed with that memory as it is right after instantiation (before any code ran), so
// the ~3.8 MB of the module's data the snapshot repeats are zeros on the wire (~1 MB less with
// brotli). tools/pyodide_snapshot.mjs writes it, web/static/worker.js restores it; both go
// through `withMemoryBase`, which hooks Pyodide's private `createPyodideModule` option and its
// API.restoreSnapshot (as pinned by tools/pyodide_dist.py; a snapshot that does not restore
// makes the worker start Python afresh).

// In place: target[i] ^= base[i] for the first base.length bytes (whole words where it can).
export function xorInto(target, base) {
  const words = Math.floor(Math.min(target.length, base.length) / 4);
  const aligned = target.byteOffset % 4 === 0 && base.byteOffset % 4 === 0;
  let i = 0;
  if (aligned) {
    const t = new Uint32Array(target.buffer, target.byteOffset, words);
    const b = new Uint32Array(base.buffer, base.byteOffset, words);
    for (; i < words; i++) t[i] ^= b[i];
    i *= 4;
  }
  for (; i < Math.min(target.length, base.length); i++) target[i] ^= base[i];
}

// Options for loadPyodide that keep a copy of the first `bytes` bytes (null: all) of Python's
// memory as instantiated (`state.base`) and, if `restoring`, XOR them into the memory the snapshot
// restored, which undoes what tools/pyodide_snapshot.mjs did. `factory` is pyodide.asm.mjs's
// default export. `filled`, if given, is awaited between the instantiation and the restore: the
// snapshot passed as `_loadSnapshot` may be a buffer of the right size still being filled, so
// that Pyodide compiles its module while the snapshot downloads, not after.
export function withMemoryBase(factory, bytes, { restoring = true, filled = null } = {}) {
  const state = { base: null };
  const createPyodideModule = async (settings) => {
    const instantiate = settings.instantiateWasm;
    settings.instantiateWasm = (imports, receive) =>
      instantiate(imports, (instance, module) => {
        const memory = instance.exports.memory ?? imports.env.memory;
        state.base = new Uint8Array(memory.buffer, 0, bytes ?? memory.buffer.byteLength).slice();
        receive(instance, module);
      });
    const module = await factory(settings);
    await filled;
    if (restoring) {
      const restore = module.API.restoreSnapshot;
      module.API.restoreSnapshot = (snapshot) => {
        const metadata = restore(snapshot);
        xorInto(module.HEAPU8.subarray(0, state.base.length), state.base);
        return metadata;
      };
    }
    return module;
  };
  return { options: { createPyodideModule }, state };
}
