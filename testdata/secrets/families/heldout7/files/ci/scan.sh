#!/bin/sh
export SNYK_TOKEN=${SNYK_TOKEN:-b82b4fdf-58e8-e90e-2986-bf97f46e2b9e}
export SNYK_TOKEN=${SNYK_TOKEN:-}
export SNYK_TOKEN="${token}"
snyk test --all-projects
