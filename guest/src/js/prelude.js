// The JavaScript half of the guest: console, tool functions, errors and result formatting.
// Evaluated once per sandbox as a function of the native bindings; it returns the hooks that the
// Rust side calls. Nothing here is trusted by the host: every tool call is checked there.
(function (native, tools, wrapPrefixLength) {
  "use strict";
  const MAX_DEPTH = 64;

  class CapabilityError extends Error {
    constructor(message) { super(message); this.name = "CapabilityError"; }
  }
  class ToolError extends Error {
    constructor(message) { super(message); this.name = "ToolError"; }
  }
  class SandboxError extends Error {
    constructor(message) { super(message); this.name = "SandboxError"; }
  }
  const define = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  define("CapabilityError", CapabilityError);
  define("ToolError", ToolError);

  // --- formatting -------------------------------------------------------------------------
  // Plain JSON-able copy of a value: cycles become "[Circular]", functions and symbols are
  // dropped from objects (as JSON.stringify does), Maps and Sets become objects and arrays.
  // A plain object (a tool's arguments, mostly) is copied first and its strings, numbers,
  // booleans and nulls without a call each (copying `{x}` took twice as long as its JSON).
  const ObjectPrototype = Object.prototype;
  const { getPrototypeOf, keys: keysOf } = Object;
  const { isArray } = Array;
  const { isFinite: finite } = Number;
  function plain(value, ancestors, depth) {
    if (value === null || typeof value !== "object") {
      if (typeof value === "bigint") return value.toString();
      if (typeof value === "number" && !finite(value)) return null;
      return value;
    }
    if (ancestors.includes(value)) return "[Circular]";
    if (depth >= MAX_DEPTH) return "[Too deep]";
    if (typeof value.toJSON === "function") return plain(value.toJSON(), ancestors, depth + 1);
    ancestors.push(value);
    let out;
    if (getPrototypeOf(value) === ObjectPrototype && !isArray(value)) {
      out = {};
      const keys = keysOf(value);
      for (let i = 0; i < keys.length; i++) {  // not for-of: no iterator per object
        const key = keys[i];
        const item = value[key];
        const kind = typeof item;
        if (kind === "string" || kind === "boolean" || item === null) {
          out[key] = item;
        } else if (kind === "number") {
          out[key] = finite(item) ? item : null;
        } else {
          const p = plain(item, ancestors, depth + 1);
          if (p !== undefined && typeof p !== "function" && typeof p !== "symbol") out[key] = p;
        }
      }
    } else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
      out = Array.from(value, (item) => {
        const p = plain(item, ancestors, depth + 1);
        return p === undefined || typeof p === "function" || typeof p === "symbol" ? null : p;
      });
    } else if (value instanceof Error) {
      out = { name: value.name, message: value.message };
    } else {
      const source = value instanceof Map ? Object.fromEntries(value)
        : value instanceof Set ? Array.from(value) : value;
      out = Array.isArray(source) ? plain(source, ancestors, depth + 1) : {};
      if (!Array.isArray(source)) {
        for (const key of Object.keys(source)) {
          const p = plain(source[key], ancestors, depth + 1);
          if (p !== undefined && typeof p !== "function" && typeof p !== "symbol") out[key] = p;
        }
      }
    }
    ancestors.pop();
    return out;
  }

  const toJSON = (value) => JSON.stringify(plain(value, [], 0));

  // Only frames of the user's code: the prelude's own frames are noise to a model.
  // First-line columns are shifted by the async wrapper the code runs in.
  const userFrames = (stack) => (typeof stack === "string" ? stack : "")
    .split("\n").filter((line) => line.includes("code.js"))
    .map((line) => line.replace(/code\.js:1:(\d+)/,
      (_, col) => `code.js:1:${Math.max(1, col - wrapPrefixLength)}`))
    .join("\n");

  // An uncaught out-of-memory error says what the limit is and what to do. When the heap is
  // so full that QuickJS cannot even build the error object, it throws null instead.
  const outOfMemory = (error) => (error instanceof InternalError && error.message === "out of memory")
    || (error == null && native.heapWasFull());
  const memoryAdvice = `out of memory: the code used all of the ${native.memoryLimit}-byte ` +
    "JavaScript heap (Limits.memory); keep less in memory at once (process the data in parts, " +
    "write intermediate results to files) or raise Limits(memory=...)";

  function describeError(error) {
    if (outOfMemory(error)) return `InternalError: ${memoryAdvice}\n`;
    if (error instanceof Error) {
      const frames = userFrames(error.stack);
      return `${error.name}: ${error.message}\n${frames ? frames + "\n" : ""}`;
    }
    return `Uncaught ${typeof error === "string" ? JSON.stringify(error) : toJSON(error)}\n`;
  }

  function show(value) {
    switch (typeof value) {
      case "string": return value;
      case "undefined": return "undefined";
      case "function": return `[Function: ${value.name || "anonymous"}]`;
      case "symbol": return value.toString();
      case "bigint": return `${value}n`;
      case "object":
        if (value instanceof Error) return describeError(value).replace(/\n$/, "");
        if (value instanceof FileBuffer) return value.toString();
        return value === null ? "null" : toJSON(value);
      default: return String(value);
    }
  }

  // Output is capped: long text is cut before it is joined and copied out, where a copy of
  // a string that fills half the heap would fail.
  const cut = (text) => (text.length > native.maxOutput
    ? text.slice(0, native.maxOutput + 1) : text);
  const print = (fd) => (...args) =>
    native.write(fd, cut(args.map((arg) => cut(show(arg))).join(" ")) + "\n");
  define("console", Object.freeze({
    log: print(1), info: print(1), debug: print(1), trace: print(2), warn: print(2), error: print(2),
  }));

  // --- tools ------------------------------------------------------------------------------
  // Tables keyed by integer ids are null-prototype objects, not Maps: QuickJS hashes a number
  // key of a Map by XORing the halves of its double, whose low bits are all zero for integers
  // below 2^20, so every id lands in one bucket and each lookup walks all the others
  // (a Promise.all of 1,000 calls spent ~10 µs per call in there). Integer-keyed properties
  // are hashed well, and the code cannot reach these objects (nor replace Map.prototype.set).
  const table = () => Object.create(null);
  const take = (entries, key) => {
    const entry = entries[key];
    delete entries[key];
    return entry;
  };
  const pending = table();
  const errorKinds = { capability: CapabilityError, tool: ToolError, argument: TypeError };

  function callForm(spec) {
    const props = Object.entries((spec.parameters && spec.parameters.properties) || {});
    const fields = props.map(([key, schema]) => `${key}: <${(schema && schema.type) || "value"}>`);
    return `await ${spec.jsName}({${fields.join(", ")}})`;
  }

  // A tool is a plain function that returns the call's promise, or a rejected one: an async
  // function would wrap that promise in its own, which costs two more jobs per call (a tenth
  // of a Promise.all of many calls in the guest). The originals, in case the code replaces them.
  const NativePromise = Promise;
  const rejected = Promise.reject.bind(Promise);
  function makeTool(spec) {
    const tool = {
      [spec.jsName](...args) {
        try {
          const arg = args[0];
          const isObject = arg !== null && typeof arg === "object" && !Array.isArray(arg);
          if (args.length > 1 || (args.length === 1 && arg !== undefined && !isObject)) {
            throw new TypeError(
              `${spec.jsName}() takes one object argument, not ${args.length > 1
                ? args.length + " arguments" : JSON.stringify(arg) ?? typeof arg}; ` +
              `call it as ${callForm(spec)}`);
          }
          const id = native.call(spec.name, toJSON(arg === undefined ? {} : arg));
          return new NativePromise((resolve, reject) => { pending[id] = { resolve, reject }; });
        } catch (error) {
          return rejected(error);
        }
      },
    }[spec.jsName];
    Object.defineProperty(tool, "description", { value: spec.description });
    return tool;
  }

  const namespaces = new Set();
  function mount(path, fn) {
    let node = globalThis;
    for (const segment of path.slice(0, -1)) {
      if (!Object.prototype.hasOwnProperty.call(node, segment)) {
        const ns = {};
        namespaces.add(ns);
        Object.defineProperty(node, segment, { value: ns, writable: true, configurable: true,
          enumerable: node !== globalThis });
      }
      node = node[segment];
      if (!namespaces.has(node)) return; // never graft tools onto a builtin like Math
    }
    node[path[path.length - 1]] = fn;
  }

  for (const spec of tools) {
    const fn = makeTool(spec);
    define(spec.jsName, fn);
    if (spec.path.length > 1) mount(spec.path, fn);
  }
  const catalogue = tools.map((t) => ({
    name: t.name, jsName: t.jsName, description: t.description, parameters: t.parameters,
  }));
  define("listTools", function listTools() { return JSON.parse(JSON.stringify(catalogue)); });
  // The execution's standard input (execute(..., stdin=...)) as a string; "" when there is none.
  define("readStdin", function readStdin() { return native.stdin(); });

  // --- Math.random ------------------------------------------------------------------------
  // sfc32 on the Rust side (see js/mod.rs): seeded by the host, one sequence per sandbox.
  Math.random = function random() { return native.random(); };

  // --- timers -----------------------------------------------------------------------------
  // A timer is a sleep on the host (so it replays exactly); the callback runs when it ends.
  const timers = table(); // the pending sleep's id by timer handle
  let timerSeq = 0;
  define("setTimeout", function setTimeout(callback, ms, ...args) {
    if (typeof callback !== "function") {
      throw new TypeError("setTimeout(callback, ms) needs a function as its first argument");
    }
    const handle = ++timerSeq;
    const id = native.sleep(Number(ms) || 0);
    timers[handle] = id;
    pending[id] = {
      resolve: () => { if (take(timers, handle) !== undefined) callback(...args); },
      reject: () => { delete timers[handle]; },
    };
    return handle;
  });
  define("clearTimeout", function clearTimeout(handle) {
    const id = take(timers, handle);
    // A cleared timer no longer holds the execution open.
    if (id !== undefined) { delete pending[id]; native.abandon(id); }
  });
  // An interval is a chain of sleeps: the next one starts before the callback runs, so the
  // callback may clear it.
  define("setInterval", function setInterval(callback, ms, ...args) {
    if (typeof callback !== "function") {
      throw new TypeError("setInterval(callback, ms) needs a function as its first argument");
    }
    const handle = ++timerSeq;
    const arm = () => {
      const id = native.sleep(Number(ms) || 0);
      timers[handle] = id;
      pending[id] = {
        resolve: () => { if (handle in timers) { arm(); callback(...args); } },
        reject: () => { delete timers[handle]; },
      };
    };
    arm();
    return handle;
  });
  define("clearInterval", function clearInterval(handle) { clearTimeout(handle); });

  // --- fs ---------------------------------------------------------------------------------
  // Node's fs over the sandbox's files (/workspace and /tmp are writable), sync and async.
  const fsError = (info) => Object.assign(new Error(info.message),
    { code: info.code, errno: info.errno, syscall: info.syscall, path: info.path });
  const check = ([error, value]) => {
    if (error) throw fsError(error);
    return value;
  };
  const pathOf = (path) => {
    if (typeof path !== "string") {
      throw new TypeError(`The "path" argument must be of type string. Received ${typeof path}`);
    }
    return path;
  };
  const wantsText = (options) => {
    const encoding = typeof options === "string" ? options : options && options.encoding;
    return encoding != null && /^utf-?8$/i.test(encoding);
  };
  const dataOf = (data) => {
    if (typeof data === "string" || data instanceof ArrayBuffer) return data;
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return JSON.stringify(data, null, 2); // objects are written as JSON
  };
  // What fs.readFile gives without an encoding: bytes, as in Node, that read as their UTF-8
  // text wherever a string is wanted: toString(encoding), JSON.parse(buf), `${buf}`, the
  // string methods a Uint8Array lacks (buf.trim().split("\n")), console.log, and JSON (so a
  // tool receives the text). Code written for a string-returning readFile keeps working.
  class FileBuffer extends Uint8Array {
    toString(encoding = "utf8", start = 0, end = this.length) {
      const bytes = this.subarray(start, end);
      switch (String(encoding).toLowerCase()) {
        case "utf8": case "utf-8": return native.utf8(bytes);
        case "latin1": case "binary": return latin1(bytes);
        case "base64": return btoa(latin1(bytes));
        case "hex": return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        default: throw new TypeError(`Unknown encoding: ${encoding} (use utf8, base64, hex ` +
          "or latin1)");
      }
    }
    toJSON() { return this.toString(); }
  }
  const STRING_ONLY = Object.getOwnPropertyNames(String.prototype)
    .filter((name) => !(name in Uint8Array.prototype) && typeof String.prototype[name] === "function");
  for (const name of STRING_ONLY) {
    Object.defineProperty(FileBuffer.prototype, name, {
      value(...args) { return String.prototype[name].apply(this.toString(), args); },
      writable: true, configurable: true,
    });
  }
  // atob/btoa, the web's base64 of "binary strings" (one char per byte).
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const invalidChar = (what) => Object.assign(new Error(what), { name: "InvalidCharacterError" });
  define("btoa", function btoa(data) {
    const text = String(data);
    if (/[^\u0000-\u00ff]/.test(text)) {
      throw invalidChar("btoa: the string has characters outside Latin-1; encode it first, " +
        "e.g. btoa(String.fromCharCode(...bytes))");
    }
    let out = "";
    for (let i = 0; i < text.length; i += 3) {
      const [a, b, c] = [0, 1, 2].map((k) => text.charCodeAt(i + k));
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[n >> 18] + B64[(n >> 12) & 63] +
        (Number.isNaN(b) ? "=" : B64[(n >> 6) & 63]) + (Number.isNaN(c) ? "=" : B64[n & 63]);
    }
    return out;
  });
  const latin1 = (bytes) => {
    let out = "";
    for (let i = 0; i < bytes.length; i += 8192) {
      out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    }
    return out;
  };
  define("atob", function atob(data) {
    const text = String(data).replace(/[\t\n\f\r ]/g, "").replace(/={1,2}$/, "");
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
      throw invalidChar("atob: the string is not valid base64");
    }
    let out = "", acc = 0, bits = 0;
    for (const c of text) {
      acc = ((acc << 6) | B64.indexOf(c)) & 0xffffff;
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((acc >> bits) & 0xff); }
    }
    return out;
  });
  const S_IFMT = { file: 0o100000, dir: 0o040000, symlink: 0o120000, device: 0o020000 };
  const statsOf = (s) => ({
    size: s.size, mtimeMs: s.mtimeMs, mtime: new Date(s.mtimeMs), mode: S_IFMT[s.kind] | s.mode,
    ino: s.ino, nlink: s.nlink,
    isFile: () => s.kind === "file", isDirectory: () => s.kind === "dir",
    isSymbolicLink: () => s.kind === "symlink",
  });
  const sync = {
    readFileSync: (path, options) => {
      const text = wantsText(options);
      const value = check(native.fsRead(pathOf(path), text));
      return text ? value : new FileBuffer(value);
    },
    writeFileSync: (path, data) => { check(native.fsWrite(pathOf(path), dataOf(data), false)); },
    appendFileSync: (path, data) => { check(native.fsWrite(pathOf(path), dataOf(data), true)); },
    mkdirSync: (path, options) => {
      check(native.fsOp("mkdir", pathOf(path), "", !!(options && options.recursive)));
    },
    readdirSync: (path) => check(native.fsOp("readdir", pathOf(path), "", false)),
    statSync: (path) => statsOf(check(native.fsOp("stat", pathOf(path), "", false))),
    lstatSync: (path) => statsOf(check(native.fsOp("lstat", pathOf(path), "", false))),
    existsSync: (path) => typeof path === "string" && check(native.fsOp("exists", path, "", false)),
    unlinkSync: (path) => { check(native.fsOp("unlink", pathOf(path), "", false)); },
    rmdirSync: (path) => { check(native.fsOp("rmdir", pathOf(path), "", false)); },
    rmSync: (path, options) => {
      const [error] = native.fsOp("rm", pathOf(path), "", !!(options && options.recursive));
      if (error && !(options && options.force && error.code === "ENOENT")) throw fsError(error);
    },
    renameSync: (from, to) => { check(native.fsOp("rename", pathOf(from), pathOf(to), false)); },
    linkSync: (existing, path) => { check(native.fsOp("link", pathOf(existing), pathOf(path), false)); },
    copyFileSync: (from, to) => { check(native.fsOp("copy", pathOf(from), pathOf(to), false)); },
  };
  const promises = {};
  const fsApi = { ...sync, promises };
  for (const [name, fn] of Object.entries(sync)) {
    const base = name.slice(0, -4);
    promises[base] = (...args) => new Promise((resolve) => resolve(fn(...args)));
    // fs.readFile(path, opts) returns a promise; with a callback last, Node's callback style.
    fsApi[base] = (...args) => {
      const last = args[args.length - 1];
      if (typeof last !== "function") return promises[base](...args);
      promises[base](...args.slice(0, -1)).then((value) => last(null, value), (error) => last(error));
      return undefined;
    };
  }
  promises.exists = undefined; // fs.promises has no exists, as in Node
  fsApi.exists = (path) => Promise.resolve(sync.existsSync(path));
  define("fs", Object.freeze(fsApi));

  // --- shell ------------------------------------------------------------------------------
  // The sandbox's shell session (same files, cwd and variables as shell executions).
  const shellFailure = (cmd, r) => Object.assign(
    new Error(`command failed with exit code ${r.exitCode}: ${cmd}` +
      (r.stderr ? `\n${r.stderr.replace(/\n$/, "")}` : "")),
    { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });
  function shell(cmd) {
    const r = native.shellSync(String(cmd));
    if (r === false) {
      throw new Error("shell(cmd) was stopped by the execution's time limit; do less work " +
        "per execution or raise Limits(timeout=...)");
    }
    if (r === null) {
      throw new Error("shell(cmd) cannot wait for tools or sleep; use " +
        "`await shell.exec(cmd)` for this command");
    }
    if (r.exitCode !== 0) throw shellFailure(cmd, r);
    return r.stdout;
  }
  shell.exec = function exec(cmd) {
    const id = native.shellStart(String(cmd));
    return new Promise((resolve, reject) => { pending[id] = { resolve, reject }; });
  };
  shell.run = shell; // amla-sandbox's spelling
  define("shell", shell);

  // --- what a model reaches for out of habit --------------------------------------------
  const example = tools.length ? ` e.g. ${callForm(tools[0])}` : "";
  const toolsHint = `Tools are global async functions taking one object${example}; ` +
    "listTools() lists them.";
  define("require", function require(name) {
    const what = JSON.stringify(String(name));
    if (/^(node:)?fs(\/promises)?$/.test(String(name))) {
      throw new ReferenceError(`require(${what}) is not available: use the global fs object ` +
        "instead (fs.readFileSync, await fs.readFile, fs.promises...).");
    }
    throw new ReferenceError(`require(${what}) is not available: this sandbox has no ` +
      `modules. ${toolsHint}`);
  });
  define("fetch", function fetch() {
    return Promise.reject(new ReferenceError(
      `fetch() is not available: this sandbox has no network. ${toolsHint}`));
  });
  const unavailable = (name, instead) => new Proxy(function () {}, {
    get(_, key) {
      if (key === Symbol.toPrimitive || key === "toString") return () => `[${name} unavailable]`;
      throw new ReferenceError(`${name}.${String(key)} is not available in this sandbox: ${instead}`);
    },
    apply() { throw new ReferenceError(`${name} is not available in this sandbox: ${instead}`); },
    construct() { throw new ReferenceError(`${name} is not available in this sandbox: ${instead}`); },
  });
  define("process", unavailable("process", "there is no environment, argv or exit; " +
    "print with console.log and end with `return value`."));
  define("Buffer", unavailable("Buffer", "use strings, Uint8Array or JSON instead."));

  // --- hooks for the Rust side -------------------------------------------------------------
  // The code may replace Promise.prototype.then or JSON.parse; the hooks keep the originals.
  const then = Function.prototype.call.bind(Promise.prototype.then);
  const parse = JSON.parse;
  let outcome = null;
  return {
    start(fn) {
      outcome = null;
      const settle = (value) => { outcome = value; };
      try {
        then(fn(),
          (value) => settle({ ok: true, value }),
          (error) => settle({ ok: false, error }));
      } catch (error) {
        settle({ ok: false, error });
      }
    },
    fail(error) { outcome = { ok: false, error }; },
    settle(id, ok, payload, kind) {
      const entry = take(pending, id);
      if (!entry) return;
      if (!ok) {
        entry.reject(kind === "memory" ? new InternalError(payload)
          : new (errorKinds[kind] || SandboxError)(payload));
        return;
      }
      // A result too large for the heap rejects the call: the code can catch it.
      let value;
      try {
        value = parse(payload);
      } catch (error) {
        entry.reject(error);
        return;
      }
      entry.resolve(value);
    },
    // null while running; else [exitCode, printed stdout, printed stderr, JSON of return value,
    // why the value cannot be returned: null, "size" (over native.maxReturn) or "heap"].
    outcome() {
      if (outcome === null) return null;
      if (!outcome.ok) return [1, null, describeError(outcome.error), null, null];
      const value = outcome.value;
      if (value === undefined || typeof value === "function" || typeof value === "symbol") {
        return [0, null, null, null, null];
      }
      let json;
      try {
        json = toJSON(value);
      } catch (error) {
        if (outOfMemory(error)) return [1, null, null, null, "heap"];
        return [1, null, describeError(error), null, null];
      }
      if (json.length > native.maxReturn) return [1, null, null, null, "size"];
      // Printed output is capped anyway: long text is cut before it is copied out.
      const text = typeof value === "string" || value instanceof FileBuffer;
      const printed = text ? String(value).slice(0, native.maxOutput + 1) : json;
      return [0, printed, null, json, null];
    },
  };
})
