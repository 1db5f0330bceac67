api_value = "64GiIjHGb3CXlMaXZjljENUhJduRHHJE"
