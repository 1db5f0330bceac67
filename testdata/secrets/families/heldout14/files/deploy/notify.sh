#!/bin/bash
curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' https://hooks.slack.com/services/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
