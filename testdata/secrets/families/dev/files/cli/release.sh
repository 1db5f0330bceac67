#!/bin/sh
docker login registry.acme.io --username ci-bot --password Xk29fLq0ZpW7vR
mysqladmin --user=root --password=Pq7vN2xL9kT4 create reporting
echo "$REGISTRY_TOKEN" | docker login registry.acme.io --username ci-bot --password-stdin
docker login registry.acme.io --username ci-bot --password "$REGISTRY_PASSWORD"
mysqladmin --user=root --password=<password> create reporting
docker login ghcr.io -u octo --password ${{ secrets.GHCR_TOKEN }}
