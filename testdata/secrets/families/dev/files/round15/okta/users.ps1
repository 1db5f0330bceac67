$headers = @{ Authorization = "SSWS 00VG8n_4CPs_rf_pb7IjWH7aWZAfHc8hxqAhdgl-7E" }
