// After `changeset version`: the gateway's server.json (its MCP registry entry) takes the package's new version.
import { readFileSync, writeFileSync } from 'node:fs';

const dir = new URL('../packages/gateway/', import.meta.url);
const { version, name, mcpName } = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
const server = JSON.parse(readFileSync(new URL('server.json', dir), 'utf8'));
server.name = mcpName;
server.version = version;
for (const p of server.packages) if (p.registryType === 'npm' && p.identifier === name) p.version = version;
writeFileSync(new URL('server.json', dir), `${JSON.stringify(server, null, 2)}\n`);
console.log(`server.json: ${mcpName} ${version}`);
