#!/bin/sh
export BUNDLE_GEMS__CONTRIBSYS__COM="0a1b2c3d:9e8f7a6b"
bundle install --deployment
