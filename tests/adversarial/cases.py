"""The adversarial cases: hostile code, one line each, grouped by threat class.

Each case is ``case(id, language, code, expect)``. The id's prefix is its threat class in
docs/threat-model.rst (ESC escape, CAP capability bypass, DOS denial of service, EXF
exfiltration, VFS the virtual filesystem). ``expect`` is what the case itself must show, on top
of the invariants every case is held to (see test_adversarial.py):

- ``"any"``: only the invariants;
- ``"fails"``: the execution fails (non-zero exit status);
- ``"kind:K"``: it fails with ``error_kind == K``;
- ``"says:TEXT"``: TEXT appears in stdout, stderr or the error;
- ``"out:TEXT"``: stdout is exactly TEXT;
- ``"stops"``: it times out, stopped by the guest's own deadline checks, not by a backstop
  (the native epoch or the guest's allocator trap): those restart the sandbox, and under
  Pyodide there is no epoch, so a loop that never looks at the deadline would run on.

``native=True`` marks a case whose bound comes from the native backstop (a builtin that never
polls QuickJS's interrupt): in the browser the Worker's termination is that backstop instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    id: str
    language: str
    code: str
    expect: str = "any"
    native: bool = False


def case(id: str, language: str, code: str, expect: str = "any", native: bool = False) -> Case:
    return Case(id, language, code, expect, native)


JS, SH = "javascript", "shell"

# --- ESC: reaching the host (files, environment, network, processes, the engine) ---------------
ESCAPE = [
    case("ESC-001", JS, "require('fs')", "says:require"),
    case("ESC-002", JS, "return process.env", "says:process"),
    case("ESC-003", JS, "await fetch('http://127.0.0.1:1/')", "says:fetch"),
    case("ESC-004", JS, "await import('os')", "fails"),
    case("ESC-005", JS, "await import('std')", "fails"),
    case(
        "ESC-006",
        JS,
        "return typeof std + typeof os + typeof scriptArgs",
        "out:undefinedundefinedundefined",
    ),
    case("ESC-007", JS, "return typeof WebAssembly", "any"),
    case("ESC-008", JS, "return (function(){ return this })() === undefined", "any"),
    case("ESC-009", JS, "return Function('return this')() === globalThis", "any"),
    case(
        "ESC-010", JS, "return [].constructor.constructor('return process.env')()", "says:process"
    ),
    case(
        "ESC-011", JS, "return typeof XMLHttpRequest + typeof WebSocket", "out:undefinedundefined"
    ),
    case("ESC-012", JS, "return typeof Deno + typeof Bun", "out:undefinedundefined"),
    case(
        "ESC-013",
        JS,
        "return Object.getOwnPropertyNames(globalThis).filter(n => /native|__/i.test(n))",
        "any",
    ),
    case("ESC-014", JS, "return await fs.readFile('/etc/passwd', 'utf8')", "fails"),
    case("ESC-015", JS, "return await fs.readFile('../../../../etc/passwd', 'utf8')", "fails"),
    case("ESC-016", JS, "return await fs.readdir('/')", "any"),
    case("ESC-017", JS, "return await fs.readFile('/proc/self/environ', 'utf8')", "fails"),
    case("ESC-018", JS, "return await fs.readFile('secret.txt', 'utf8')", "fails"),
    case("ESC-019", JS, "eval('1+1'); return new Function('return 2')()", "out:2"),
    case("ESC-020", JS, "return Buffer.from('x')", "says:Buffer"),
    case("ESC-021", JS, "return typeof setTimeout", "out:function"),
    case("ESC-022", JS, "return globalThis.__proto__.constructor.name", "any"),
    case("ESC-023", JS, "const s = new SharedArrayBuffer(8); return s.byteLength", "any"),
    case("ESC-024", JS, "return typeof Atomics === 'object' ? Atomics.wait : null", "any"),
    case(
        "ESC-025",
        JS,
        "return new WebAssembly.Module(new Uint8Array([0,97,115,109,1,0,0,0]))",
        "any",
    ),
    case("ESC-026", JS, "return shell('cat /etc/hostname')", "any"),
    case("ESC-027", JS, "return await shell('env')", "any"),
    case("ESC-028", JS, "return Error.prepareStackTrace = (e, s) => s, new Error().stack", "any"),
    case("ESC-029", JS, "return (new Error('x')).stack.includes('/work') ? 'leak' : 'ok'", "any"),
    case("ESC-030", JS, "return Intl ? Object.keys(Intl) : 0", "any"),
    case("ESC-031", SH, "cat /etc/passwd", "fails"),
    case("ESC-032", SH, "cat /proc/self/environ", "fails"),
    case("ESC-033", SH, "env", "any"),
    case("ESC-034", SH, "set", "any"),
    case("ESC-035", SH, "ls -la /", "any"),
    case("ESC-036", SH, "cd / && ls -R | head -50", "any"),
    case("ESC-037", SH, "curl http://127.0.0.1:1/", "says:network"),
    case("ESC-038", SH, "wget http://127.0.0.1:1/", "fails"),
    case("ESC-039", SH, "nc 127.0.0.1 1 </dev/null", "fails"),
    case("ESC-040", SH, "python3 -c 'import os; print(os.environ)'", "fails"),
    case("ESC-041", SH, "/bin/sh -c 'cat /etc/passwd'", "fails"),
    case("ESC-042", SH, "exec /bin/bash", "any"),
    case("ESC-043", SH, "cat ~/.ssh/id_rsa", "fails"),
    case("ESC-044", SH, "cat secret.txt", "fails"),
    case("ESC-045", SH, "cat ../../../../../../etc/shadow", "fails"),
    case("ESC-046", SH, "ln -s /etc/passwd p; cat p", "fails"),
    case("ESC-047", SH, "exec 3</etc/passwd; cat <&3", "fails"),
    case("ESC-048", SH, "cat < /dev/tcp/127.0.0.1/80", "fails"),
    case("ESC-049", SH, "echo x > /dev/tcp/127.0.0.1/80", "fails"),
    case("ESC-050", SH, "source /etc/profile", "fails"),
    case("ESC-051", SH, "printenv HOME PATH", "any"),
    case("ESC-052", SH, "echo $CORRAL_ADVERSARIAL_SECRET", "out:\n"),
    case("ESC-053", SH, "find / -name '*.py' 2>/dev/null | head", "any"),
    case("ESC-054", SH, "sudo id", "fails"),
    case("ESC-055", SH, "awk 'BEGIN { system(\"id\") }'", "any"),
    case("ESC-056", SH, "awk 'BEGIN { while ((getline l < \"/etc/passwd\") > 0) print l }'", "any"),
    case("ESC-057", SH, "sed -n 'w /etc/evil' /dev/null; cat /etc/evil", "fails"),
    case("ESC-058", SH, "jq -n 'env'", "any"),
    case("ESC-059", SH, "jq -n '$ENV'", "any"),
    case("ESC-060", SH, "find . -exec /bin/sh -c id \\;", "any"),
    case("ESC-061", SH, "xargs -I{} /bin/sh -c {} <<< id", "any"),
    case("ESC-062", SH, "eval \"$(printf 'cat /etc/%s' passwd)\"", "fails"),
    case("ESC-063", SH, "mount -t proc proc /mnt", "fails"),
    case("ESC-064", SH, "kill -9 1; echo alive", "any"),
    case("ESC-065", SH, "trap 'cat /etc/passwd' EXIT; exit 0", "any"),
]

# --- CAP: calling a tool beyond the capabilities (policy: pay(amount <= 100, > 0,
# currency in USD/EUR), at most 5 calls per sandbox; `secret_admin` is not granted) -------------
_TAMPER = "JSON.stringify = (v) => JSON_RAW; "
CAPABILITY = [
    case(
        "CAP-001", JS, "return await pay({amount: 5000, currency: 'USD'})", "says:CapabilityError"
    ),
    case("CAP-002", JS, "return await pay({amount: 50, currency: 'GBP'})", "says:CapabilityError"),
    case("CAP-003", JS, "return await pay({amount: -5, currency: 'USD'})", "says:CapabilityError"),
    case("CAP-004", JS, "return await pay({amount: 0, currency: 'USD'})", "says:CapabilityError"),
    case("CAP-005", JS, "return await pay({amount: '5000', currency: 'USD'})", "fails"),
    case("CAP-006", JS, "return await pay({amount: '50', currency: 'USD'})", "any"),
    case("CAP-007", JS, "return await pay({amount: [5000], currency: 'USD'})", "fails"),
    case(
        "CAP-008", JS, "return await pay({amount: {valueOf: () => 5000}, currency: 'USD'})", "fails"
    ),
    case(
        "CAP-009",
        JS,
        "return await pay({amount: 100.0000001, currency: 'USD'})",
        "says:CapabilityError",
    ),
    case("CAP-010", JS, "return await pay({amount: 1e309, currency: 'USD'})", "fails"),
    case("CAP-011", JS, "return await pay({amount: Infinity, currency: 'USD'})", "fails"),
    case("CAP-012", JS, "return await pay({amount: NaN, currency: 'USD'})", "fails"),
    case("CAP-013", JS, "return await pay({amount: -Infinity, currency: 'USD'})", "fails"),
    case(
        "CAP-014",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": -1e999, "currency": "USD"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-015",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": NaN, "currency": "USD"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-016",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": Infinity, "currency": "USD"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-017",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": 1e999, "currency": "USD"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-018",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": 5, "amount": 5000, "currency": "USD"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-019",
        JS,
        _TAMPER.replace(
            "JSON_RAW", '\'{"amount": 5, "currency": "USD", "__proto__": {"amount": 9999}}\''
        )
        + "return await pay({amount: 1, currency: 'USD'})",
        "any",
    ),
    case(
        "CAP-020",
        JS,
        _TAMPER.replace("JSON_RAW", "'[5000, \"USD\"]'")
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-021",
        JS,
        _TAMPER.replace("JSON_RAW", "'not json'")
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-022",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": 5, "currency": "usd"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-023",
        JS,
        _TAMPER.replace("JSON_RAW", '\'{"amount": 5, "currency": "USD\\\\u0000"}\'')
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-024",
        JS,
        _TAMPER.replace(
            "JSON_RAW", "'{\"amount\": 1' + '0'.repeat(400) + ', \"currency\": \"USD\"}'"
        )
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-025",
        JS,
        _TAMPER.replace("JSON_RAW", "'[' .repeat(100000)")
        + "return await pay({amount: 1, currency: 'USD'})",
        "fails",
    ),
    case("CAP-026", JS, "return await secret_admin({})", "fails"),
    case("CAP-027", JS, "return typeof secret_admin", "any"),
    case(
        "CAP-028",
        JS,
        "return await globalThis['pay']({amount: 500, currency: 'EUR'})",
        "says:CapabilityError",
    ),
    case(
        "CAP-029",
        JS,
        "const p = pay; return await p.call(null, {amount: 500, currency: 'EUR'})",
        "says:CapabilityError",
    ),
    case(
        "CAP-030",
        JS,
        "return await pay.apply(null, [{amount: 500, currency: 'EUR'}])",
        "says:CapabilityError",
    ),
    case(
        "CAP-031",
        JS,
        "return await Reflect.apply(pay, null, [{amount: 500, currency: 'EUR'}])",
        "says:CapabilityError",
    ),
    case("CAP-032", JS, "return await pay({amount: 5, currency: 'USD', extra: 'x'})", "fails"),
    case("CAP-033", JS, "return await pay({currency: 'USD'})", "fails"),
    case("CAP-034", JS, "return await pay()", "fails"),
    case("CAP-035", JS, "return await pay(null)", "fails"),
    case("CAP-036", JS, "return await pay(5, 'USD')", "fails"),
    case(
        "CAP-037",
        JS,
        "const o = {currency: 'USD'}; Object.defineProperty(o, 'amount', {get(){ return this.n = (this.n||0) + 1 === 1 ? 5 : 5000 }, enumerable: true}); return await pay(o)",
        "any",
    ),
    case(
        "CAP-038",
        JS,
        "const o = {amount: 5, currency: 'USD'}; const r = pay(o); o.amount = 5000; return await r",
        "any",
    ),
    case(
        "CAP-039",
        JS,
        "Object.prototype.amount = 5000; return await pay({currency: 'USD'})",
        "fails",
    ),
    case(
        "CAP-040",
        JS,
        "Object.prototype.toJSON = function() { return {amount: 5000, currency: 'USD'} }; return await pay({amount: 1, currency: 'USD'})",
        "any",
    ),
    case(
        "CAP-041",
        JS,
        "return await Promise.all(Array.from({length: 20}, () => pay({amount: 1, currency: 'USD'})))",
        "says:CapabilityError",
    ),
    case(
        "CAP-042",
        JS,
        "for (let i = 0; i < 20; i++) { try { await pay({amount: 1, currency: 'EUR'}) } catch (e) { return e.message } }",
        "says:max_calls",
    ),
    case(
        "CAP-043",
        JS,
        "return await pay({amount: 1, currency: 'USD'}).then(() => pay({amount: 999, currency: 'USD'}))",
        "says:CapabilityError",
    ),
    case("CAP-044", JS, "return listTools ? listTools() : 0", "any"),
    case(
        "CAP-045",
        JS,
        "return await pay({amount: 0x7fffffff, currency: 'USD'})",
        "says:CapabilityError",
    ),
    case("CAP-046", JS, "return await pay({amount: 2n ** 64n, currency: 'USD'})", "fails"),
    case("CAP-047", JS, "return await pay({amount: Number.MIN_VALUE, currency: 'USD'})", "any"),
    case("CAP-048", JS, "return await pay({amount: -0, currency: 'USD'})", "says:CapabilityError"),
    case(
        "CAP-049", JS, "return await pay({amount: 1e2, currency: 'EUR '})", "says:CapabilityError"
    ),
    case("CAP-050", JS, "return await pay({amount: 50, currency: ['USD']})", "fails"),
    case(
        "CAP-051", JS, "return await pay({amount: 50, currency: {toString: () => 'USD'}})", "fails"
    ),
    case("CAP-052", JS, "return await pay({amount: true, currency: 'USD'})", "fails"),
    case("CAP-053", JS, "return await pay({amount: null, currency: 'USD'})", "fails"),
    case("CAP-054", SH, "tool pay --amount 5000 --currency USD", "says:denied: amount <= 100"),
    case("CAP-055", SH, "tool pay --amount 50 --currency GBP", "says:denied: currency"),
    case("CAP-056", SH, "tool pay --amount -inf --currency USD", "fails"),
    case("CAP-057", SH, "tool pay --amount nan --currency USD", "fails"),
    case("CAP-058", SH, "tool pay --amount 1e999 --currency USD", "fails"),
    case("CAP-059", SH, "tool pay --amount Infinity --currency USD", "fails"),
    case("CAP-060", SH, 'tool pay --json \'{"amount": -1e999, "currency": "USD"}\'', "fails"),
    case("CAP-061", SH, 'tool pay --json \'{"amount": NaN, "currency": "USD"}\'', "fails"),
    case(
        "CAP-062",
        SH,
        'echo \'{"amount": 5000, "currency": "USD"}\' | tool pay',
        "says:denied",
    ),
    case("CAP-063", SH, "tool secret_admin", "fails"),
    case("CAP-064", SH, "tool ../pay --amount 5 --currency USD", "fails"),
    case("CAP-065", SH, "tool PAY --amount 5 --currency USD", "fails"),
    case("CAP-066", SH, "tool 'pay ' --amount 5 --currency USD", "fails"),
    case(
        "CAP-067",
        SH,
        "for i in $(seq 20); do tool pay --amount 1 --currency EUR & done; wait",
        "says:max_calls",
    ),
    case(
        "CAP-068",
        SH,
        "for i in $(seq 20); do tool pay --amount 1 --currency EUR || break; done",
        "says:max_calls",
    ),
    case("CAP-069", SH, "tool pay --amount 5 --amount 5000 --currency USD", "any"),
    case("CAP-070", SH, "tool pay --amount 0x1000 --currency USD", "any"),
    case("CAP-071", SH, "tool pay --amount ' 5000' --currency USD", "any"),
    case("CAP-072", SH, "alias t='tool pay'; t --amount 5000 --currency USD", "any"),
]

# --- DOS: time, memory, stack, output (timeout 1 s, 32 MiB heap, 64 KiB output) -------------
DENIAL = [
    case("DOS-001", JS, "while (true) {}", "kind:timeout"),
    case("DOS-002", JS, "for (;;) { Math.random() }", "kind:timeout"),
    case("DOS-003", JS, "const f = () => f(); f()", "fails"),
    case("DOS-004", JS, "const f = async () => { await null; return f() }; await f()", "fails"),
    case("DOS-005", JS, "const a = []; while (true) a.push(new Array(1e5).fill(1))", "fails"),
    case("DOS-006", JS, "let s = 'x'; while (true) s += s", "fails"),
    case("DOS-007", JS, "return 'x'.repeat(2 ** 30).length", "fails"),
    case("DOS-008", JS, "return new ArrayBuffer(2 ** 31).byteLength", "fails"),
    # join builds a string: the guest allocator's backstop (every MiB allocated) stops these
    # now, in the browser too; sort and reverse (DOS-022) allocate nothing, so only a backstop
    # outside the guest (the native epoch, the browser Worker's termination) ends them.
    # join fills the heap, then loops on without allocating (QuickJS ignores the failed
    # appends): when the heap fills before the time limit, only the epoch stops it.
    case("DOS-009", JS, "return new Array(2 ** 32 - 1).join(',').length", "fails", native=True),
    case("DOS-010", JS, "return [].join.call({length: 2 ** 32 - 1})", "fails", native=True),
    case("DOS-011", JS, "return (new Array(1e9) + '').length", "fails", native=True),
    case("DOS-012", JS, "return JSON.parse('['.repeat(1e6))", "fails"),
    case(
        "DOS-013",
        JS,
        "let o = {}; for (let i = 0; i < 1e6; i++) o = {o}; return JSON.stringify(o).length",
        "fails",
    ),
    case("DOS-014", JS, "return /(a+)+$/.test('a'.repeat(40) + 'b')", "kind:timeout"),
    case("DOS-015", JS, "while (true) console.log('flood flood flood flood')", "fails"),
    case("DOS-016", JS, "console.log('x'.repeat(10 * 1024 * 1024))", "any"),
    case("DOS-017", JS, "await new Promise(() => {})", "fails"),
    case("DOS-018", JS, "await new Promise(r => setTimeout(r, 1e9))", "kind:timeout"),
    case("DOS-019", JS, "setInterval(() => {}, 1); await new Promise(() => {})", "fails"),
    case(
        "DOS-020",
        JS,
        "const loop = () => Promise.resolve().then(loop); loop(); await new Promise(() => {})",
        "fails",
    ),
    case(
        "DOS-021",
        JS,
        "const m = new Map(); for (let i = 0;; i++) m.set(i, 'x'.repeat(100))",
        "fails",
    ),
    case(
        "DOS-022",
        JS,
        "const a = []; a.length = 2 ** 32 - 1; return a.sort().length",
        "fails",
        native=True,
    ),
    case("DOS-023", JS, "return Array.from({length: 1e8}, (_, i) => i).length", "fails"),
    case(
        "DOS-024",
        JS,
        "return await Promise.all(Array.from({length: 1e6}, () => pay({amount: 1, currency: 'USD'})))",
        "fails",
    ),
    case(
        "DOS-025",
        JS,
        "for (let i = 0; i < 1e5; i++) await fs.writeFile('/tmp/f' + i, 'x')",
        "fails",
    ),
    case("DOS-026", JS, "await fs.writeFile('big', 'x'.repeat(2 ** 27))", "fails"),
    case("DOS-027", JS, "const p = new Proxy({}, {get: (t, k, r) => r[k]}); return p.x", "fails"),
    case("DOS-028", JS, "class A { get x() { return this.x } }; return new A().x", "fails"),
    case("DOS-029", JS, "return String(new Array(1e7).fill('ab'))", "any"),
    case("DOS-030", JS, "return 'a'.padEnd(2 ** 29).length", "fails"),
    case("DOS-031", JS, "return BigInt(2) ** BigInt(2 ** 30)", "fails"),
    case("DOS-032", JS, "try { while (true) {} } catch (e) { while (true) {} }", "kind:timeout"),
    case("DOS-033", JS, "try { while (true) {} } finally { while (true) {} }", "kind:timeout"),
    case("DOS-034", JS, "return eval('1+'.repeat(1e6) + '1')", "fails"),
    case("DOS-035", JS, "return new RegExp('('.repeat(1e5) + ')'.repeat(1e5))", "fails"),
    case("DOS-036", SH, "while :; do :; done", "kind:timeout"),
    case("DOS-037", SH, "f() { f; }; f", "fails"),
    case("DOS-038", SH, "f() { f | f & }; f", "fails"),
    case("DOS-039", SH, ":(){ :|:& };:", "fails"),
    case("DOS-040", SH, "yes", "fails"),
    case("DOS-041", SH, "yes | head -c 100000000 | wc -c", "any"),
    case("DOS-042", SH, "x=$(yes | head -c 100000000); echo ${#x}", "says:value too large"),
    case("DOS-043", SH, "echo {1..100000000}", "fails"),
    case("DOS-044", SH, "echo {1..10}{1..10}{1..10}{1..10}{1..10}{1..10}{1..10}{1..10}", "fails"),
    case("DOS-045", SH, "seq 1 1000000000000 | tail -1", "fails"),
    case("DOS-046", SH, "cat /dev/zero > big", "fails"),
    case("DOS-047", SH, "head -c 1000000000000 /dev/urandom | wc -c", "fails"),
    case("DOS-048", SH, "printf '%999999999d' 1 | wc -c", "says:field width too large"),
    case("DOS-049", SH, "sleep 1000000", "kind:timeout"),
    case("DOS-050", SH, "sleep infinity", "kind:timeout"),
    case("DOS-051", SH, "awk 'BEGIN { while (1) {} }'", "kind:timeout"),
    case("DOS-052", SH, "awk 'BEGIN { s = \"x\"; while (1) s = s s }'", "fails"),
    case("DOS-053", SH, "sed ':a; s/x/xx/; ba' <<< x", "fails"),
    case("DOS-054", SH, "jq -n '[range(1e12)] | length'", "fails"),
    case("DOS-055", SH, "jq -n 'def f: f; f'", "kind:timeout"),
    case("DOS-056", SH, "jq -n '[limit(1e9; repeat(1))] | length'", "fails"),
    case("DOS-057", SH, "echo '2^99999999' | bc", "says:too large"),
    case("DOS-058", SH, "echo 'while (1) {}' | bc", "kind:timeout"),
    case("DOS-059", SH, "grep -E '(a*)*b' <<< $(printf 'a%.0s' {1..5000})", "any"),
    case("DOS-060", SH, "x=x; while :; do x=$x$x; done", "fails"),
    case("DOS-061", SH, "a=(); for ((i=0;;i++)); do a[i]=$i; done", "fails"),
    case("DOS-062", SH, "while :; do echo flood; done", "fails"),
    case("DOS-063", SH, "mkdir -p $(printf 'd/%.0s' {1..5000})", "any"),
    case("DOS-064", SH, "for i in $(seq 200000); do : > /tmp/f$i; done", "fails"),
    case("DOS-065", SH, "ln -s a b; ln -s b a; cat a", "fails"),
    case("DOS-066", SH, "find / -follow 2>/dev/null | wc -l", "any"),
    case("DOS-067", SH, "cat <<< \"$(printf '%*s' 100000000 x)\" | wc -c", "says:too large"),
    case("DOS-068", SH, "sort /dev/zero", "fails"),
    case("DOS-069", SH, "tail -f /dev/null", "fails"),
    case("DOS-070", SH, "read line", "any"),
    case("DOS-071", SH, "eval \"$(printf 'echo %.0s' {1..200000})\"", "any"),
    case("DOS-072", SH, "trap 'while :; do :; done' EXIT; exit", "kind:timeout"),
    case("DOS-073", SH, "while :; do sleep 0 & done", "fails"),
    case("DOS-074", SH, "exec 1>&-; echo gone", "any"),
    # A value whose saved (JSON) form is six times its size: the session bound counts that.
    case("DOS-075", SH, "x=$(head -c 8000000 /dev/zero | tr '\\0' '\\1')", "says:unset x"),
    # Interpreter loops that never yield to the shell: bc and jq check the deadline themselves,
    # and jaq's own evaluation is stopped by the guest allocator's backstop (every target).
    case("DOS-076", SH, "echo 'for (;;) {}' | bc", "kind:timeout"),
    case(
        "DOS-077",
        SH,
        "echo 'define f(n) { if (n == 0) return 0; return f(n-1) + f(n-1) }; f(60)' | bc",
        "kind:timeout",
    ),
    case("DOS-078", SH, "echo 'define f(n) { return f(n+1) }; f(1)' | bc", "says:too deep"),
    case("DOS-079", SH, "jq -n 'last(range(1e12))'", "kind:timeout"),
    case("DOS-080", SH, "jq -n 'reduce range(1e12) as $x (0; . + $x)'", "kind:timeout"),
    case("DOS-081", SH, "jq -n 'until(false; .)'", "kind:timeout"),
    case("DOS-082", SH, "jq -n 'def f: 1 | f; f'", "kind:timeout"),
    case("DOS-083", SH, "jq -n 'first(range(1e12) | select(. < 0))'", "kind:timeout"),
    case("DOS-084", SH, "sed ':a;ba' <<< x", "kind:timeout"),
    case("DOS-085", SH, "awk 'BEGIN { for (;;) x++ }'", "kind:timeout"),
    case("DOS-086", SH, "x=$(jq -n 'def f: f; f'); echo never", "kind:timeout"),
    case("DOS-087", SH, "jq -n 'try (def f: f; f) catch 0'", "kind:timeout"),
    case("DOS-088", JS, "return {toJSON() { while (true) {} }}", "kind:timeout"),
    case("DOS-089", JS, "return {get x() { for (;;) {} }}", "kind:timeout"),
    case(
        "DOS-090", SH, "dd if=/dev/zero bs=99999999999999 count=1 | wc -c", "says:memory exhausted"
    ),
    case("DOS-091", SH, "dd if=/dev/zero bs=1M count=100000 of=big", "says:File too large"),
    case("DOS-092", SH, "date +%99999999999d | wc -c", "out:16777217\n"),
    # Loops inside one builtin that used to run on past the deadline (only a backstop ended
    # them): back-reference searches (up to 2**25 steps a line), shell pattern operators
    # (quadratic or worse over a long value), endless devices, which never block.
    case(
        "DOS-093",
        SH,
        "printf '%3000sbc\\n' {1..40} | tr ' ' a > g; grep -c '\\(a*\\)*\\1c' g",
        "stops",
    ),
    case(
        "DOS-094",
        SH,
        "printf '%3000sbc\\n' {1..40} | tr ' ' a > g; grep -Ec '(a*)*\\1c' g",
        "stops",
    ),
    case(
        "DOS-095",
        SH,
        "printf '%3000s\\n' {1..40} | tr ' ' a > g; sed 's/\\(a*\\)*\\1b//' g",
        "any",
    ),
    case(
        "DOS-096",
        SH,
        "x=$(printf '%3000s' | tr ' ' a); for i in {1..40}; do expr \"$x\" : '\\(a*\\)*\\1b'; done",
        "fails",
    ),
    case("DOS-097", SH, "x=$(printf '%200000s' | tr ' ' a); y=${x//*a*a*b/}; echo ${#y}", "stops"),
    case("DOS-098", SH, "x=$(printf '%100000s' | tr ' ' a); y=${x##*a*a*a*b}; echo ${#y}", "stops"),
    case(
        "DOS-099",
        SH,
        "shopt -s extglob; x=$(printf '%3000s' | tr ' ' a); echo ${x//+(a|aa)+(a)b/}",
        "stops",
    ),
    case("DOS-100", SH, "wc -l /dev/zero", "stops"),
    case("DOS-101", SH, "rev /dev/zero | head -c 1", "says:rev: a line longer than 16 MiB"),
    case("DOS-102", SH, "od /dev/zero | tail -1", "stops"),
    case("DOS-103", SH, "sha256sum /dev/zero", "stops"),
    case("DOS-104", SH, "md5sum /dev/urandom", "stops"),
    # xargs summed its whole batch for every item: quadratic, ~1.5 s for 300 kB (16.7 s for
    # 1 MB), against the 1 s limit; linear, 0.04 s (1 MB ran past the limit in Chromium at
    # load 18).
    case("DOS-105", SH, "yes | head -c 300000 | xargs echo | wc -c", "out:300000\n"),
    case("DOS-106", SH, "yes | xargs echo > /dev/null", "stops"),
    case("DOS-107", JS, "return shell('cat /dev/zero | wc -c')", "stops"),
    # Precisions past 65,535, which Rust's formatter refuses with a panic (a trap, restarting
    # the sandbox); GNU's tools print them.
    case("DOS-108", SH, "printf '%.100000f' 1 | wc -c", "out:100002\n"),
    case("DOS-109", SH, "printf '%.70000d' 1 | wc -c", "out:70000\n"),
    case("DOS-110", SH, "printf '%.100000e' 1 | wc -c", "out:100006\n"),
    case("DOS-111", SH, "seq -f '%.100000f' 1 1 | wc -c", "out:100003\n"),
    case("DOS-112", SH, "awk 'BEGIN { printf \"%.100000f\", 1 }' | wc -c", "out:100002\n"),
    case("DOS-113", SH, "awk 'BEGIN { printf \"%.100000e\", 1 }' | wc -c", "out:100006\n"),
    # Commands of `shell.exec` cut short by the deadline kept their nesting level: every
    # later shell command of the sandbox failed with "maximum nesting level exceeded".
    case(
        "DOS-114",
        JS,
        "await Promise.all(Array.from({length: 300}, () => shell.exec('sleep 10')))",
        "kind:timeout",
    ),
    # Loops of work that QuickJS does not count towards its interrupt checks (tiny jobs,
    # native calls): only the native backstop, which the browser lacks, ended them.
    case("DOS-115", JS, "for (;;) await null", "stops"),
    case("DOS-116", JS, "for (;;) console.error('e'.repeat(1000))", "stops"),
    case("DOS-117", JS, "for (;;) console.log('x')", "stops"),
    # A fork bomb's jobs, polled together, made one pass of the executor longer than the
    # backstop's grace; at most MAX_JOBS run at once, as `ulimit -u` bounds processes.
    case("DOS-118", SH, "f() { f & f & }; f; wait", "stops"),
    case(
        "DOS-119",
        SH,
        "for i in {1..1001}; do sleep 5 & done",
        "says:fork: Resource temporarily unavailable",
    ),
    # Back-references: sed and expr spent their whole step budget on every line that cannot
    # match (grep skipped those lines already), so DOS-095 and DOS-096 ran into the time limit;
    # now a relaxed pattern (each back-reference as any text) rules such lines out at once.
    case(
        "DOS-120",
        SH,
        "printf '%3000s\\n' {1..40} | tr ' ' a > g; sed 's/\\(a*\\)*\\1b//' g | wc -l",
        "out:40\n",
    ),
    case(
        "DOS-121",
        SH,
        "x=$(printf '%3000s' | tr ' ' a); for i in {1..40}; do expr \"$x\" : '\\(a*\\)*\\1b'; done"
        " | wc -l",
        "out:40\n",
    ),
    case(
        "DOS-122",
        SH,
        "printf '%30s\\n' {1..2000} | tr ' ' a | sed -n '/\\(a*\\)*\\1b/p' | wc -l",
        "out:0\n",
    ),
    # A brace expansion within the old bound (a million words) exhausted the guest's memory.
    case("DOS-123", SH, "echo {1..300000} | wc -c", "says:brace expansion: more than"),
    # Builtins that never poll QuickJS's interrupt but allocate big buffers: the guest's
    # allocator looked at the clock every 16,384 allocations only, so a few big ones a second
    # ran on until the native epoch (see test_the_guest_stops_what_only_the_epoch_stopped).
    case(
        "DOS-124",
        JS,
        "const a = new Array(1e6).fill(0); for (;;) JSON.stringify(a)",
        "kind:timeout",
    ),
    case("DOS-125", JS, "for (;;) eval('1+'.repeat(5e4) + '1')", "kind:timeout"),
    case("DOS-126", JS, "for (;;) JSON.parse('[' + '0,'.repeat(3e5) + '0]')", "kind:timeout"),
    case(
        "DOS-127",
        JS,
        "let e = new Error('x'); for (let i = 0; i < 1e6; i++) e = new Error('y', {cause: e})",
        "fails",
    ),
    case(
        "DOS-128",
        JS,
        "return (await Promise.all(Array.from({length: 2e5}, () => echo({text: 'x'})))).length",
        "fails",
    ),
    case(
        "DOS-129",
        JS,
        "return (await shell('head -c 30000000 /dev/zero | tr \"\\\\0\" a')).length",
        "fails",
    ),
    # Session 9's own probes: pathological regexes in every applet that takes one, deep
    # recursion in each language, huge argument lists, traps and signals, output floods.
    case(
        "DOS-130", SH, "x=$(printf '%40s' | tr ' ' a); echo \"${x}b\" | awk '/^(a|aa)*c$/'", "any"
    ),
    case(
        "DOS-131", SH, "x=$(printf '%3000s' | tr ' ' a); [[ $x =~ ^(a|aa)*c$ ]]; echo $?", "out:1\n"
    ),
    case(
        "DOS-132",
        SH,
        "printf '%30s\\n' {1..200} | tr ' ' a > g; find . -regex '.*\\(a\\|aa\\)*c'; echo done",
        "out:done\n",
    ),
    case("DOS-133", SH, "x=$(printf '\\\\(%.0s' {1..5000}); echo a | sed \"s/$x//\"", "fails"),
    case("DOS-134", SH, "x=$(printf '(%.0s' {1..5000}); echo a | grep -E \"$x\"", "fails"),
    case("DOS-135", SH, "x=$(printf '(%.0s' {1..5000}); echo a | awk \"/$x/\"", "fails"),
    case("DOS-136", SH, "x=$(printf '(%.0s' {1..5000}); [[ a =~ $x ]]", "fails"),
    case("DOS-137", SH, "x=$(printf '(%.0s' {1..5000}); echo $((x 1))", "fails"),
    case("DOS-138", SH, "x=$(printf '[%.0s' {1..100000}); echo \"$x\" | jq .", "fails"),
    case("DOS-139", SH, "awk 'function f(n) { return f(n+1) } BEGIN { f(1) }'", "says:too deep"),
    case("DOS-140", SH, "f() { f; }; f; echo after", "says:nesting level"),
    case(
        "DOS-141",
        JS,
        "const f = n => f(n + 1) + 1; try { f(0) } catch (e) { return 'caught' }",
        "any",
    ),
    case(
        "DOS-142",
        JS,
        "return JSON.stringify(JSON.parse('['.repeat(1e5) + ']'.repeat(1e5)))",
        "fails",
    ),
    case("DOS-143", SH, "set -- $(seq 30000); echo $#", "out:30000\n"),
    case("DOS-144", JS, "return Math.max(...new Array(1e7).fill(1))", "fails"),
    case("DOS-145", JS, "return String.fromCharCode(...new Array(1e6).fill(65)).length", "any"),
    case(
        "DOS-146", SH, "trap 'echo trapped' INT; kill -INT $$; echo after", "out:trapped\nafter\n"
    ),
    case("DOS-147", SH, "kill -9 $$; echo after", "fails"),
    case("DOS-148", SH, "trap 'while :; do :; done' ERR; false", "kind:timeout"),
    case("DOS-149", SH, "trap 'kill -TERM $$' TERM; kill -TERM $$; echo after", "any"),
    case("DOS-150", SH, "exec 2>&1; while :; do echo flood >&2; done", "fails"),
    case("DOS-151", SH, "exec 3>&1; while :; do printf '%01000d' 0 >&3; done", "fails"),
    case("DOS-152", SH, "tee a b c < /dev/zero | head -c 10 | wc -c", "out:10\n"),
    case("DOS-153", JS, "for (;;) console.warn({a: 'x'.repeat(1000)})", "fails"),
    case("DOS-154", JS, "for (;;) await shell.exec('echo x >&2')", "fails"),
    case("DOS-155", JS, "return 'x'.repeat(2 ** 24) + 'y'.repeat(2 ** 24)", "fails"),
    case("DOS-156", SH, "printf '%s\\n' {a..z}{a..z}{a..z}{a..z} | sort | uniq -c | wc -l", "any"),
    # Line tools over an endless input without newlines grew one line until the guest ran out
    # of memory and restarted: past MAX_LINE (16 MiB) the command fails, saying so.
    case("DOS-157", SH, "cut -c1 /dev/zero", "says:cut: a line longer than 16 MiB"),
    # Through a pipe: 16 MiB may take longer than the limit on a loaded machine.
    case("DOS-158", SH, "cat /dev/zero | sort", "fails"),
    case("DOS-159", SH, "uniq /dev/zero || echo failed", "out:failed\n"),
    case("DOS-160", SH, "cat /dev/zero | sed p", "fails"),
    case("DOS-161", SH, "rev /dev/zero; tac /dev/zero", "says:tac: a line longer than 16 MiB"),
    case("DOS-162", SH, "nl /dev/zero | wc -c", "out:0\n"),
    case("DOS-163", SH, "sort -z /dev/urandom | head -c 1; fold -w 5 /dev/zero | head -c 6", "any"),
    # A sed loop over a pattern space that grows by one byte a turn: each turn costs more, so
    # yielding after a fixed count of commands left seconds between two deadline checks.
    case("DOS-164", SH, "echo | sed ':a;s/^/x/;ba'", "stops"),
    # Session 11: the readers MAX_LINE did not cover yet grew one line (or record, or whole
    # input from a pipe) until the guest ran out of memory and restarted.
    case("DOS-165", SH, "sort /dev/zero", "says:sort: a line longer than 16 MiB"),
    case("DOS-166", SH, "cat /dev/zero | awk 1", "fails"),
    case("DOS-167", SH, "cat /dev/zero | awk -v RS='^$' 1", "fails"),
    case("DOS-168", SH, "while read x; do :; done </dev/zero", "says:read: a line longer than"),
    case("DOS-169", SH, "mapfile x </dev/zero", "fails"),
    case("DOS-170", SH, "tail -n1 /dev/zero", "says:tail: a line longer than 16 MiB"),
    case("DOS-171", SH, "cat /dev/zero | jq .", "fails"),
    case("DOS-172", SH, "xargs </dev/zero", "says:xargs: argument line too long"),
    case("DOS-173", SH, "cat /dev/zero | tac", "fails"),
    # bc read a named expression twice when no assignment followed: 2^n reads of a[a[...]].
    case(
        "DOS-174",
        SH,
        "x=$(printf 'a[%.0s' {1..60}); y=$(printf ']%.0s' {1..60}); echo \"${x}1$y\" | bc",
        "out:0\n",
    ),
    # Session 12: jq values bigger than the guest's memory restarted the sandbox (out of
    # memory); now jq fails as jq does at its limits, and the sandbox stays as it was.
    case("DOS-175", SH, "jq -n '\"a\" * 100000000'", "says:Repeat string result too long"),
    case("DOS-176", SH, "jq -n '[range(1e7)] | length'", "says:jq: error: cannot allocate memory"),
    case(
        "DOS-177",
        SH,
        "jq -n 'reduce range(40) as $i (\"ab\"; . + .) | length'",
        "says:jq: error: cannot allocate memory",
    ),
    case(
        "DOS-178",
        SH,
        "jq -n '[range(1e5)] as $a | reduce range(200) as $i ($a; . + $a) | length'",
        "says:jq: error: cannot allocate memory",
    ),
    # A search over the pattern space can cost 50 ns a byte: counted per KiB, the loop ran
    # seconds between two yields and only the allocator's backstop stopped it.
    case("DOS-179", SH, "echo x | sed ':a;s/x*/&x/;ta'", "stops"),
    # A million words of one command exhausted the guest's memory (over 100 bytes each while
    # they were split): now the command fails when its words would not fit with their copies.
    case("DOS-181", SH, "set -- $(yes | head -n 1000000); echo $#", "says:argument list too long"),
    # tar -ch through a directory holding two links to itself walks 2^40 paths (GNU's too);
    # writing to a file never waits, so only the allocator's backstop stopped it (with room
    # for the archive: here the quota on files ends it first, hence /dev/null).
    case(
        "DOS-182",
        SH,
        "mkdir d; ln -s ../d d/a; ln -s ../d d/b; tar -chf /dev/null d 2>/dev/null",
        "stops",
    ),
    case("DOS-183", JS, "for (;;) console.log('x'.repeat(10000))", "stops"),
    # bc's `1+1+...` nests to the left: evaluating it recursed past the stack (a restart).
    case("DOS-187", SH, "{ printf '1+%.0s' $(seq 5000); echo 1; } | bc", "says:syntax error"),
    # Counted repetitions that unroll to a million pieces: the regex crate compiled them for
    # seconds without a look at the deadline (only the backstop stopped it).
    case("DOS-188", SH, "grep -E 'a{1000}{1000}' /dev/null", "says:too big"),
    case("DOS-189", SH, "echo x | sed -E 's/a{1000}{1000}/x/'", "says:too big"),
    # (`[[ =~ ]]` and expr were refused in time already, by the regex crate's size limit.)
    case("DOS-190", SH, "[[ x =~ (a{1000}){1000} ]]; echo $?", "out:2\n"),
    case("DOS-191", SH, "expr x : 'a\\{1000\\}\\{1000\\}'", "says:too big"),
    # A pattern substitution making 10 GB (each of 100,000 zeros replaced by all of them):
    # it was built whole before its size was checked.
    case("DOS-192", SH, "x=$(printf '%0100000d' 0); y=${x//0/$x}", "says:value too large"),
    case(
        "DOS-193",
        SH,
        "x=$(printf '%0100000d' 0); a=$(echo $x | tr 0 '&'); y=${x/*/$a}",
        "says:too large",
    ),
    # 20,000 tool results of 1 KB: after the deadline they went on being settled, one call
    # into the realm each, past the allocator's backstop.
    case(
        "DOS-194",
        JS,
        "const ps = []; for (let i = 0; i < 20000; i++) ps.push(echo({text: 'x'.repeat(1000)}));"
        " return (await Promise.all(ps)).length",
        "stops",
    ),
]

# --- EXF: reading what is not the code's (the host's environment and files, other sandboxes,
# the host's objects through tool results, tracebacks) ------------------------------------------
EXFILTRATION = [
    case("EXF-001", JS, "return await echo({text: 'x'})", "out:x"),
    case("EXF-002", JS, "try { await boom({}) } catch (e) { return e.message }", "says:boom"),
    case("EXF-003", JS, "try { await boom({}) } catch (e) { return e.stack }", "any"),
    case("EXF-004", JS, "return await opaque({})", "fails"),
    case(
        "EXF-005",
        JS,
        "try { return await opaque({}) } catch (e) { return e.message }",
        "says:object",
    ),
    case("EXF-006", JS, "return await generator({})", "fails"),
    case("EXF-007", JS, "return await env_var({name: 'CORRAL_ADVERSARIAL_SECRET'})", "any"),
    case("EXF-008", SH, "tool boom 2>&1", "says:boom"),
    case("EXF-009", SH, "tool opaque", "fails"),
    case("EXF-010", SH, "tool generator", "fails"),
    case("EXF-011", JS, "return Object.keys(globalThis).join(',')", "any"),
    case("EXF-012", JS, "return await fs.readdir('/workspace')", "any"),
    case("EXF-013", JS, "return await fs.readdir('/tmp')", "any"),
    case("EXF-014", SH, "ls -la /workspace /tmp", "any"),
    case("EXF-015", JS, "return new Date().toString()", "any"),
    case("EXF-016", JS, "return Intl.DateTimeFormat().resolvedOptions()", "any"),
    case("EXF-017", JS, "return [navigator?.userAgent, location?.href]", "any"),
    case("EXF-018", SH, "hostname; uname -a; id; whoami", "any"),
    case("EXF-019", SH, "cat /proc/cpuinfo /proc/meminfo", "fails"),
    case("EXF-020", SH, "cat /sys/class/net/*/address", "fails"),
    case("EXF-021", JS, "try { await boom_secret({}) } catch (e) { return e.message }", "any"),
    case("EXF-022", SH, "tool boom_secret", "fails"),
    case("EXF-023", JS, "return await nan_result({})", "any"),
    case("EXF-024", JS, "return await deep_result({})", "fails"),
    case("EXF-025", JS, "return await bad_str({})", "fails"),
    case("EXF-026", JS, "return await bad_dump({})", "fails"),
    case("EXF-027", SH, "tool deep_result", "fails"),
    case("EXF-028", SH, "tool bad_str", "fails"),
    case("EXF-029", JS, "return await reenter({})", "fails"),
    case("EXF-030", SH, "tool reenter", "fails"),
    # Lone surrogates, which UTF-8 cannot hold, on their way out of the engine: they used to
    # restart the sandbox (a return value, an error) or empty a file.
    case("EXF-031", JS, "return '\\ud800'", "out:\ufffd"),
    case("EXF-032", JS, "throw new Error('bad \\udc00')", "says:Error: bad \ufffd"),
    case("EXF-033", JS, "console.log('a\\ud800b'); console.error('\\udfff')", "out:a\ufffdb\n"),
    case(
        "EXF-034",
        JS,
        "await fs.writeFile('s.txt', 'a\\ud800'); return await fs.readFile('s.txt', 'utf8')",
        "out:a\ufffd",
    ),
    case("EXF-035", JS, "return await echo({text: '\\ud800'})", "out:\ufffd"),
]

# --- VFS: the scratch filesystem (paths, quotas, links, special files) -------------------------
FILESYSTEM = [
    case("VFS-001", SH, "echo x > /etc/evil", "fails"),
    case("VFS-002", SH, "echo x > /evil", "fails"),
    case("VFS-003", SH, "rm -rf / 2>&1; ls /workspace", "any"),
    case("VFS-004", SH, "rm -rf /workspace; echo gone", "any"),
    case("VFS-005", SH, "mv /workspace /tmp/w", "any"),
    case("VFS-006", SH, "rm -rf /tmp /workspace/*", "any"),
    case("VFS-007", SH, "cd ..; cd ..; cd ..; pwd; echo x > escape; ls", "any"),
    case("VFS-008", SH, "echo x > ../../escape", "fails"),
    case("VFS-009", SH, "mkdir -p /workspace/a/../../../../x", "fails"),
    case(
        "VFS-010",
        SH,
        "ln -s /workspace/canary.txt /tmp/l; echo evil > /tmp/l; cat canary.txt",
        "any",
    ),
    case("VFS-011", SH, "ln -s /etc /workspace/etc; echo x > /workspace/etc/evil", "fails"),
    case(
        "VFS-012",
        SH,
        "ln -s . loop; ls loop/loop/loop/loop/loop/loop/loop/loop/loop | head -2",
        "any",
    ),
    case("VFS-013", SH, "mkdir d; ln -s ../d d/up; find -L d | head", "any"),
    case("VFS-014", SH, "head -c 100000000 /dev/zero > f; ls -l f", "says:File too large"),
    case("VFS-015", SH, "for i in $(seq 5000); do echo $i > n$i; done", "fails"),
    case("VFS-016", SH, "touch $(printf 'x%.0s' {1..5000})", "fails"),
    case("VFS-017", SH, "mkdir -p $(printf 'a/%.0s' {1..3000}); echo ok", "any"),
    case("VFS-018", SH, "echo x > $'new\\nline'; ls", "any"),
    case("VFS-019", SH, "echo x > 'a\\0b'; ls", "any"),
    case("VFS-020", SH, "echo x > /dev/null; echo x > /dev/zero; echo ok", "any"),
    case("VFS-021", SH, "echo x > /dev/urandom; echo ok", "any"),
    case("VFS-022", SH, "chmod 000 canary.txt; cat canary.txt", "any"),
    case("VFS-023", SH, "chmod -R 000 /workspace; ls /workspace", "any"),
    case("VFS-024", SH, "touch -d '1970-01-01' canary.txt; echo ok", "any"),
    case("VFS-025", SH, "cp -r /workspace /workspace/copy", "any"),
    case("VFS-026", SH, "cp canary.txt /etc/x", "fails"),
    case("VFS-027", SH, "mv canary.txt /etc/x", "fails"),
    case("VFS-028", SH, "ln canary.txt /etc/x", "fails"),
    case("VFS-029", SH, "mktemp -p /etc", "fails"),
    case("VFS-030", SH, "dd if=/dev/zero of=f bs=1M count=1000", "fails"),
    case("VFS-031", SH, "x=$(printf 'y%.0s' {1..300}); echo x > $x", "fails"),
    case("VFS-032", SH, "tar cf /etc/x.tar .", "fails"),
    case("VFS-033", JS, "await fs.writeFile('/etc/evil', 'x')", "fails"),
    case("VFS-034", JS, "await fs.writeFile('../../etc/evil', 'x')", "fails"),
    case(
        "VFS-035",
        JS,
        "await fs.rm('/workspace', {recursive: true, force: true}); return 'done'",
        "any",
    ),
    case(
        "VFS-036", JS, "await fs.mkdir('/workspace/' + 'a/'.repeat(5000), {recursive: true})", "any"
    ),
    case("VFS-037", JS, "await fs.writeFile('x'.repeat(100000), 'y')", "fails"),
    case("VFS-038", JS, "await fs.writeFile('/workspace/\\u0000', 'y')", "fails"),
    case(
        "VFS-039",
        JS,
        "await fs.symlink('/etc/passwd', 'p'); return await fs.readFile('p', 'utf8')",
        "fails",
    ),
    case("VFS-040", JS, "await fs.rename('/workspace/canary.txt', '/etc/c')", "fails"),
    case("VFS-041", JS, "return await fs.readFile('/dev/zero')", "fails"),
    case("VFS-042", JS, "await fs.writeFile('big', new Uint8Array(2 ** 27))", "fails"),
    case(
        "VFS-043",
        JS,
        "for (let i = 0; ; i++) await fs.writeFile('/tmp/q' + i, 'x'.repeat(1 << 20))",
        "fails",
    ),
    case("VFS-044", JS, "await fs.appendFile('canary.txt', 'x'.repeat(2 ** 26))", "fails"),
    case("VFS-045", JS, "return await fs.readdir('/proc')", "fails"),
    case(
        "VFS-046",
        JS,
        "await fs.chmod('/workspace', 0); return await fs.readdir('/workspace')",
        "any",
    ),
    case("VFS-047", SH, "cd /; cd ..; cd ..; pwd", "out:/\n"),
    case("VFS-048", SH, "cd /nonexistent; pwd", "any"),
    case("VFS-049", SH, "echo x >> /tools/index.d.ts", "fails"),
    case("VFS-050", SH, "exec 3>/workspace/fd; echo x >&3; exec 3>&-; cat fd", "out:x\n"),
    case("VFS-051", SH, "ln -s / r; cat r/../etc/passwd r/../../etc/passwd", "fails"),
    case("VFS-052", SH, "mkdir d; ln -s ../.. d/up; echo x > d/up/up/up/etc/evil", "fails"),
    case("VFS-053", SH, "ln -s /tmp/t t; echo hi > t; cat /tmp/t", "out:hi\n"),
    case(
        "VFS-054",
        SH,
        "for i in $(seq 41); do ln -s l$((i-1)) l$i; done; touch l0; cat l41",
        "says:Too many levels of symbolic links",
    ),
    case(
        "VFS-055",
        SH,
        "mkdir x; cd x; rmdir ../x; echo y > f; pwd",
        "says:No such file or directory",
    ),
    case("VFS-056", SH, "ln -s /etc/passwd /tmp/p; cp /tmp/p mine; cat mine", "fails"),
    case(
        "VFS-057",
        SH,
        "ln -s /etc e; tar cf a.tar e; tar xf a.tar -C /tmp; cat /tmp/e/passwd",
        "fails",
    ),
    case(
        "VFS-058",
        JS,
        "await fs.symlink('/', 'root'); return await fs.readFile('root/etc/passwd', 'utf8')",
        "fails",
    ),
    case(
        "VFS-059",
        JS,
        "await fs.symlink('..', 'up'); await fs.writeFile('up/up/up/etc/x', 'x')",
        "fails",
    ),
    case("VFS-060", SH, "ls -l /dev/fd/0 /proc/self/fd 2>&1 | head -3", "any"),
]

CASES = ESCAPE + CAPABILITY + DENIAL + EXFILTRATION + FILESYSTEM
