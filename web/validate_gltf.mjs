// Runs the Khronos glTF validator on each file named on the command line and prints one JSON
// line per file: {"file", "errors", "warnings", "infos", "hints", "messages": [...]}.
// Exit status: 0 when every file has 0 errors and 0 warnings, 1 otherwise, 2 on bad usage.
import fs from 'node:fs';
import validator from 'gltf-validator';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate_gltf.mjs FILE.glb...');
  process.exit(2);
}
let ok = true;
for (const file of files) {
  let report;
  try {
    report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {maxIssues: 50});
  } catch (e) {
    console.log(JSON.stringify({file, errors: 1, warnings: 0, messages: [String(e)]}));
    ok = false;
    continue;
  }
  const issues = report.issues;
  const messages = issues.messages.filter((m) => m.severity <= 1).map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
  console.log(JSON.stringify({file, errors: issues.numErrors, warnings: issues.numWarnings, infos: issues.numInfos,
                              hints: issues.numHints, messages}));
  if (issues.numErrors > 0 || issues.numWarnings > 0) ok = false;
}
process.exit(ok ? 0 : 1);
