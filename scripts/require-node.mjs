// Fails fast when an npm script runs on a Node older than the toolchain needs.
// The repo pins Node 24 as a dev dependency (package.json "node"), so `npm run` puts it on PATH;
// this guard catches a script run directly with the machine's older Node.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `rcs: Node ${process.versions.node} is too old; Node >= 22.12 is required. ` +
      'Run scripts through npm (npm run <script>), which uses the pinned Node 24 from devDependencies.',
  );
  process.exit(1);
}
