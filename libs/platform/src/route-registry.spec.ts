import Fastify from 'fastify';
import { RouteRegistry } from './route-registry';

describe('RouteRegistry', () => {
  it('tells a wrong method on a known path from an unknown path', async () => {
    const fastify = Fastify();
    const routes = new RouteRegistry();
    routes.attach(fastify);
    fastify.get('/v1/intents/:id', async () => ({}));
    fastify.post('/v1/intents/:id/confirm', async () => ({}));
    fastify.all('/api/auth/*', async () => ({}));
    await fastify.ready();

    expect(routes.allowedMethods('/v1/intents/abc')).toEqual(['GET', 'HEAD']);
    expect(routes.allowedMethods('/v1/intents/abc/confirm?x=1')).toEqual(['POST']);
    expect(routes.allowedMethods('/v1/unknown')).toEqual([]);
    expect(routes.allowedMethods('/api/auth/anything/deep')).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
    await fastify.close();
  });
});
