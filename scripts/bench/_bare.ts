/**
 * The API benchmark's baseline, in its own process as the Paygate server is: the same framework and JSON body
 * parsing, no work. Prints one JSON line {url} when ready.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.use(express.json());
app.post('/bare', (req, res) => res.status(201).json({ ok: true, echo: req.body?.referenceId ?? null }));
app.get('/bare', (_req, res) => res.json({ status: 'pending', isFinal: false }));

const server = createServer(app);
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n');
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
