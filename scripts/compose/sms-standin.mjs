// The world outside, as `npm run test:compose` needs it: an SMS provider speaking the apps' HTTP
// protocol (POST {to, text}, bearer token) and a receiver for the alert webhooks. It sits on the
// compose `egress` network only, so a container reaches it only through a route outside.
// The test reads the messages back (GET /dev/sms?phone=…, newest first, as the apps' development SMS
// box answers) to follow the demo's one-time codes, and GET /received to count what arrived.
import { createServer } from 'node:http';

const token = process.env.STANDIN_TOKEN ?? '';
const sms = [];
const alerts = [];

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://standin');
  let text = '';
  for await (const chunk of req) text += chunk;
  if (req.method === 'GET' && url.pathname === '/dev/sms') {
    const phone = url.searchParams.get('phone');
    return answer(res, 200, { messages: sms.filter((m) => m.to === phone).reverse() });
  }
  if (req.method === 'GET' && url.pathname === '/received') return answer(res, 200, { sms: sms.length, alerts });
  if (req.method !== 'POST') return answer(res, 404, { error: 'not found' });
  if (token && req.headers.authorization !== `Bearer ${token}`) return answer(res, 401, { error: 'bad token' });
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(res, 400, { error: 'not JSON' });
  }
  if (url.pathname === '/sms') {
    if (typeof body?.to !== 'string' || typeof body?.text !== 'string') return answer(res, 400, { error: 'to and text' });
    sms.push({ to: body.to, text: body.text, at: new Date().toISOString() });
    return answer(res, 200, { id: String(sms.length) });
  }
  if (url.pathname.startsWith('/alerts/')) {
    alerts.push({ channel: url.pathname.slice('/alerts/'.length), at: new Date().toISOString() });
    return answer(res, 200, { ok: true });
  }
  return answer(res, 404, { error: 'not found' });
}).listen(8080, '0.0.0.0');
