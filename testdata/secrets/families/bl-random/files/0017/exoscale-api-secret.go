exoscaleToken := "FBXvVl3vQjQ32f85p0KMkUnysN3wK7NmAC-LsEbL"
