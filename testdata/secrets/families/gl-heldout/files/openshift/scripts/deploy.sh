#!/usr/bin/env bash
set -euo pipefail
oc login --token=sha256~ZBMKw9VAayhdnyANaHvjJeXDiGwA7Fsr5gtLKj3-eh- 
