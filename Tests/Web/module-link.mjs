// Parses and links ES modules without running them (node:vm SourceTextModule, which needs
// --experimental-vm-modules, so modules.test.mjs runs this in a child process): a syntax error, or an
// import of a name the imported module does not export, is found here instead of only in a browser.
// Reads a JSON list of absolute paths on stdin; writes a JSON list of problems ("file: message").
import vm from 'node:vm';
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';

const files = JSON.parse(readFileSync(0, 'utf8'));
const modules = new Map();
const problems = [];
for (const file of files) {
  try {
    modules.set(file, new vm.SourceTextModule(readFileSync(file, 'utf8'), { identifier: file }));
  } catch (error) {
    problems.push(`${file}: ${error.message}`);
  }
}
for (const [file, module] of modules) {
  if (module.status !== 'unlinked') continue; // linked already, as an import of an earlier one
  try {
    await module.link((specifier, referencing) => {
      const target = modules.get(resolve(dirname(referencing.identifier), specifier));
      if (!target) throw new Error(`imports ${specifier}, which is not one of the modules`);
      return target;
    });
  } catch (error) {
    problems.push(`${file}: ${error.message}`);
  }
}
process.stdout.write(JSON.stringify(problems));
