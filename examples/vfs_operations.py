"""The sandbox's files: from Python, from JavaScript and the shell, snapshots and forks.

Run: python examples/vfs_operations.py
"""

from corral import Sandbox

sandbox = Sandbox()

# From Python, without running guest code.
sandbox.fs.mkdir("/workspace/data", parents=True)
sandbox.fs.write("/workspace/data/users.json", '[{"name": "Ada"}, {"name": "Lin"}]')
print(sandbox.fs.listdir("/workspace/data"), sandbox.fs.stat("/workspace/data/users.json").size)

# From JavaScript (Node-like fs) and the shell: the same files.
print(
    sandbox.execute("""
    const users = JSON.parse(await fs.readFile('/workspace/data/users.json'));
    await fs.writeFile('/workspace/data/names.txt', users.map((u) => u.name).join('\\n') + '\\n');
    return shell('wc -l < /workspace/data/names.txt').trim() + ' names';
""").return_value
)
print(sandbox.fs.read_text("/workspace/data/names.txt"), end="")

# Outside /workspace and /tmp everything is read-only.
print(sandbox.execute("echo x > /etc/x", language="shell").stderr, end="")

# A snapshot is bytes: store it, restore it later, or start a new sandbox from it.
snapshot = sandbox.snapshot()
sandbox.fs.remove("/workspace/data", recursive=True)
print("after remove:", sandbox.fs.exists("/workspace/data"))
sandbox.restore(snapshot)
print("after restore:", sandbox.fs.listdir("/workspace/data"))

# A fork is an independent copy: what one writes, the other does not see.
fork = sandbox.fork()
fork.fs.write("/workspace/data/only-in-fork.txt", "x")
print("fork:", fork.fs.listdir("/workspace/data"))
print("original:", sandbox.fs.listdir("/workspace/data"))
