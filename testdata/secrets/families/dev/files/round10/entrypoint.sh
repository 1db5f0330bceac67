#!/usr/bin/env bash
: "${HEROKU_API_KEY:=67279976-a4a2-ffc1-b527-e8031c3a6713}"
: "${HEROKU_API_KEY:=$(cat /run/secrets/heroku)}"
