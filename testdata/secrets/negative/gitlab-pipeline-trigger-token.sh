curl -F token=glptt-0000000000000000000000000000000000000000 https://gitlab.example.com/api/v4/projects/1/trigger/pipeline
