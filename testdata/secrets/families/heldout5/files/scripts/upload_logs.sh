curl -sS \
  --user "logs:1QCxBjHSPg98g1k" \
  --data-binary @app.log \
  https://logs.example.com/ingest
curl -sS \
  -H "Authorization: Bearer o2NFE1WfV43rqjfUnXYlFIiIkpNl7z3IoBEdd5Tx" \
  https://api.example.com/v1/ping
