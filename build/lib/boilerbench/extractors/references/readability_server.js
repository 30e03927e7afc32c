// Readability.js for many pages in one node process (boilerbench's ReadabiliPy engine "node").
// Reads one JSON object a line on stdin ({"html": "..."}) and writes one a line on stdout:
// {"article": <Readability.parse() result or null>} or {"error": "..."}. Each page is handled
// as ReadabiliPy's ExtractArticle.js handles it (the HTML trimmed, new JSDOM(html), new
// Readability(document).parse()); jsdom's console messages (CSS it cannot fetch) are dropped.
// Run with the working directory ReadabiliPy's javascript folder, whose node_modules it uses.
const path = require('path');
const readline = require('readline');
const modules = path.join(process.cwd(), 'node_modules');
const { Readability } = require(path.join(modules, '@mozilla', 'readability'));
const { JSDOM, VirtualConsole } = require(path.join(modules, 'jsdom'));

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  let reply;
  try {
    const html = JSON.parse(line).html.trim();
    const doc = new JSDOM(html, { virtualConsole: new VirtualConsole() });
    reply = { article: new Readability(doc.window.document).parse() };
    doc.window.close();
  } catch (error) {
    reply = { error: String(error && error.stack ? error.stack.split('\n')[0] : error) };
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
});
