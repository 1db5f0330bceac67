curl -X POST -F token=glptt-b31cf7c315697682d4b0788c7102ebb13a23b02b -F ref=main https://gitlab.internal/api/v4/projects/7/trigger/pipeline
