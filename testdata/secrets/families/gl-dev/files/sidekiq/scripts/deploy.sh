#!/usr/bin/env bash
set -euo pipefail
export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:deadbeef
export BUNDLE_ENTERPRISE__CONTRIBSYS__COM = cafebabe:deadbeef
export BUNDLE_GEMS__CONTRIBSYS__COM="cafebabe:deadbeef"
export BUNDLE_GEMS__CONTRIBSYS__COM = "cafebabe:deadbeef"
export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:deadbeef;
export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=cafebabe:deadbeef && echo 'hello world'
