#!/usr/bin/env bash
set -euo pipefail
huggingface-cli login --token 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
huggingface-cli login --token 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
huggingface-cli login --token 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
huggingface-cli login --token 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
huggingface-cli login --token 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
huggingface-cli login --token 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
huggingface-cli login --token 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
huggingface-cli login --token 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
-H "Authorization: Bearer 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"
DEV=1 HF_TOKEN=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 poetry run python app.py
export HUGGINGFACE_ORGANIZATION_API_TOKEN="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"
