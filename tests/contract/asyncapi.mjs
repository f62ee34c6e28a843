// Parses schemas/asyncapi.yaml with the AsyncAPI project's own parser (@asyncapi/parser, pinned in
// package-lock.json) and validates it as AsyncAPI 3.0, $refs to the JSON Schemas included.
// Fails on any error or warning; informational notes (such as "a newer AsyncAPI version exists")
// are printed and allowed.
//
// Usage: node asyncapi.mjs <path to asyncapi.yaml>
import { Parser, fromFile } from '@asyncapi/parser';

const ERROR = 0;
const WARNING = 1;
const file = process.argv[2];
if (!file) {
  console.error('usage: node asyncapi.mjs <asyncapi.yaml>');
  process.exit(2);
}
const { document, diagnostics } = await fromFile(new Parser(), file).parse();
let bad = 0;
for (const d of diagnostics) {
  const level = ['error', 'warning', 'info', 'hint'][d.severity] ?? String(d.severity);
  console.log(`${file}: ${level} ${d.code}: ${d.message} at ${JSON.stringify(d.path)}`);
  if (d.severity === ERROR || d.severity === WARNING) bad += 1;
}
if (!document || bad > 0) {
  console.log(`${file}: not a valid AsyncAPI document (${bad} errors or warnings)`);
  process.exit(1);
}
if (document.version() !== '3.0.0') {
  console.log(`${file}: AsyncAPI ${document.version()}, 3.0.0 expected`);
  process.exit(1);
}
const channels = document.channels().length;
const operations = document.operations().length;
const messages = document.allMessages().length;
if (channels === 0 || operations === 0 || messages === 0) {
  console.log(`${file}: parsed, but empty (${channels} channels, ${operations} operations, ${messages} messages)`);
  process.exit(1);
}
console.log(`${file}: valid AsyncAPI ${document.version()}: ${channels} channels, ${operations} operations, ${messages} messages`);
