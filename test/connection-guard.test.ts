import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rawRequest } from './support/raw-http.js';

const fixture = fileURLToPath(new URL('./support/guarded-server.js', import.meta.url));

test("the connection guard: an error nobody listens for in one request's stream closes that connection, is logged with the request id, and the server goes on; an error outside any request still ends the process", async () => {
  const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const poll = setInterval(() => {
        const match = /^listening (\d+)/.exec(stdout);
        if (match) {
          clearInterval(poll);
          resolve(Number(match[1]));
        }
      }, 20);
      void exited.then((code) => reject(new Error(`the fixture exited (${code}): ${stderr}`)));
    });
    const base = `http://127.0.0.1:${port}`;

    const broken = await rawRequest(base, {
      method: 'POST',
      path: '/stream-error',
      headers: { 'X-Request-Id': 'req-guard-1' },
      body: Buffer.from('abc'),
      send: 'whole',
    });
    assert.equal(broken.status, null, 'the failed request gets its connection closed');
    for (let i = 0; i < 3; i++) {
      const ok = await fetch(`${base}/ok`);
      assert.equal(ok.status, 200, 'the server goes on serving');
      assert.equal(await ok.text(), 'ok');
    }
    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; requestId?: string; err?: { message: string } });
    const confined = lines.find((line) => line.requestId === 'req-guard-1');
    assert.ok(confined, `a log line with the request id: ${stdout}`);
    assert.equal(confined.level, 50, 'logged as an error, not swallowed');
    assert.match(confined.msg, /unexpected error while serving a request/);
    assert.equal(confined.err?.message, 'boom in a request stream');

    child.stdin.write('crash\n');
    assert.equal(await exited, 1, 'an error outside any request ends the process, as without the guard');
    assert.match(stderr, /thrown outside any request/);
    assert.match(stdout, /"level":60.*uncaught error outside any request/);
  } finally {
    child.kill('SIGKILL');
  }
});
