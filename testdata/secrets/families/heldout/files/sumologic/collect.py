sumoId1 = 'suaRYt6iLL8cxl'
sumoKey1 = 'CzrMhR8zzy1eH1F0XlY1tu5ywqa2yaSFoWGg2cqE43XkfnUVCytnPQfv1enUYrzv'
sumo_access_key   = "<SUMOLOGIC ACCESS KEY>"
SUMO_ACCESS_KEY: AbCeFG123
