headers = {"X-API-Key": "FDxCz8Ga5OT9J1It7Ub9CShPrAOcn8IU"}
