#!/usr/bin/env bash
set -euo pipefail
set apikey="API-ZNRMR7SL6L3ATMOIK7GKJDKLPY"
