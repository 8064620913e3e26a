#!/usr/bin/env node
// scripts/gen-large-claude-code.mjs — write a synthetic Claude Code session JSONL of roughly N megabytes (for performance tests).
//
//   node scripts/gen-large-claude-code.mjs 50 > big.jsonl
//   node scripts/gen-large-claude-code.mjs 200 --seed=7 --out=huge.jsonl
//
// Options (all optional):
//   --seed=N              PRNG seed (default 42); same seed + size => byte-identical output
//   --out=PATH            write to a file instead of stdout
//   --compact-kchars=N    emit an auto compaction (compact_boundary + summary) every ~N thousand chars of
//                         conversation content (default 600 ~= 150k tokens); 0 disables compaction
//   --sidechains          also emit inline sidechain (sub-agent) records, as older Claude Code versions did
//   --no-images           never attach base64 screenshots to user turns
//   --no-surrogates       never emit tool outputs truncated in the middle of an emoji (lone surrogate escapes)
//
// Stress features on by default: ~1% base64 screenshots (30-150 KB), tool outputs up to ~100 KB (doubled by
// toolUseResult), ~12% verbatim-repeated tool outputs, emoji/CJK/umlauts, rare raw U+2028 inside strings,
// rare lone-surrogate escapes (\ud83d) from mid-emoji truncation.
//
// Everything is invented. The record shapes follow the Claude Code 2.0.x on-disk format documented in
// docs/formats.md §4.4: one JSON object per line; assistant responses split into one line per content block sharing
// message.id/requestId and an identical usage object; tool results as `user` records carrying both the
// model-visible tool_result and a structured `toolUseResult` copy; compactions as a `system`
// compact_boundary (parentUuid null + logicalParentUuid) followed by an isCompactSummary user record.
// No dependencies.

import { createWriteStream } from 'node:fs';

// ------------------------------------------------------------------ args
const argv = process.argv.slice(2);
const opt = (name, def) => {
  const hit = argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return def;
  if (!hit.includes('=')) return true;
  return hit.slice(hit.indexOf('=') + 1);
};
const sizeArg = argv.find((a) => !a.startsWith('--'));
const targetMB = Number(sizeArg ?? 10);
if (!Number.isFinite(targetMB) || targetMB <= 0) {
  process.stderr.write('usage: node scripts/gen-large-claude-code.mjs <megabytes> [--seed=N] [--out=PATH] [--compact-kchars=N] [--sidechains] [--no-images] [--no-surrogates]\n');
  process.exit(2);
}
const TARGET_BYTES = Math.floor(targetMB * 1024 * 1024);
const SEED = Number(opt('seed', 42)) >>> 0;
const COMPACT_CHARS = Number(opt('compact-kchars', 600)) * 1000;
const SIDECHAINS = opt('sidechains', false) === true;
const IMAGES = opt('no-images', false) !== true;
const SURROGATES = opt('no-surrogates', false) !== true;
const OUT = opt('out', null);

// ------------------------------------------------------------------ PRNG + ids
let _s = SEED || 1;
function rnd() { // mulberry32
  _s = (_s + 0x6d2b79f5) >>> 0;
  let t = _s;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (a) => a[Math.floor(rnd() * a.length)];
const chance = (p) => rnd() < p;
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const HEX = '0123456789abcdef';
const str = (alpha, n) => { let s = ''; for (let i = 0; i < n; i++) s += alpha[Math.floor(rnd() * alpha.length)]; return s; };
function uuid() {
  const h = str(HEX, 32).split('');
  h[12] = '4'; h[16] = '89ab'[int(0, 3)];
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

// ------------------------------------------------------------------ output with backpressure
const sink = OUT ? createWriteStream(OUT) : process.stdout;
sink.on('error', (e) => { if (e.code === 'EPIPE') process.exit(0); throw e; });
let buf = [];
let bufLen = 0;
let written = 0;
let lineCount = 0;
let maxLine = 0;
async function emit(obj) {
  const line = JSON.stringify(obj) + '\n';
  const bytes = Buffer.byteLength(line);
  written += bytes; lineCount++; if (bytes > maxLine) maxLine = bytes;
  buf.push(line); bufLen += bytes;
  if (bufLen >= 1 << 20) await flush();
}
async function flush() {
  if (!buf.length) return;
  const chunk = buf.join('');
  buf = []; bufLen = 0;
  if (!sink.write(chunk)) await new Promise((r) => sink.once('drain', r));
}

// ------------------------------------------------------------------ vocabulary (invented)
const PROJECTS = ['ledger-sync', 'kite-router', 'parcel-quote', 'atlas-ui', 'mosaic-etl'];
const PROJECT = pick(PROJECTS);
const CWD = `/home/dev/src/${PROJECT}`;
const SESSION = uuid();
const VERSION = '2.0.76';
const BRANCH = pick(['main', 'feat/batch-import', 'fix/timezone-drift', 'chore/deps']);
const SLUG = `${pick(['quiet', 'brisk', 'amber', 'lucky', 'mellow'])}-${pick(['drifting', 'humming', 'sorting', 'folding'])}-${pick(['heron', 'lynx', 'otter', 'quokka', 'wren'])}`;
const MODEL = 'claude-sonnet-4-5-20250929';
const DIRS = ['src', 'src/core', 'src/api', 'src/utils', 'tests', 'tests/unit', 'scripts', 'docs', 'config'];
const EXT = ['ts', 'py', 'go', 'rs', 'md', 'json', 'yaml', 'sql'];
const WORDS = 'account batch buffer cache cursor delta event export field filter handler index ledger limit mapper merge metric offset order parser payload queue record region retry schema shard snapshot stream tenant token window worker'.split(' ');
const DE = ['Prüfe bitte die Größenänderung', 'Übernimm die Änderungen für München', 'Die Straße fehlt in der Adresse', 'Schöne Grüße aus Köln'];
const JA = ['テストが失敗しています。原因を調べてください。', 'この関数を非同期に書き換えてください', 'ログに文字化けがあります', '設定ファイルを確認して'];
const ZH = ['请检查这个接口的返回值', '把日志里的错误整理一下', '数据库迁移脚本需要回滚', '这个函数太长了，帮我拆分'];
const KO = ['빌드가 실패했어요', '캐시 설정을 확인해 주세요'];
const EMOJI = ['✅', '❌', '⚠️', '🚀', '🐛', '🔥', '📦', '👍', '🧪', '🤖', '🇩🇪', '👩‍💻'];
const word = () => pick(WORDS);
const fileName = () => `${pick(DIRS)}/${word()}_${word()}.${pick(EXT)}`;
const sentence = (n = int(6, 18)) => { const w = []; for (let i = 0; i < n; i++) w.push(word()); const s = w.join(' '); return s[0].toUpperCase() + s.slice(1) + '.'; };

function userPrompt() {
  // U+2028 is legal unescaped inside JSON strings but breaks splitters that treat it as a line break.
  if (chance(0.004)) return `${sentence(10)}\u2028${sentence(10)}`;
  const r = rnd();
  if (r < 0.55) return `${sentence(int(8, 30))} ${chance(0.3) ? `Look at ${fileName()}.` : ''}`.trim();
  if (r < 0.65) return `${pick(DE)}: ${fileName()} ${pick(EMOJI)}`;
  if (r < 0.75) return `${pick(JA)} (${fileName()})`;
  if (r < 0.85) return `${pick(ZH)} ${pick(EMOJI)}`;
  if (r < 0.9) return `${pick(KO)} ${sentence(6)}`;
  return `${sentence(int(20, 60))}\n\n${sentence(int(20, 60))}\n- ${sentence(8)}\n- ${sentence(8)}`;
}

// ------------------------------------------------------------------ tool output generators
function lsOutput() {
  const lines = [`total ${int(40, 400)}`, 'drwxr-xr-x  14 dev  staff   448 Mar  3 10:02 .', 'drwxr-xr-x   9 dev  staff   288 Feb 27 18:40 ..'];
  for (let i = 0; i < int(8, 40); i++) {
    const d = chance(0.3);
    lines.push(`${d ? 'drwxr-xr-x' : '-rw-r--r--'}  ${int(1, 9)} dev  staff  ${String(int(64, 99999)).padStart(6)} ${pick(['Jan', 'Feb', 'Mar'])} ${String(int(1, 28)).padStart(2)} ${String(int(0, 23)).padStart(2, '0')}:${String(int(0, 59)).padStart(2, '0')} ${d ? word() : `${word()}_${word()}.${pick(EXT)}`}`);
  }
  return lines.join('\n');
}
function codeFile(targetChars) {
  const lines = [];
  let n = 0;
  while (n < targetChars) {
    const r = rnd();
    let l;
    if (r < 0.08) l = `// ${pick(JA)} ${pick(ZH)}`;
    else if (r < 0.12) l = `// TODO(${word()}): ${sentence(6)} ${pick(EMOJI)}`;
    else if (r < 0.3) l = `export function ${word()}${word()[0].toUpperCase()}${word().slice(1)}(${word()}: ${pick(['string', 'number', 'Record<string, unknown>'])}) {`;
    else if (r < 0.45) l = '}';
    else l = `  const ${word()}_${int(1, 99)} = ${word()}.${word()}(${word()}, ${int(0, 9999)}); // ${sentence(5)}`;
    lines.push(l); n += l.length + 1;
  }
  return lines.join('\n');
}
function numbered(text) { return text.split('\n').map((l, i) => `${String(i + 1).padStart(6, ' ')}\u2192${l}`).join('\n'); }
function testLog(targetChars) {
  const out = ['> test', `> vitest run --reporter=verbose`, ''];
  let n = 0, pass = 0, fail = 0;
  while (n < targetChars) {
    const ok = chance(0.93);
    if (ok) pass++; else fail++;
    const l = ` ${ok ? '✓' : '×'} ${pick(DIRS)}/${word()}.test.ts > ${word()} ${word()} > ${sentence(5).toLowerCase()} ${int(1, 900)}ms`;
    out.push(l); n += l.length + 1;
    if (!ok) {
      const tb = `   AssertionError: expected ${int(0, 999)} to equal ${int(0, 999)}\n    ❯ ${fileName()}:${int(1, 400)}:${int(1, 80)}\n    - Expected\n    + Received\n\n    -   "${word()}": ${int(0, 99)},\n    +   "${word()}": ${int(0, 99)},`;
      out.push(tb); n += tb.length;
    }
  }
  out.push('', ` Test Files  ${int(1, 60)} passed`, `      Tests  ${fail} failed | ${pass} passed (${pass + fail})`, `   Duration  ${int(1, 90)}.${int(10, 99)}s ${fail ? '❌' : '✅'}`);
  return out.join('\n');
}
function jsonPayload(targetChars) {
  const items = [];
  let n = 0;
  while (n < targetChars) {
    const it = { id: `${word()}_${str(B62, 10)}`, status: pick(['ok', 'pending', 'failed', 'retrying']), region: pick(['eu-central-1', 'us-east-2', 'ap-northeast-1']),
      label: chance(0.1) ? pick(JA) : chance(0.1) ? pick(DE) : sentence(4), amount: int(0, 10 ** 6) / 100, tags: [word(), word()], updated_at: `2025-0${int(1, 9)}-1${int(0, 9)}T0${int(0, 9)}:${int(10, 59)}:00Z` };
    const s = JSON.stringify(it); items.push(it); n += s.length;
  }
  return JSON.stringify({ page: 1, total: items.length, items }, null, 2);
}
function grepOutput(targetChars) {
  const out = []; let n = 0;
  while (n < targetChars) { const l = `${fileName()}:${int(1, 2000)}:  ${word()}(${word()}, ${int(0, 99)}) ${chance(0.05) ? pick(ZH) : ''}`; out.push(l); n += l.length + 1; }
  return out.join('\n');
}
function buildLog(targetChars) {
  const out = []; let n = 0;
  while (n < targetChars) {
    const l = chance(0.04)
      ? `${pick(['WARN', 'ERROR'])} ${fileName()}:${int(1, 300)} ${sentence(7)} ${pick(['⚠️', '❌'])}`
      : `[${int(1, 99)}/${int(100, 200)}] ${pick(['Compiling', 'Bundling', 'Linking', 'Downloading'])} ${word()}-${word()} v${int(0, 9)}.${int(0, 30)}.${int(0, 9)}${chance(0.02) ? ' 📦' : ''}`;
    out.push(l); n += l.length + 1;
  }
  return out.join('\n');
}

function sizeClass() { // chars of tool output
  const r = rnd();
  if (r < 0.6) return int(50, 1500);
  if (r < 0.86) return int(1500, 8000);
  if (r < 0.96) return int(10000, 40000);
  return int(40000, 100000);
}

// Pool of earlier outputs to repeat verbatim (same `ls`, same file read, same failing test run ...).
const repeatPool = [];
function remember(call) {
  const len = typeof call.content === 'string' ? call.content.length : JSON.stringify(call.content).length;
  if (len > 200) { repeatPool.push({ kind: call.kind, input: call.input, content: call.content, toolUseResult: call.toolUseResult, isError: call.isError }); if (repeatPool.length > 40) repeatPool.shift(); }
}

function maybeTruncateMidEmoji(text) {
  // Claude Code truncates very long outputs; a cut can land inside a surrogate pair.
  if (!SURROGATES || !chance(0.01)) return text;
  const emoji = '🚀';
  return text.slice(0, Math.max(0, text.length - 40)) + `\n... output truncated ${emoji[0]}`; // emoji[0] is a lone high surrogate
}

function makeToolCall() {
  if (repeatPool.length && chance(0.12)) {
    const r = pick(repeatPool);
    return { ...r, repeated: true };
  }
  const target = sizeClass();
  const r = rnd();
  if (r < 0.22) {
    const content = lsOutput();
    return { kind: 'Bash', input: { command: 'ls -la', description: 'List files' }, content, toolUseResult: { stdout: content, stderr: '', interrupted: false, isImage: false } };
  }
  if (r < 0.5) {
    const path = `${CWD}/${fileName()}`;
    const raw = codeFile(target);
    return { kind: 'Read', input: { file_path: path }, content: numbered(raw), toolUseResult: { type: 'text', file: { filePath: path, content: raw, numLines: raw.split('\n').length, startLine: 1, totalLines: raw.split('\n').length } } };
  }
  if (r < 0.66) {
    const content = maybeTruncateMidEmoji(testLog(target));
    const failed = content.includes('failed') && !content.includes(' 0 failed');
    return failed
      ? { kind: 'Bash', input: { command: 'npm test', description: 'Run tests' }, content: `Exit code 1\n${content}`, isError: true, toolUseResult: `Error: Exit code 1\n${content}` }
      : { kind: 'Bash', input: { command: 'npm test', description: 'Run tests' }, content, toolUseResult: { stdout: content, stderr: '', interrupted: false, isImage: false } };
  }
  if (r < 0.76) {
    const content = grepOutput(target);
    return { kind: 'Grep', input: { pattern: word(), path: CWD, output_mode: 'content', '-n': true }, content, toolUseResult: { mode: 'content', numFiles: int(1, 40), filenames: [], content, numLines: content.split('\n').length } };
  }
  if (r < 0.84) {
    const content = jsonPayload(target);
    return { kind: 'mcp__internal-api__list_records', input: { page: 1, page_size: int(10, 500) }, content: [{ type: 'text', text: content }], toolUseResult: [{ type: 'text', text: content }] };
  }
  if (r < 0.92) {
    const content = buildLog(target);
    return { kind: 'Bash', input: { command: 'cargo build --release 2>&1 | tail -n 2000', description: 'Build release' }, content, toolUseResult: { stdout: content, stderr: '', interrupted: false, isImage: false } };
  }
  const path = `${CWD}/${fileName()}`;
  const original = codeFile(Math.min(target, 30000));
  const oldString = original.split('\n').slice(2, 5).join('\n');
  const newString = oldString.replace(/const /g, 'let ');
  const content = `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${numbered(newString)}`;
  return { kind: 'Edit', input: { file_path: path, old_string: oldString, new_string: newString }, content,
    toolUseResult: { filePath: path, oldString, newString, originalFile: original, structuredPatch: [{ oldStart: 3, oldLines: 3, newStart: 3, newLines: 3, lines: [...oldString.split('\n').map((l) => '-' + l), ...newString.split('\n').map((l) => '+' + l)] }], userModified: false, replaceAll: false } };
}

// ------------------------------------------------------------------ record builders
let parent = null;
let clock = Date.parse('2025-03-03T08:00:00.000Z');
const tick = (lo, hi) => { clock += int(lo, hi); return new Date(clock).toISOString(); };
let ctxChars = 0;
let ctxTokensBase = 14000;
let compactions = 0;
let lastUuid = null;
const base = (side) => ({ parentUuid: parent, isSidechain: !!side, userType: 'external', cwd: CWD, sessionId: SESSION, version: VERSION, gitBranch: BRANCH, slug: SLUG, ...(side ? { agentId: side } : {}) });

let forcedNextUuid = null;
async function userRecord(content, extra = {}, side = null) {
  const uuid = forcedNextUuid || uuid4();
  forcedNextUuid = null;
  await emit({ ...base(side), type: 'user', message: { role: 'user', content }, uuid, timestamp: tick(200, 20000), ...extra });
  parent = uuid; lastUuid = uuid;
}
function uuid4() { return uuid(); }

async function assistantResponse(blocks, side = null) {
  const msgId = 'msg_01' + str(B62, 22);
  const requestId = 'req_011C' + str(B62, 20);
  const outTokens = Math.ceil(blocks.reduce((a, b) => a + JSON.stringify(b).length, 0) / 4);
  const usage = { input_tokens: int(3, 12), cache_creation_input_tokens: int(100, 6000), cache_read_input_tokens: ctxTokensBase + Math.ceil(ctxChars / 4),
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: outTokens, service_tier: 'standard' };
  usage.cache_creation.ephemeral_5m_input_tokens = usage.cache_creation_input_tokens;
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  for (let i = 0; i < blocks.length; i++) {
    const uuid = uuid4();
    await emit({ ...base(side), message: { model: MODEL, id: msgId, type: 'message', role: 'assistant', content: [blocks[i]], stop_reason: i === blocks.length - 1 ? stop : null, stop_sequence: null, usage },
      requestId, type: 'assistant', uuid, timestamp: tick(i === 0 ? 1500 : 30, i === 0 ? 25000 : 600) });
    parent = uuid; lastUuid = uuid;
  }
  ctxChars += outTokens * 4;
}

async function maybeCompact() {
  if (!COMPACT_CHARS || ctxChars < COMPACT_CHARS) return;
  compactions++;
  const boundary = uuid4();
  await emit({ parentUuid: null, logicalParentUuid: lastUuid, isSidechain: false, userType: 'external', cwd: CWD, sessionId: SESSION, version: VERSION, gitBranch: BRANCH, slug: SLUG,
    type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, timestamp: tick(20000, 90000), uuid: boundary, level: 'info',
    compactMetadata: { trigger: 'auto', preTokens: ctxTokensBase + Math.ceil(ctxChars / 4) } });
  parent = boundary; lastUuid = boundary;
  const sections = ['Primary Request and Intent', 'Key Technical Concepts', 'Files and Code Sections', 'Errors and fixes', 'Problem Solving', 'All user messages', 'Pending Tasks', 'Current Work', 'Optional Next Step'];
  let body = '';
  sections.forEach((s, i) => { body += `${i + 1}. ${s}:\n`; for (let k = 0; k < int(1, 6); k++) body += `   - ${sentence(int(8, 24))}${chance(0.1) ? ' ' + pick(JA) : ''}\n`; body += '\n'; });
  const summary = 'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n' +
    `Analysis:\n${sentence(40)} ${sentence(30)}\n\nSummary:\n${body}`;
  await userRecord(summary, { isVisibleInTranscriptOnly: true, isCompactSummary: true });
  ctxChars = summary.length;
}

// ------------------------------------------------------------------ main loop
async function turn() {
  const side = null;
  if (IMAGES && chance(0.01)) {
    const data = str(B64, int(30000, 150000) & ~3);
    await userRecord([{ type: 'text', text: userPrompt() }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data } }], { imagePasteIds: [1] });
  } else {
    await userRecord(userPrompt(), { thinkingMetadata: { level: 'none', disabled: true, triggers: [] } });
  }
  ctxChars += 300;
  const steps = int(1, 14);
  for (let s = 0; s < steps; s++) {
    const blocks = [];
    if (chance(0.3)) blocks.push({ type: 'thinking', thinking: `${sentence(int(10, 60))} ${chance(0.1) ? pick(EMOJI) : ''}`.trim(), signature: 'Eq' + str(B64, int(200, 900)) + '==' });
    if (chance(0.7)) blocks.push({ type: 'text', text: sentence(int(6, 40)) });
    const nCalls = chance(0.25) ? int(2, 4) : 1;
    const calls = [];
    for (let c = 0; c < nCalls; c++) {
      const call = makeToolCall();
      const id = 'toolu_01' + str(B62, 22);
      calls.push({ id, call });
      blocks.push({ type: 'tool_use', id, name: call.kind, input: call.input });
    }
    await assistantResponse(blocks, side);
    for (const { id, call } of calls) {
      const block = { tool_use_id: id, type: 'tool_result', content: call.content };
      if (call.isError) block.is_error = true;
      await userRecord([block], { toolUseResult: call.toolUseResult }, side);
      const len = typeof call.content === 'string' ? call.content.length : JSON.stringify(call.content).length;
      ctxChars += len;
      if (!call.repeated) remember(call);
    }
    if (SIDECHAINS && chance(0.03)) await sidechain();
    await maybeCompact();
    if (written >= TARGET_BYTES) return;
  }
  const final = [{ type: 'text', text: `${sentence(int(10, 80))}\n\n- ${sentence(10)}\n- ${sentence(10)} ${chance(0.3) ? pick(EMOJI) : ''}`.trim() }];
  await assistantResponse(final, side);
}

async function sidechain() {
  // Older Claude Code wrote Task sub-agent conversations inline with isSidechain:true.
  const saved = parent;
  parent = null;
  const agent = str(HEX, 8);
  await userRecord(`Sub-task: ${sentence(20)}`, {}, agent);
  for (let i = 0; i < int(1, 4); i++) {
    const call = makeToolCall();
    const id = 'toolu_01' + str(B62, 22);
    await assistantResponse([{ type: 'tool_use', id, name: call.kind, input: call.input }], agent);
    await userRecord([{ tool_use_id: id, type: 'tool_result', content: call.content }], { toolUseResult: call.toolUseResult }, agent);
  }
  await assistantResponse([{ type: 'text', text: sentence(30) }], agent);
  parent = saved;
}

const firstUser = uuid();
await emit({ type: 'summary', summary: `${sentence(5).replace('.', '')} (${PROJECT})`, leafUuid: uuid() });
await emit({ type: 'file-history-snapshot', messageId: firstUser, snapshot: { messageId: firstUser, trackedFileBackups: {}, timestamp: new Date(clock).toISOString() }, isSnapshotUpdate: false });
forcedNextUuid = firstUser;
while (written < TARGET_BYTES) await turn();
await flush();
if (OUT) await new Promise((r) => sink.end(r));
process.stderr.write(`gen-large: ${(written / 1048576).toFixed(1)} MiB, ${lineCount} lines, ${compactions} compactions, longest line ${(maxLine / 1024).toFixed(0)} KiB, seed ${SEED}\n`);
