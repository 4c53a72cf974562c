# acpturns.py BIN N ROUNDS: per-turn time of `luagent acp` (session/prompt
# with its session/update chunks) against `luagent ask` stream-json in and
# out (one user line, one result), the same mock turns, interleaved.
import json, subprocess, time, os, sys, tempfile
BIN = sys.argv[1]; N = int(sys.argv[2]); ROUNDS = int(sys.argv[3])
home = tempfile.mkdtemp()
env = dict(os.environ, LUAGENT_HOME=home, LUAGENT_MODEL="mock")
cwd = tempfile.mkdtemp()
def acp():
    p = subprocess.Popen([BIN, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    def send(o): p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
    def until(i):
        key = b'"id":%d,' % i
        while True:
            l = p.stdout.readline()
            if key in l and b'"method"' not in l: return json.loads(l)
    send({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}})
    until(1)
    send({"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":cwd,"mcpServers":[]}})
    sid = until(2)["result"]["sessionId"]
    t = time.perf_counter()
    for k in range(N):
        send({"jsonrpc":"2.0","id":10+k,"method":"session/prompt","params":{"sessionId":sid,"prompt":[{"type":"text","text":"hello number %d" % k}]}})
        until(10+k)
    dt = time.perf_counter() - t
    p.stdin.close(); p.wait()
    return dt / N
def ask():
    p = subprocess.Popen([BIN, "ask", "--output-format", "stream-json", "--input-format", "stream-json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    def send(o): p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
    def result():
        while True:
            l = p.stdout.readline()
            if b'"type":"result"' in l: return l
    send({"type":"user","message":{"role":"user","content":"warm up"}}); result()
    t = time.perf_counter()
    for k in range(N):
        send({"type":"user","message":{"role":"user","content":"hello number %d" % k}}); result()
    dt = time.perf_counter() - t
    p.stdin.close(); p.wait()
    return dt / N
res = {"acp": [], "ask": []}
for r in range(ROUNDS):
    res["acp"].append(acp()); res["ask"].append(ask())
lines = {}
for k, v in res.items():
    v.sort(); print(k, "median per turn: %.3f ms" % (v[len(v)//2] * 1000), ["%.3f" % (x*1000) for x in v])
print("ratio acp/ask: %.2f" % (sorted(res["acp"])[ROUNDS//2] / sorted(res["ask"])[ROUNDS//2]))
