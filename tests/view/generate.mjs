// A deterministic Claude Code session of a given size for the view's load-time figure:
// turns of a user prompt, reasoning, a Bash tool call, its result (1–30 KB, now and then
// 200 KB) and an answer; ASCII with accents, CJK and emoji. The last result holds NEEDLE-END.
//   node tests/view/generate.mjs HOME MEGABYTES  → prints the session id
import fs from 'node:fs';
import path from 'node:path';

export function generate(home, megabytes) {
  const target = megabytes * 1e6;
  const sid = '5e55b16a-0000-4000-8000-0000000000' + String(megabytes % 100).padStart(2, '0');
  const dir = path.join(home, '.claude', 'projects', '-home-user-big');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, sid + '.jsonl');
  const fd = fs.openSync(file, 'w');
  let seed = 0x7261_6a68;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 0x1_0000_0000;
  };
  const words = ['cargo', 'build', 'test', 'session', 'record', 'codec', 'wasm', 'host', 'café', 'naïve',
    'über', '日本語', '测试', '한국어', '🍍', '🎉', 'fn', 'let', 'mut', 'match', 'Result<(), Error>', 'async',
    'compile', 'target', 'debug', 'release', 'warning:', 'error[E0277]:', 'note:', '-->', 'src/lib.rs:42:7'];
  const text = (bytes) => {
    let out = '';
    while (out.length < bytes) {
      out += words[Math.floor(rand() * words.length)];
      out += rand() < 0.08 ? '\n' : ' ';
    }
    return out;
  };
  const base = { isSidechain: false, userType: 'external', cwd: '/home/user/big', sessionId: sid, version: '2.1.197', gitBranch: 'main' };
  let written = 0;
  let parent = null;
  let turn = 0;
  const start = Date.parse('2026-11-30T04:00:00Z');
  const line = (record) => {
    const data = JSON.stringify(record) + '\n';
    fs.writeSync(fd, data);
    written += Buffer.byteLength(data);
  };
  while (written < target) {
    const ts = (k) => new Date(start + turn * 60000 + k * 1000).toISOString();
    const id = (k) => `${String(turn).padStart(8, '0')}-0000-4000-8000-00000000000${k}`;
    const last = written > target - 300000;
    line({ ...base, parentUuid: parent, type: 'user', message: { role: 'user', content: `Turn ${turn}: ` + text(200 + rand() * 600) }, uuid: id(1), timestamp: ts(0) });
    line({ ...base, parentUuid: id(1), type: 'assistant', message: { id: `msg_${turn}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'thinking', thinking: text(300 + rand() * 1500), signature: 'sig' }], stop_reason: null, usage: { input_tokens: 1000 + turn, output_tokens: 50 } }, uuid: id(2), timestamp: ts(1) });
    line({ ...base, parentUuid: id(2), type: 'assistant', message: { id: `msg_${turn}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: `toolu_${turn}`, name: 'Bash', input: { command: `cargo test --package p${turn % 17}`, description: 'Run the tests' } }], stop_reason: 'tool_use', usage: { input_tokens: 1000 + turn, output_tokens: 80 } }, uuid: id(3), timestamp: ts(2) });
    const size = rand() < 0.01 ? 200000 : 1000 + rand() * 29000;
    const output = text(size) + (last ? '\nNEEDLE-END' : '');
    line({ ...base, parentUuid: id(3), type: 'user', message: { role: 'user', content: [{ tool_use_id: `toolu_${turn}`, type: 'tool_result', content: output, is_error: false }] }, uuid: id(4), timestamp: ts(3), toolUseResult: { stdout: output, stderr: '', interrupted: false, isImage: false } });
    line({ ...base, parentUuid: id(4), type: 'assistant', message: { id: `msg_${turn}b`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: text(100 + rand() * 800) }], stop_reason: 'end_turn', usage: { input_tokens: 1000 + turn, output_tokens: 120 } }, uuid: id(5), timestamp: ts(4) });
    parent = id(5);
    turn++;
  }
  fs.closeSync(fd);
  return { id: sid, file, bytes: written, turns: turn };
}

if (process.argv[1] && import.meta.url === `file://${path.resolve(process.argv[1])}`) {
  const [home, mb] = process.argv.slice(2);
  const made = generate(home, Number(mb || 50));
  console.log(`${made.id} ${made.bytes} bytes, ${made.turns} turns: ${made.file}`);
}
