curl -X POST -F token=glptt-916d189e438b2d68c6c55fd524012f3b724d1d5e -F ref=main https://gitlab.acme.io/api/v4/projects/42/trigger/pipeline
