#!/bin/sh
# Applies deploy/kubernetes/ to the current kubectl context in rollout order (deploy/README.md):
# platform (namespace, network policies, PostgreSQL, Redis), then the migration Job, waited for, then
# the apps. The Secrets must exist already (deploy/generate-secrets.ts). Safe to re-run for a release.
# NAMESPACE and CLUSTER must match deploy/values.ts (namespace, postgres.clusterName).
set -eu
dir="$(dirname "$0")/kubernetes"
ns="${NAMESPACE:-mobile-money}"
cluster="${CLUSTER:-mm-postgres}"

kubectl apply -k "$dir/platform"
kubectl -n "$ns" wait --for=condition=Ready "cluster.postgresql.cnpg.io/$cluster" --timeout=20m
kubectl -n "$ns" rollout status statefulset/redis --timeout=10m

# A Job's pod template is immutable: the previous release's Job goes first.
kubectl -n "$ns" delete job migrate --ignore-not-found --wait=true
kubectl apply -k "$dir/migrate"
if ! kubectl -n "$ns" wait --for=condition=complete job/migrate --timeout=30m; then
  kubectl -n "$ns" logs job/migrate --tail=50 || true
  echo "migration did not complete: the apps were not rolled" >&2
  exit 1
fi

kubectl apply -k "$dir/apps"
for app in auth ledger-wallets webhook-dispatcher partners orchestrator; do
  kubectl -n "$ns" rollout status "deployment/$app" --timeout=10m
done
