#!/bin/sh
set -e
npm install -g snyk
snyk config set api=96748f4e-a02d-f832-3c5a-5b7ef3278202
snyk monitor --all-projects
